"""tests/host/test_hostile33.py - hostile input, round three (issue 33),
outside bisect: each probe that failed is a test here, red on the code
before its fix.

- --budget: inf, nan, 1e308, 0 and below refused when the options are
  parsed (ab, sensitivity), and by the check every ab session goes
  through (bisect's too), never int() of an infinite share later.
- A case whose sampling stopped on its budget (`"stop": "budget"`) is
  marked "unsettled (stopped on budget)" in every table that shows its
  figures, an open mark (not a point of the curve) in the HTML REP
  plot, and left out of the summary's exit costs and of the breakdown's
  fit; a REP speed-up shows it with its interval.
- import-lava passes no number through as its exit status: the LAVA
  status case holds a guest status (0-3) or the log is garbled (6).
- lava-job: the runner's one rule for kernel words (no suite= beside
  --suite, no lava=off); no output onto the ISO it deploys nor onto the
  other output; nothing (no 0-byte file) left on a full disk.
- compare --plot on a full disk: no 0-byte SVG, no "plot written".
- --allow-env-diff refuses a name that is no cost field; a fingerprint of
  200,000 keys puts a bounded number of lines on stderr.
- parse refuses a run record whose schema is a string.
- ab: --a-json on a full or read-only disk is a named error before any
  boot; an interrupted session names its partial files; a group SIGTERM
  never prints a traceback."""

import copy
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import unittest

from tests.host.test_hostile import (IS_ROOT, OK_LOG, ROOT, TOOL, Cli, forge,
                                     read_log, replace_tm)

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.commands import ab as ab_cmd  # noqa: E402
from trapmeterlib.commands import common  # noqa: E402
from trapmeterlib.values import resultform  # noqa: E402
from trapmeterlib.output import html, report, report_figures, summary  # noqa: E402
from trapmeterlib.stats import breakdown, speedup, sweepfit  # noqa: E402
from trapmeterlib.values import figure  # noqa: E402

RUN3 = os.path.join(ROOT, "tests", "fixtures", "kvm-run3.json")
UNSETTLED_CASE = "fwcfg.in8.single.1"     # boot 0: 7 samples, stop budget

ABSURD_BUDGETS = {"ab": ("inf", "1e308", "nan", "0"),
                  "sensitivity": ("inf", "1e308")}


class Budget(Cli):

    def test_ab_and_sensitivity_refuse_it_before_a_boot(self):
        fake = self.good_fake()
        for command, budgets in ABSURD_BUDGETS.items():
            for budget in budgets:
                proc = self.cli(command, "--no-build", "--accel", "tcg",
                                "--qemu", fake, "--budget", budget)
                self.assertEqual(proc.returncode, 2, (command, budget, proc.stderr))
                self.assertIn("--budget", proc.stderr)
                self.assertNotIn("boot", proc.stderr.replace("--help", ""))

    def test_bisect_step_refuses_it_as_cannot_judge(self):
        """bisect-step's own --budget: a named error, status 128 (git
        bisect run stops), never a step run to an endless budget."""
        for budget in ("inf", "1e308", "nan"):
            proc = self.cli("bisect-step", "--build", "true", "--binary",
                            "qemu", "--good", "HEAD", "--budget", budget)
            self.assertEqual(proc.returncode, 128, (budget, proc.stderr))
            self.assertIn("--budget", proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)

    def test_the_session_check_refuses_it(self):
        """ab_cmd.SessionConfig.check: what bisect's sessions go through."""
        for budget in (math.inf, 1e308, math.nan, 0.0, -5.0):
            cfg = ab_cmd.SessionConfig(
                sides={}, a_json=self.path("a.json"), b_json=self.path("b.json"),
                thresholds={}, metrics=["cycles_per_op"], budget=budget)
            with self.assertRaises(common.OptionError) as ctx:
                cfg.check()
            self.assertIn("--budget", ctx.exception.message)

    def test_a_sane_budget_passes(self):
        self.assertEqual(common.check_budget(600), 600.0)
        self.assertEqual(common.budget_seconds("1.5"), 1.5)
        self.assertIsNone(common.check_budget(None))



def run3():
    with open(RUN3) as fh:
        return json.load(fh)


def row_of(lines, case):
    return next(line for line in lines if line.split()[:1] == [case])


class Unsettled(unittest.TestCase):

    def test_the_every_result_table_marks_it(self):
        boot = run3()["boots"][0]
        res = next(r for r in boot["results"] if r["case"] == UNSETTLED_CASE)
        self.assertEqual(res["stop"], "budget")
        report.add_speedups(boot["results"])        # as the runner does
        text = report.render_report(boot["run"], {}, boot["results"], [], [])
        lines = text.splitlines()
        row = row_of(lines, UNSETTLED_CASE)
        self.assertIn("1511274" + report.UNSETTLED_MARK, row)
        self.assertIn("709214" + report.UNSETTLED_MARK, row)
        self.assertNotIn(report.UNSETTLED_MARK.strip(),
                         row_of(lines, "fwcfg.in8.single.16").split())
        # the REP row beside it divides its median: its speed-up is marked,
        # and its interval (this boot's samples) holds 1x: not resolved
        self.assertIn(figure.SHORT + report.UNSETTLED_MARK,
                      row_of(lines, "fwcfg.in8.rep.1"))
        self.assertRegex(text, r"n\.r\. in REP speed-up: not resolved, %s: "
                         r".*fwcfg\.in8\.rep\.1" % re.escape(figure.HOLDS_ONE))
        self.assertIn("u: " + resultform.UNSETTLED, text)

    def test_the_median_over_boots_marks_it(self):
        doc = run3()
        agg = report.aggregate_results([b["results"] for b in doc["boots"]])
        one = next(r for r in agg if r["case"] == UNSETTLED_CASE)
        self.assertEqual(one["unsettled_boots"], 1)
        row = report.result_row(one)
        self.assertTrue(row[3].endswith(report.UNSETTLED_MARK), row)

    def test_the_html_table_says_so(self):
        body = html.results_table(run3())
        row = next(line for line in body.splitlines()
                   if ">%s<" % UNSETTLED_CASE in line)
        self.assertIn(resultform.UNSETTLED, row)

    def test_the_summary_leaves_it_out(self):
        doc = run3()
        settled = summary.class_data(doc)
        self.assertTrue(settled[0][2].resolved)          # QEMU port, pio.user
        for boot in doc["boots"][1:]:
            for res in boot["results"]:
                if res["case"] == "pio.user":
                    res["stop"] = "budget"
        label, case, cycles, _ns, _exits, _why = summary.class_data(doc)[0]
        self.assertEqual(case, "pio.user")
        self.assertTrue(cycles.resolved)                  # boot 0's alone
        self.assertIsNone(cycles.interval)
        for res in doc["boots"][0]["results"]:
            if res["case"] == "pio.user":
                res["stop"] = "budget"
        cycles = summary.class_data(doc)[0][2]
        self.assertEqual(cycles.reason, resultform.UNSETTLED + " in 3 of 3 boots")
        self.assertIn("not resolved (%s" % resultform.UNSETTLED,
                      "\n".join(summary.class_lines(doc)))

    def test_rep_speedups_show_it_with_its_interval(self):
        """An unsettled row's median is no settled figure, but a speed-up
        divides two medians and shows how far they may be: over boots the
        95 % interval of every boot's ratio, in one boot the interval its
        samples give (test_medianci.py), never a bare point."""
        doc = run3()
        groups = dict(summary.rep_groups(doc))
        # fwcfg.in8.single.4096 stopped on its budget in every boot
        self.assertTrue(all(r["stop"] == "budget" for b in doc["boots"]
                            for r in b["results"]
                            if r["case"] == "fwcfg.in8.single.4096"))
        # every boot's ratio counts: its 95 % interval reaches below zero
        ratios = [speedup.ratio(t, r) for b in doc["boots"]
                  for r, t in summary.rep_pairs(b["results"])
                  if r["target"] == "fwcfg"]
        self.assertEqual(len(ratios), 3)
        self.assertEqual(groups["fwcfg in8"], speedup.over_boots(ratios))
        self.assertEqual(groups["fwcfg in8"].reason, figure.HOLDS_ZERO)
        text = "\n".join(summary.rep_lines(doc))
        self.assertIn("fwcfg in8 n.r.", text)
        self.assertRegex(text, r"n\.r\.: not resolved, %s:.*fwcfg in8"
                         % re.escape(figure.HOLDS_ZERO))
        self.assertRegex(text, r"acpi\.tmr in32 [\d.]+x \([\d.]+-[\d.]+\)")
        self.assertNotIn("n.r.x", text)
        one = copy.deepcopy(doc)
        one["boots"] = one["boots"][:1]
        fig = dict(summary.rep_groups(one))["fwcfg in8"]
        self.assertTrue(not fig.resolved or fig.interval is not None)

    def test_the_rep_plot_marks_it(self):
        """Boot 0's unsettled fwcfg.in8.single.1 (median 1,511,274 cycles
        a unit) is an open mark titled unsettled, not a point of the
        single-unit curve; settled, it is one."""
        drawn = rep_plot(run3(), "fig-rep-fwcfg-in8")
        script, data = "\n".join(drawn["script"]), drawn["data"]
        self.assertNotIn(1511274.0, [v for _, v in data[0]])  # single curve
        self.assertIn("single: " + resultform.UNSETTLED, script)
        self.assertIn((1, 1511274.0), data[6])                 # the mark
        self.assertIn(resultform.UNSETTLED, drawn["caption"])
        settle = copy.deepcopy(run3())
        settle["boots"][0]["results"] = [
            dict(r, stop="stable") for r in settle["boots"][0]["results"]]
        settle["boots"] = settle["boots"][:1]
        drawn = rep_plot(settle, "fig-rep-fwcfg-in8")
        self.assertIn((1, 1511274.0), drawn["data"][0])
        self.assertNotIn(resultform.UNSETTLED, "\n".join(drawn["script"]))

    def test_the_breakdown_fit_leaves_it_out(self):
        """The fit of boot 0's fwcfg.in class is the same with the rows
        stopped on their budget as without them; settled, they move it."""
        results = run3()["boots"][0]["results"]
        kept = [r for r in results if not resultform.unsettled(r)]
        self.assertLess(len(kept), len(results))
        with_them = breakdown.boot_breakdown(results)["fwcfg.in"]["fit"]
        self.assertEqual(with_them, breakdown.boot_breakdown(kept)["fwcfg.in"]["fit"])
        self.assertNotIn(UNSETTLED_CASE, [p["case"] for pts in sweepfit.sweep_points(
            results).values() for p in pts])
        settled = breakdown.boot_breakdown(
            [dict(r, stop="stable") for r in results])["fwcfg.in"]["fit"]
        self.assertNotEqual(with_them, settled)
        self.assertGreater(settled["rows"], with_them["rows"])

    def test_the_envelope_takes_the_settled_boot(self):
        """A case stopped on its budget in the boot where its minimum is
        lowest: the envelope (the judged fit's rows) takes the boot where it
        settled."""
        boots = [b["results"] for b in run3()["boots"]]
        low = [dict(r, cycles=dict(r["cycles"], min=1.0))
               if r["case"] == UNSETTLED_CASE else r for r in boots[0]]
        one = next(r for r in breakdown.envelope([low] + boots[1:])
                   if r["case"] == UNSETTLED_CASE)
        self.assertEqual(one.get("stop"), "stable")
        self.assertNotEqual(one["cycles"]["min"], 1.0)


def rep_plot(doc, fid):
    """What report_figures hands gnuplot for figure `fid` of doc's boots:
    {"script", "data", "caption"} (gnuplot itself not run)."""
    seen = {}

    def render(script, data, size, prefix):
        seen[prefix] = {"script": script, "data": data}
        return "<svg/>"
    real = report_figures.gnuplot.render
    report_figures.gnuplot.render = render
    try:
        figs = report_figures.rep_figures([b["results"] for b in doc["boots"]])
    finally:
        report_figures.gnuplot.render = real
    one = next(f for f in figs if f.id == fid)
    return dict(seen[fid + "-"], caption=one.caption)



def lava_log(status):
    """A lava-run log of one result and the status case holding `status`."""
    return ("{dt: x, lvl: results, msg: {case: cpuid, definition: "
            "0_trapmeter, result: pass, measurement: 55, units: cycles}}\n"
            "{dt: x, lvl: results, msg: {case: trapmeter.status, definition: "
            "0_trapmeter, result: fail, measurement: %s, units: code}}\n"
            % status)


class ImportLava(Cli):

    def test_no_status_number_passes_through(self):
        for number in (70, 128, 130, 14, 4):
            path = self.write("s%d.log" % number, lava_log(number))
            proc = self.cli("import-lava", "--json", self.path("o.json"), path)
            self.assertEqual(proc.returncode, 6, (number, proc.stderr))
            self.assertIn("not a guest status", proc.stderr)

    def test_a_guest_status_does(self):
        for number in (0, 1, 2, 3):
            path = self.write("s%d.log" % number, lava_log(number))
            proc = self.cli("import-lava", "--json", self.path("o.json"), path)
            self.assertEqual(proc.returncode, number, proc.stderr)


class SmallDisk(Cli):
    """A private tmpfs: full (filled to the last byte) or read-only."""

    def small(self, name, read_only=False):
        if not IS_ROOT:
            self.skipTest("mounting a small tmpfs needs root")
        path = self.path(name)
        os.mkdir(path)
        opts = "size=64k" + (",ro" if read_only else "")
        subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", path],
                       check=True)
        self.addCleanup(subprocess.run, ["umount", path])
        if not read_only:
            fd = os.open(os.path.join(path, "filler"), os.O_WRONLY | os.O_CREAT)
            try:
                while os.write(fd, b"\0" * 512):
                    pass
            except OSError:
                pass
            finally:
                os.close(fd)
        return path

    def assert_nothing_left(self, disk, proc):
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("cannot write", proc.stderr)
        left = [n for n in os.listdir(disk) if n != "filler"]
        self.assertEqual(left, [], "left on a full disk")


class LavaJob(SmallDisk):

    def test_kernel_words_by_the_one_rule(self):
        for args, needle in ((["--suite", "pio", "--cmdline", "suite=exits"],
                              "--suite"),
                             (["--cmdline", "lava=off"], "lava=on")):
            proc = self.cli("lava-job", "-o", self.path("job.yaml"), *args)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn(needle, proc.stderr)
            self.assertFalse(os.path.exists(self.path("job.yaml")))

    def test_no_output_onto_the_iso_or_the_other_output(self):
        iso = self.write("trapmeter.iso", b"ISO" * 1000)
        url = "file://" + iso
        for args in (["-o", iso], ["--write-blob", iso],
                     ["--write-blob", self.path("x"), "-o", self.path("x")]):
            proc = self.cli("lava-job", "--iso-url", url, *args)
            self.assertEqual(proc.returncode, 2, (args, proc.stderr))
            self.assertIn("refusing to overwrite", proc.stderr)
        with open(iso, "rb") as fh:
            self.assertEqual(fh.read(), b"ISO" * 1000)
        self.assertFalse(os.path.exists(self.path("x")))

    def test_a_full_disk_leaves_no_empty_file(self):
        disk = self.small("full")
        for opt in ("-o", "--write-blob"):
            proc = self.cli("lava-job", opt, os.path.join(disk, "out"))
            self.assert_nothing_left(disk, proc)


class ComparePlot(SmallDisk):

    def test_a_full_disk_leaves_no_empty_svg(self):
        disk = self.small("full")
        base = os.path.join(ROOT, "tests", "fixtures", "tcg-base.json")
        cand = os.path.join(ROOT, "tests", "fixtures", "tcg-aa.json")
        for engine in ("auto", "python"):
            proc = self.cli("compare", base, cand, "--plot",
                            os.path.join(disk, "p.svg"), "--plot-engine", engine)
            self.assertNotIn("plot written", proc.stderr)
            self.assert_nothing_left(disk, proc)

    def test_a_read_only_disk_too(self):
        disk = self.small("ro", read_only=True)
        base = os.path.join(ROOT, "tests", "fixtures", "tcg-base.json")
        proc = self.cli("compare", base, base, "--plot", os.path.join(disk, "p.svg"))
        self.assertNotIn("plot written", proc.stderr)
        self.assert_nothing_left(disk, proc)


class AbOutputs(SmallDisk):

    def ab(self, *args):
        return self.cli("ab", "--no-build", "--accel", "tcg", "--qemu",
                        self.good_fake(), *args, timeout=120)

    def test_a_full_or_read_only_disk_is_named_before_a_boot(self):
        for disk in (self.small("full"), self.small("ro", read_only=True)):
            for option in ("--a-json", "--b-json"):
                other = "--b-json" if option == "--a-json" else "--a-json"
                proc = self.ab(option, os.path.join(disk, "side.json"),
                               other, self.path("other.json"))
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("cannot write %s" % option, proc.stderr)
                self.assertNotIn("planning boot", proc.stderr)
                self.assertEqual([n for n in os.listdir(disk) if n != "filler"], [])

    def test_an_interrupted_session_names_its_partial_files(self):
        """A group SIGTERM (as a CI job's timeout sends) once a boot of
        each side is in: status 130, each side's file named with its boots,
        no traceback from the parent or any fork."""
        fake = self.fake("slowqemu", """
            with open(%r, "rb") as fh:
                out.write(fh.read())
            out.flush()
            time.sleep(0.7)
            sys.exit(1)
            """ % OK_LOG)
        a, b = self.path("a.json"), self.path("b.json")
        proc = subprocess.Popen(
            [sys.executable, TOOL, "ab", "--no-build", "--accel", "tcg",
             "--qemu", fake, "--a-json", a, "--b-json", b, "--max-boots", "40"],
            cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, start_new_session=True)
        try:
            end = time.monotonic() + 90
            while not (os.path.exists(a) and os.path.exists(b)):
                self.assertIsNone(proc.poll(), "ab ended before its boots")
                self.assertLess(time.monotonic(), end, "no boot in 90 s")
                time.sleep(0.1)
            time.sleep(0.3)         # into a later fork, most likely
            os.killpg(proc.pid, signal.SIGTERM)
            _out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.assertEqual(proc.returncode, 130, err)
        self.assertNotIn("Traceback", err)
        self.assertNotIn("internal error", err)
        for side, path in (("A", a), ("B", b)):
            self.assertRegex(err, r"interrupted: side %s: \d+ boot\(s\) so far "
                             r"in %s" % (side, path))


class EnvDiff(Cli):
    BASE = os.path.join(ROOT, "tests", "fixtures", "tcg-base.json")

    def test_an_unknown_field_is_refused(self):
        for name in ("mitigation", "vulnerabilites", "qemu", "kernel.relase"):
            proc = self.cli("compare", self.BASE, self.BASE,
                            "--allow-env-diff", "thp," + name)
            self.assertEqual(proc.returncode, 2, (name, proc.stderr))
            self.assertIn(name, proc.stderr)
        for name in ("thp", "kernel", "vulnerabilities.retbleed", "kvm"):
            proc = self.cli("compare", self.BASE, self.BASE,
                            "--allow-env-diff", name)
            self.assertIn(proc.returncode, (0, 10, 13), (name, proc.stderr))

    def test_ab_refuses_it_before_a_boot(self):
        proc = self.cli("ab", "--no-build", "--accel", "tcg", "--qemu",
                        self.good_fake(), "--allow-env-diff", "mitigation")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertNotIn("boot", proc.stderr.replace("--help", ""))

    def test_a_huge_fingerprint_is_bounded(self):
        from trapmeterlib.system import envdiff
        wide = {"kvm": {"p%d" % i: i for i in range(200000)}}
        other = {"kvm": {"p%d" % i: -i for i in range(200000)}}
        lines, refused = envdiff.check({"host": {"fingerprint": wide}},
                                       {"host": {"fingerprint": other}})
        self.assertEqual(len(refused), 199999)
        self.assertLessEqual(len(lines), envdiff.MAX_SHOWN + 1)
        self.assertLess(len(envdiff.refusal_message(refused)), 4000)
        self.assertIn("199979 more", lines[-1] + envdiff.refusal_message(refused))


class ParseSchema(Cli):

    def test_a_schema_that_is_a_string_is_refused(self):
        lines = replace_tm(read_log(OK_LOG), "run",
                           lambda r: dict(r, schema=str(r["schema"])))
        proc = self.parse(forge(lines), "--json", self.path("r.json"))
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn("'schema'", proc.stderr)


if __name__ == "__main__":
    unittest.main()
