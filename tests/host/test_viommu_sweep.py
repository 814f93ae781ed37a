"""Unit tests of the --viommu sweep (commands/viommu_sweep.py) and the dma
face (guest/dma.py face_lines, output/summary.py, output/html.py), no
QEMU: a sweep boots each setting --repeat times and marks every boot with
its setting, stops at a status of 2-7, refuses suites other than dma,
--plan, --virtio-matrix and intel without q35 (exit status 2, nothing
booted); results.json readers refuse a sweep's mixed boots; the summary
of a dma run shows each PCI case by mode (five columns in a sweep, mode
none from the off boot), translated - pass-through with its band or the
reason it is not resolved, and one line for the exit classes not run."""

import os
import subprocess
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.commands import run as run_cmd, viommu_sweep  # noqa: E402
from trapmeterlib.commands.common import OptionError  # noqa: E402
from trapmeterlib.output import html, logfile, progress, resultsfile, summary  # noqa: E402
from trapmeterlib.session.record import RunRecord  # noqa: E402
from trapmeterlib.session.runner import Console  # noqa: E402
from trapmeterlib.values import errors  # noqa: E402

SUFFIX = {"none": "", "off": ".vtd_off", "pt": ".vtd_pt", "4k": "", "2m": ".vtd_2m"}


def row(base, mode, net, spread=1000, target="piix-ide.bm"):
    """A dma result: net cycles per op over a RAM control of 1,000, its
    single ops spread +-spread."""
    return {"suite": "dma", "case": base + SUFFIX[mode], "iommu_mode": mode,
            "target": target, "cycles": {"median": net + 1000,
                                         "p10": net + 1000 - spread,
                                         "p90": net + 1000 + spread},
            "cycles_control": {"median": 1000}}


def boot_rows(setting, nets, shift=0):
    """One boot's rows: bm.read.4096 and bm.write.512 in the setting's
    modes (each net moved by shift), fw_cfg's control once."""
    modes = ("none",) if setting == "off" else ("off", "pt", "4k", "2m")
    out = [row("fwdma.read.16", modes[0], 30000, target="fwcfg.dma")]
    for base in ("bm.read.4096", "bm.write.512"):
        out += [row(base, m, nets[base][m] + shift) for m in modes]
    return out


NETS = {"bm.read.4096": {"none": 500000, "off": 510000, "pt": 520000,
                         "4k": 600000, "2m": 560000},
        # translated below pass-through: no cost, not resolved
        "bm.write.512": {"none": 400000, "off": 401000, "pt": 450000,
                         "4k": 440000, "2m": 445000}}


def doc_of(*settings, repeat=3):
    """A results document: each setting booted `repeat` times, the nets
    of its boots moved by -1,000, 0, +1,000 (and so on)."""
    boots = [{"index": i, "viommu": s,
              "results": boot_rows(s, NETS, 1000 * (i % repeat - repeat // 2)),
              "checks": [], "skips": []}
             for i, s in enumerate(x for x in settings for _ in range(repeat))]
    return {"tool": "trapmeter", "schema": 3, "boots": boots,
            "host": {"accel": "kvm"}, "status": "ok"}


def table_lines(lines):
    """{case: cells} of the face's table (its legend ends it)."""
    start = next(i for i, l in enumerate(lines) if l.startswith("  case"))
    out = {}
    for line in lines[start:]:
        if not line.startswith("  ") or line.split()[0].endswith(":"):
            break
        out[line.split()[0]] = line.split()[1:]
    return out


class Face(unittest.TestCase):
    def test_sweep_has_five_mode_columns_and_none(self):
        lines = summary.run_summary(doc_of("off", "intel"), "r.json")
        table = table_lines(lines)
        self.assertEqual(table["case"], ["none", "off", "pt", "4k", "2m", "4k-pt",
                                         "off-none", "4k-none"])
        self.assertEqual(table["bm.read.4096"][:5],
                         ["500k", "510k", "520k", "600k", "560k"])
        self.assertEqual(" ".join(table["bm.read.4096"][5:]),
                         "80k [76k..84k] 10k [6.5k..14k] 100k [96k..104k]")
        self.assertNotIn("fwdma.read.16", table)     # not a PCI case

    def test_not_resolved_says_why(self):
        lines = summary.run_summary(doc_of("off", "intel"), "r.json")
        self.assertEqual(table_lines(lines)["bm.write.512"][5], "n.r.")
        text = "\n".join(lines)
        self.assertIn("not resolved: estimate at or below zero (1)", text)
        self.assertTrue(all(len(l) <= summary.WIDTH for l in lines), text)

    def test_exit_classes_collapse_to_one_line(self):
        lines = summary.run_summary(doc_of("off", "intel"), "r.json")
        text = "\n".join(lines)
        self.assertNotIn("no case of it ran; it is in suite", text)
        self.assertNotIn("cost of one exit per handler class", text)
        self.assertIn("not run here (no case of it ran): QEMU port", text)
        self.assertIn("(suite mmio)", text)
        self.assertLessEqual(len(lines), 25, text)

    def test_one_boot_with_a_unit_names_the_sweep(self):
        lines = summary.run_summary(doc_of("intel"), "r.json")
        self.assertEqual(table_lines(lines)["case"], ["off", "pt", "4k", "2m", "4k-pt"])
        self.assertIn("--viommu off,intel", "\n".join(lines))

    def test_no_unit_says_the_translation_is_not_resolved(self):
        lines = summary.run_summary(doc_of("off"), "r.json")
        self.assertEqual(table_lines(lines)["case"], ["none"])
        self.assertIn("translated - pass-through: not resolved (no IOMMU mode "
                      "ran: --machine q35 --viommu intel)", "\n".join(lines))

    def test_a_new_pci_device_joins_the_table(self):
        doc = doc_of("intel")
        doc["boots"][0]["results"].append(row("vnet.tx.64", "4k", 9000,
                                              target="virtio-net"))
        self.assertIn("vnet.tx.64", table_lines(summary.run_summary(doc)))

    def test_html_has_the_table(self):
        page = html.run_report(doc_of("off", "intel"), "r.json")
        self.assertIn('id="table-dma"', page)
        self.assertIn("<th>off-none</th>", page)


def words_of(**kw):
    """`run` words of a sweep; kw: an option name (underscores) and its
    value (True for a flag, None to leave the option out)."""
    base = dict(viommu="off,intel", machine="q35", log="serial.log",
                json=os.devnull, repeat="2")
    base.update(kw)
    words = []
    for name, value in base.items():
        option = "--" + name.replace("_", "-")
        if value is True:
            words.append(option)
        elif value is not None:
            words += [option, value]
    return words


class Sweep(unittest.TestCase):
    def sweep(self, codes=None, **kw):
        """Run the sweep with fake boots; returns (record, status, the
        (setting, log, no_build) of each plan the runner got)."""
        plan = run_cmd.plan_from_words(words_of(**kw), say=lambda _t: None)
        record, seen = RunRecord(plan), []

        def fake_run_plan(one, rec, _con):
            setting = one.viommu[0]
            seen.append((one.viommu, one.log, one.no_build))
            rec.config["qemu_argv"] = ["qemu", setting]
            for i in range(one.repeat):
                rec.boots.append({"index": i, "exit_code": (codes or {}).get(
                    setting, 0), "results": boot_rows(setting, NETS)})
            return (codes or {}).get(setting, 0), []

        con = Console(status=progress.Progress(terminal=False))
        with mock.patch.object(viommu_sweep, "run_plan", fake_run_plan):
            code = viommu_sweep.run(plan, record, con, lambda _p: None)
        return record, code, seen, plan

    def test_each_setting_repeat_boots_in_order(self):
        record, code, seen, plan = self.sweep()
        self.assertEqual(code, 0)
        self.assertEqual(seen, [(("off",), "serial.off.log", False),
                                (("intel",), "serial.intel.log", True)])
        self.assertEqual([(b["index"], b["viommu"]) for b in record.boots],
                         [(0, "off"), (1, "off"), (2, "intel"), (3, "intel")])
        self.assertEqual(record.boots[2]["qemu_argv"], ["qemu", "intel"])
        self.assertEqual(record.config["viommu_sweep"], ["off", "intel"])
        self.assertEqual(record.summary["viommu_sweep"][1]["boots"], [2, 3])
        self.assertEqual(plan.viommu, ("off", "intel"))
        self.assertEqual(plan.suite, "dma")

    def test_a_failed_setting_stops_the_sweep(self):
        record, code, seen, _plan = self.sweep(codes={"off": 4})
        self.assertEqual(code, 4)
        self.assertEqual(len(seen), 1)
        self.assertEqual(record.summary["viommu_sweep"][0]["status"], "timeout")

    def test_a_check_failure_goes_on(self):
        _record, code, seen, _plan = self.sweep(codes={"off": 1})
        self.assertEqual((code, len(seen)), (1, 2))

    def test_nonsense_is_refused_before_a_boot(self):
        for kw, words in (({"suite": "dma,exits"}, "sweeps suite dma only"),
                          ({"plan": "p.json"}, "--plan"),
                          ({"virtio_matrix": True}, "--virtio-matrix"),
                          ({"machine": "pc"}, "needs --machine q35")):
            with self.assertRaises(OptionError) as ctx:
                self.sweep(**kw)
            self.assertIn(words, ctx.exception.message)

    def test_setting_log(self):
        self.assertEqual(logfile.setting_path("d/run.log", "off"), "d/run.off.log")
        self.assertEqual(logfile.setting_path("d.x/run", "off"), "d.x/run.off")
        self.assertIsNone(logfile.setting_path(None, "off"))
        self.assertEqual(logfile.boot_path(logfile.setting_path("r.log", "intel"),
                                           1, 2), "r.intel.boot1.log")

    def test_readers_refuse_a_sweep(self):
        with self.assertRaises(errors.UnusableInput) as ctx:
            resultsfile.verify_document(doc_of("off", "intel"))
        self.assertIn("--viommu sweep", str(ctx.exception))


class Cli(unittest.TestCase):
    def test_exit_status_2_and_no_traceback(self):
        for words, text in ((["--viommu", "off,intel"], "needs --machine q35"),
                            (["--viommu", "off,off"], "names a setting twice"),
                            (["--viommu", "off,amd"], "'amd' is not a setting"),
                            (["--viommu", "off,intel", "--machine", "q35",
                              "--suite", "pio"], "sweeps suite dma only")):
            proc = subprocess.run(
                [sys.executable, os.path.join(REPO, "tools", "trapmeter"), "run",
                 "--no-build", "--accel", "tcg", "--json", os.devnull] + words,
                capture_output=True, text=True, timeout=60, check=False)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn(text, proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
