"""tests/host/test_comparable.py - like with like (tools/trapmeterlib/stats/
comparable.py): what compare checks before it judges two results files.
A difference that changes what a per-boot figure means (samples per case,
iterations of a fixed plan, rounds, statistic, TSC rate, accelerator)
refuses the timing verdict of the cases it touches, with exit status 13;
other differences are named warnings; files that are not the two sides of
one ab session are said not to be interleaved.  The documents are the
recorded fixtures, changed in memory where a test needs a difference
(compare's re-verification of the files is tested in test_compare.py)."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.output import comparison, resultsfile  # noqa: E402
from trapmeterlib.stats import compare  # noqa: E402
from trapmeterlib.stats import comparable  # noqa: E402
from tests.host.test_lava_tool import _log_line, _tm  # noqa: E402
from tests.host import incli  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures")
RUNNER = os.path.join(ROOT, "tools", "trapmeter")


def load(name):
    return resultsfile.read_results(os.path.join(FIX, name))


def ab_pair(prefix="kvm-ab-aa"):
    """The two sides of a recorded ab session, marked as one session."""
    a, b = load(prefix + "-a.json"), load(prefix + "-b.json")
    if "session" not in a:
        for side, doc in (("a", a), ("b", b)):
            doc["session"] = {"kind": "ab", "id": "s1", "side": side}
    return a, b


def each_result(doc):
    for boot in doc["boots"]:
        for res in boot["results"]:
            yield res


def fields(refusals):
    return sorted(r.field for r in refusals)


class Refusals(unittest.TestCase):
    def test_one_session_is_comparable(self):
        for prefix in ("kvm-ab-aa", "tcg-ab-aa"):
            refusals, warnings = comparable.check(*ab_pair(prefix))
            self.assertEqual(refusals, [], prefix)
            self.assertEqual(warnings, [], prefix)

    def test_other_samples_per_case(self):
        a, b = ab_pair()
        for res in each_result(b):
            if res["case"].startswith("debugcon."):
                res["samples"] = 9
        refusals, _w = comparable.check(a, b)
        self.assertEqual(fields(refusals), ["plan"])
        self.assertEqual(sorted(refusals[0].cases),
                         [("pio", "debugcon.out8.rep.512"),
                          ("pio", "debugcon.out8.single.512")])
        self.assertIn("31 samples", refusals[0].reason)
        self.assertIn("9 samples", refusals[0].reason)

    def test_fixed_plans_of_other_iterations(self):
        a, b = ab_pair("tcg-ab-aa")
        self.assertTrue(all(r["stop"] == "plan" for r in each_result(a)))
        self.assertEqual(comparable.check(a, b)[0], [])
        for res in each_result(b):
            if res["case"] == "pic.in8.single.512":
                res["iters"] += 1
        refusals, _w = comparable.check(a, b)
        self.assertEqual(fields(refusals), ["plan"])
        self.assertEqual(list(refusals[0].cases),
                         [("pio", "pic.in8.single.512")])

    def test_fixed_plan_against_adaptive_stopping(self):
        a, b = ab_pair("tcg-ab-aa")
        for res in each_result(b):
            res["stop"] = "stable"
        refusals, _w = comparable.check(a, b)
        self.assertEqual(fields(refusals), ["plan"])
        self.assertIn("adaptive stopping", refusals[0].reason)
        self.assertIn("fixed plan", refusals[0].reason)

    def test_adaptive_caps_differ(self):
        a, b = load("tcg-schema2.json"), load("tcg-schema3.json")
        refusals, warnings = comparable.check(a, b)
        self.assertEqual(fields(refusals), ["plan"])
        self.assertTrue(any(w.startswith("samples per case vary") for w in
                            warnings), warnings)

    def test_adaptive_counts_of_one_rule_are_comparable(self):
        """One boot per file (a LAVA run each): adaptive stopping ended at
        other counts under the same rule -- the same plan."""
        a, b = load("tcg-schema3.json"), load("tcg-schema3.json")
        a["boots"], b["boots"] = a["boots"][:1], b["boots"][1:2]
        counts = [{r["case"]: r["samples"] for r in d["boots"][0]["results"]}
                  for d in (a, b)]
        self.assertNotEqual(counts[0], counts[1])
        self.assertEqual(comparable.check(a, b)[0], [])
        for boot in b["boots"]:
            boot["run"]["budget_ms"] *= 2           # another rule
        self.assertEqual(fields(comparable.check(a, b)[0]), ["plan"])

    def test_rounds(self):
        a, b = ab_pair()
        for boot in b["boots"]:
            boot["run"]["cmdline"] += " rounds=4"
        refusals, _w = comparable.check(a, b)
        self.assertEqual(fields(refusals), ["rounds"])
        self.assertIsNone(refusals[0].cases)
        self.assertIn("base 1, candidate 4", refusals[0].reason)

    def test_rounds_of_some_boots_only(self):
        """One file whose boots ran rounds 1 and 4 against one of rounds 1
        only: the sets differ though one holds the other: refused."""
        for side in (0, 1):
            pair = list(ab_pair())
            for boot in pair[side]["boots"][::2]:
                boot["run"]["cmdline"] += " rounds=4"
            refusals, _w = comparable.check(*pair)
            self.assertEqual(fields(refusals), ["rounds"], side)
            self.assertIn("1/4", refusals[0].reason)

    def test_tsc_tolerance_boundary(self):
        """2 % of the lower rate apart is one clock; beyond it, another."""
        for cand_khz, refused in ((2040000, []), (2040500, ["tsc"]),
                                  (1960800, []), (1960000, ["tsc"])):
            a, b = ab_pair()
            for doc, khz in ((a, 2000000), (b, cand_khz)):
                for boot in doc["boots"]:
                    boot["run"]["tsc"]["khz"] = khz
            self.assertEqual(fields(comparable.check(a, b)[0]), refused, cand_khz)

    def test_statistic_missing_in_one_file(self):
        a, b = ab_pair()
        for res in each_result(b):
            del res["cycles"]["p10"]
        self.assertEqual(comparable.check(a, b)[0], [])      # min: both
        refusals, _w = comparable.check(a, b, stat="p10")
        self.assertEqual(fields(refusals), ["statistic"])
        self.assertIn("candidate file has no p10", refusals[0].reason)

    def test_accel_and_clock(self):
        a, b = ab_pair()
        b["config"]["accel"] = "tcg"
        self.assertEqual(fields(comparable.check(a, b)[0]), ["accel"])
        a, b = ab_pair()
        for boot in b["boots"]:
            boot["run"]["tsc"]["khz"] = int(boot["run"]["tsc"]["khz"] * 1.1)
        self.assertEqual(fields(comparable.check(a, b)[0]), ["tsc"])
        # a guessed rate says nothing about the clock: not refused on it
        for boot in b["boots"]:
            boot["run"]["tsc"]["guess"] = True
        self.assertEqual(comparable.check(a, b)[0], [])

    def test_pit_calibrations_that_move_within_their_error(self):
        """The recorded TCG A/A session: PIT rates 2.30-3.18 GHz between
        boots, each boot's cross-check against the ACPI PM timer saying
        how far off it is: one clock, not refused."""
        a, b = ab_pair("tcg-ab-aa")
        rates = [boot["run"]["tsc"]["khz"] for doc in (a, b)
                 for boot in doc["boots"]]
        self.assertEqual(a["boots"][0]["run"]["tsc"]["source"], "pit")
        self.assertGreater(max(rates), min(rates) * 1.35)
        self.assertEqual(comparable.check(a, b)[0], [])

    def test_pit_calibrations_apart_beyond_their_error(self):
        """Each side's boots agree on a PIT rate and the sides lie 20 %
        apart (their checks within 0.3 %): refused by name."""
        a, b = ab_pair("tcg-ab-aa")
        for scale, doc in ((1.0, a), (0.8, b)):
            for boot in doc["boots"]:
                boot["run"]["tsc"]["khz"] = int(2300000 * scale)
                boot["run"]["tsc"]["check"]["diff_ppm"] = -1500
        refusals, _w = comparable.check(a, b)
        self.assertEqual(fields(refusals), ["tsc-calibration"])
        self.assertIn("calibrated by the PIT disagree beyond the "
                      "calibration's error", refusals[0].reason)
        # 1.9 % apart: within the error a boot without a check is allowed
        for boot in b["boots"]:
            boot["run"]["tsc"]["khz"] = int(2300000 * 0.981)
            del boot["run"]["tsc"]["check"]
        self.assertEqual(comparable.check(a, b)[0], [])
        # a PIT side against a declared rate 20 % away: refused
        for boot in b["boots"]:
            boot["run"]["tsc"].update(khz=int(2300000 * 1.2),
                                      source="kvmclock")
        self.assertEqual(fields(comparable.check(a, b)[0]),
                         ["tsc-calibration"])
        # a guessed rate says nothing: not refused
        for boot in b["boots"]:
            boot["run"]["tsc"]["guess"] = True
        self.assertEqual(comparable.check(a, b)[0], [])

    def test_refused_rows_and_exit_status(self):
        a, b = ab_pair()
        for res in each_result(b):
            if res["case"] == "cpuid":
                res["samples"] = 9
        rows, warnings = compare.compare_docs(a, b)
        refused = [r for r in rows if r.verdict == compare.REFUSED]
        self.assertEqual({(r.name, r.metric) for r in refused},
                         {("exits/cpuid", "cycles_per_op")})
        self.assertTrue(refused[0].notes[0].startswith(
            "timing verdict refused: samples per case differ"))
        self.assertIsNone(refused[0].p)             # out of the family
        self.assertTrue(any(w.startswith("timing verdicts refused for 1 "
                                         "case(s)") for w in warnings))
        exits = [r for r in rows if r.name == "exits/cpuid"
                 and r.metric == "exits_per_op"]
        # QMP sees only background on cpuid (in-kernel)
        self.assertEqual([r.verdict for r in exits], [compare.NOT_JUDGED])
        self.assertEqual(compare.exit_status(rows), compare.NOT_COMPARABLE)
        self.assertIn("refused 1 (not measured alike)",
                      comparison.render_table(rows, warnings, "a", "b"))
        rows[0].verdict = "regression"          # a regression still says 10
        self.assertEqual(compare.exit_status(rows), compare.REGRESSION)

    def test_ops_of_other_sizes_refuse_time_and_exits(self):
        """ide cuts a long transfer by what the boot just measured: boots
        whose op moved other amounts are not compared, counts included."""
        a, b = ab_pair()
        for boot in b["boots"][1::2]:       # every other candidate boot
            for res in boot["results"]:
                if res["case"] == "pio.user":
                    res["bytes"] = 2
        refusals = comparable.check(a, b)[0]
        self.assertEqual(fields(refusals), ["size"])
        self.assertIn("bytes per op differ between boots (base 1, "
                      "candidate 1-2)", refusals[0].reason)
        rows, warnings = compare.compare_docs(a, b)
        refused = {r.metric for r in rows if r.verdict == compare.REFUSED}
        self.assertIn("exits_per_op", refused)
        self.assertIn("cycles_per_op", refused)
        self.assertEqual({r.name for r in rows
                          if r.verdict == compare.REFUSED}, {"exits/pio.user"})
        exits = [r for r in rows if r.name == "exits/pio.user"
                 and r.metric == "exits_per_op"][0]
        self.assertIn("exit-count verdict refused: bytes per op differ "
                      "between boots", exits.notes)
        self.assertTrue(any(w.startswith("timing and exit-count verdicts "
                                         "refused for 1 case(s)")
                            for w in warnings))
        self.assertEqual(compare.exit_status(rows), compare.NOT_COMPARABLE)
        for res in each_result(b):          # one size again: judged
            if res["case"] == "pio.user":
                res["bytes"] = 1
        self.assertEqual(comparable.check(a, b)[0], [])

    def test_a_wait_primed_on_one_side_refuses_its_time_not_its_exits(self):
        """An op timed from an untimed one (primed) against one that was
        not is another method: its timing verdict is withheld by name;
        its exits per op are counted alike."""
        a, b = ab_pair()
        for res in each_result(b):
            if res["case"] == "pio.user":
                res["primed"] = True
        refusals = comparable.check(a, b)[0]
        self.assertEqual(fields(refusals), ["prime"])
        self.assertEqual(set(refusals[0].cases), {("exits", "pio.user")})
        rows = compare.compare_docs(a, b)[0]
        refused = {(r.name, r.metric) for r in rows
                   if r.verdict == compare.REFUSED}
        self.assertIn(("exits/pio.user", "cycles_per_op"), refused)
        self.assertNotIn(("exits/pio.user", "exits_per_op"), refused)
        self.assertEqual({name for name, _metric in refused}, {"exits/pio.user"})
        for res in each_result(a):          # primed on both sides: judged
            if res["case"] == "pio.user":
                res["primed"] = True
        self.assertEqual(comparable.check(a, b)[0], [])
        for res in each_result(b):          # four untimed ops against one
            if res["case"] == "pio.user":
                res["prime_ops"] = 4
        self.assertEqual(fields(comparable.check(a, b)[0]), ["prime"])
        for res in each_result(a):          # one, written out: as unwritten
            if res["case"] == "pio.user":
                res["prime_ops"] = 1
        self.assertEqual(fields(comparable.check(a, b)[0]), ["prime"])
        for res in each_result(b):
            res.pop("prime_ops", None)
        self.assertEqual(comparable.check(a, b)[0], [])

    def test_cli_different_plans_exit_13(self):
        proc = subprocess.run([RUNNER, "compare", os.path.join(
            FIX, "kvm-base.json"), os.path.join(FIX, "kvm-ab-aa-a.json")],
            capture_output=True, text=True, timeout=120, cwd=ROOT)
        self.assertEqual(proc.returncode, 13, proc.stdout + proc.stderr)
        self.assertIn("timing verdicts refused for 7 case(s): samples per "
                      "case differ", proc.stdout)
        helptext = subprocess.run([RUNNER, "compare", "--help"],
                                  capture_output=True, text=True).stdout
        self.assertIn("13      compare: timing verdicts refused", helptext)


class Warnings(unittest.TestCase):
    def test_blocks_of_run_repeat_are_not_interleaved(self):
        _r, warnings = comparable.check(load("kvm-base.json"),
                                        load("kvm-aa.json"))
        self.assertEqual(len(warnings), 1, warnings)
        self.assertIn("not interleaved", warnings[0])
        self.assertIn("trapmeter ab", warnings[0])

    def test_sides_of_two_sessions_are_not_interleaved(self):
        a, b = ab_pair()
        b["session"]["id"] = "s2"
        self.assertIn("not interleaved", comparable.check(a, b)[1][0])
        b["session"]["id"], b["session"]["side"] = "s1", "a"
        self.assertIn("not interleaved", comparable.check(a, b)[1][0])

    def test_system_differences_are_named(self):
        a, b = ab_pair()
        b["host"]["qemu_version"] = "9.2.0"
        b["host"]["kernel"] = "6.1.0"
        b["config"]["firmware"] = "ovmf"
        b["config"]["boot"] = "iso"
        b["config"]["cmdline"] += " rep=off"
        argv = b["config"]["qemu_argv"]
        argv[0] = "/opt/qemu/bin/qemu-wrapper"
        # the kernel's line is in QEMU's too: it is named once, as itself
        argv[argv.index("-append") + 1] += " rep=off"
        for boot in b["boots"]:
            boot["run"]["cpu"]["model"] = 17
        refusals, warnings = comparable.check(a, b)
        self.assertEqual(refusals, [])
        text = "\n".join(warnings)
        for want in ("QEMU version differs: base 7.2.22, candidate 9.2.0",
                     "host kernel differs", "firmware differs: base bios, "
                     "candidate ovmf", "boot method differs",
                     "CPU model differs", "kernel command line differs "
                     "(only in candidate: rep=off)", "QEMU command line "
                     "differs (only in base: qemu-system-x86_64; only in "
                     "candidate: qemu-wrapper)"):
            self.assertIn(want, text)
        self.assertEqual(text.count("rep=off"), 1, text)

    def test_qemu_niceness_is_named(self):
        """ab runs QEMU at --nice -20 (the vCPU's wait for a host CPU made
        most of the per-boot spread); a file from a run without it is
        another noise regime, and compare says so."""
        a, b = ab_pair()
        a["config"].pop("nice", None)
        b["config"]["nice"] = -20
        self.assertIn("QEMU niceness differs: base inherited, candidate -20",
                      "\n".join(comparable.check(a, b)[1]))
        a["config"]["nice"] = -20
        self.assertNotIn("niceness", "\n".join(comparable.check(a, b)[1]))

    def test_per_run_paths_are_not_a_difference(self):
        a, b = ab_pair()
        b["config"]["qemu_argv"] = [w.replace("TMPDIR", "/tmp/trapmeter-1-x")
                                    .replace("REPO", "/home/u/trapmeter")
                                    for w in b["config"]["qemu_argv"]]
        self.assertEqual(comparable.check(a, b), ([], []))

    def test_case_lists(self):
        a, b = ab_pair()
        for boot in b["boots"]:
            boot["results"] = [r for r in boot["results"]
                               if r["case"] != "cpuid"]
        self.assertIn("case lists differ (10 cases in base, 9 in candidate",
                      "\n".join(comparable.check(a, b)[1]))

    def test_fingerprint_takes_the_host_fields(self):
        """With a host fingerprint in both files (issue 26) its own check
        judges the host; this one leaves host kernel, CPU and QEMU
        version to it."""
        a, b = ab_pair()
        b["host"]["kernel"] = "6.1.0"
        self.assertTrue(comparable.check(a, b)[1])
        a["host"]["fingerprint"] = {"kernel": {"release": "x"}}
        b["host"]["fingerprint"] = {"kernel": {"release": "y"}}
        self.assertEqual(comparable.check(a, b)[1], [])


class ImportedFromLava(unittest.TestCase):
    """import-lava + compare: two lava-run logs whose guests ran other
    sample counts give no timing verdict (exit 13)."""

    RUN = {"type": "run", "schema": 1, "version": "0.1.0",
           "cmdline": "suite=pio", "samples": 31, "budget_ms": 2000}

    def log(self, samples, scale):
        res = {"type": "result", "suite": "pio", "case": "fwcfg.in8.rep.4096",
               "method": "rep", "bytes": 4096, "samples": samples,
               "iters": 1, "cycles": {"min": 1200 * scale, "p10": 1210 * scale,
                                      "median": 1234 * scale}}
        serial = (["trapmeter 0.1.0 START"] + _tm([self.RUN, res])
                  + ["trapmeter END status=ok"])
        lines = [_log_line("target", s.replace('"', '\\"')) for s in serial]
        lines.append(_log_line("results", {
            "case": "fwcfg_in8_rep_4096", "definition": "trapmeter",
            "extra": {"test_case_id": "fwcfg.in8.rep.4096"}, "level": "3.1",
            "measurement": str(1234 * scale), "result": "pass",
            "units": "cycles"}))
        return "\n".join(lines) + "\n"

    def imported(self, tmp, name, samples):
        logs = []
        for i, scale in enumerate((1, 2, 1)):
            path = os.path.join(tmp, "%s%d.log" % (name, i))
            with open(path, "w") as fh:
                fh.write(self.log(samples, scale))
            logs.append(path)
        out = os.path.join(tmp, name + ".json")
        proc = incli.run(["import-lava", "--json", out] + logs)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return out

    def test_other_samples_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            base = self.imported(tmp, "base", 31)
            cand = self.imported(tmp, "cand", 9)
            same = self.imported(tmp, "same", 31)
            proc = incli.run(["compare", base, cand])
            self.assertEqual(proc.returncode, 13, proc.stdout + proc.stderr)
            self.assertIn("samples per case differ", proc.stdout)
            proc = incli.run(["compare", base, same, "--json",
                              os.path.join(tmp, "v.json")])
            # alike, but not interleaved: timing withheld (13), not refused
            self.assertEqual(proc.returncode, 13, proc.stdout + proc.stderr)
            self.assertNotIn("samples per case differ", proc.stdout)
            with open(os.path.join(tmp, "v.json")) as fh:
                verdicts = json.load(fh)
            self.assertTrue(any("not interleaved" in w
                                for w in verdicts["warnings"]))


if __name__ == "__main__":
    unittest.main()
