"""tests/host/test_timing_tools.py - the runner's side of the timing work:
the fixed plan (tools/trapmeterlib/guest/plan.py), make bench's precision table,
the control/net columns and the per-suite time footer, --firmware auto."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
from trapmeterlib.guest import plan, qemu  # noqa: E402
from trapmeterlib.output import report  # noqa: E402
from trapmeterlib.stats import precision  # noqa: E402
from trapmeterlib.session import runner  # noqa: E402


def doc_with(results, boots=1):
    return {"boots": [{"results": [dict(r) for r in results], "wall_s": 10.0 + i}
                      for i in range(boots)]}


GOOD = [{"suite": "pio", "case": "fwcfg.in8.rep.4096", "iters": 3, "samples": 12},
        {"suite": "exits", "case": "cpuid", "iters": 80, "samples": 5}]


class Plan(unittest.TestCase):
    def test_entries_text_and_suites(self):
        entries = plan.from_document(doc_with(GOOD))
        self.assertEqual(entries, [("pio", "fwcfg.in8.rep.4096", 3, 12),
                                   ("exits", "cpuid", 80, 5)])
        self.assertEqual(plan.text(entries),
                         "pio fwcfg.in8.rep.4096 3 12\nexits cpuid 80 5\n")
        self.assertEqual(plan.suites(entries), ["pio", "exits"])

    def test_first_boot_with_results(self):
        doc = {"boots": [{"results": []}, {"results": GOOD[:1]}]}
        self.assertEqual(len(plan.from_document(doc)), 1)

    def test_named_errors(self):
        cases = {
            "no 'boots' list": {},
            "no boot has results": {"boots": [{"results": []}]},
            "'iters' must be an integer 1..1000000": doc_with(
                [dict(GOOD[0], iters=0)]),
            "'samples' must be an integer 1..10000": doc_with(
                [dict(GOOD[0], samples=True)]),
            "'case' must be a printable word": doc_with(
                [dict(GOOD[0], case="a b")]),
            "listed twice": doc_with(GOOD[:1] * 2),
            "result 0: not an object": {"boots": [{"results": [3]}]},
        }
        for want, doc in cases.items():
            with self.assertRaises(plan.PlanError) as ctx:
                plan.from_document(doc, "F.json")
            self.assertIn(want, str(ctx.exception))
            self.assertIn("--plan F.json", str(ctx.exception))

    def test_load_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.json")
            with open(path, "w") as fh:
                fh.write("[" * 5000)
            with self.assertRaises(plan.PlanError) as ctx:
                plan.load(path)
            self.assertIn("invalid JSON", str(ctx.exception))
            with self.assertRaises(plan.PlanError):
                plan.load(os.path.join(tmp, "missing.json"))
            args = plan.qemu_args(plan.from_document(doc_with(GOOD)), tmp)
            self.assertEqual(args[0], "-fw_cfg")
            self.assertIn("name=opt/trapmeter/plan,file=", args[1])

    def test_deviations(self):
        entries = plan.from_document(doc_with(GOOD))
        got = [dict(GOOD[0]), dict(GOOD[1], samples=6)]
        self.assertEqual(len(plan.deviations(entries, got)), 1)
        self.assertIn("cpuid", plan.deviations(entries, got)[0])


class Precision(unittest.TestCase):
    def test_spread_per_statistic(self):
        rows = []
        for k, median in enumerate((100, 104, 102)):
            rows.append({"case": "a", "samples": 5, "stop": "stable",
                         "cycles": {"min": 90, "p10": 95 + k, "median": median},
                         "cycles_net": {"median": 50 + k}})
        doc = {"boots": [{"results": [r], "wall_s": 9.5} for r in rows]}
        row = precision.case_rows(doc)[0]
        self.assertEqual(row["boots"], 3)
        self.assertAlmostEqual(row["spread"]["cycles.median"], 0.04)
        self.assertAlmostEqual(row["spread"]["cycles.min"], 0.0)
        self.assertAlmostEqual(row["spread"]["cycles_net.median"], 0.04)
        text = precision.render(doc)
        self.assertIn("wall per boot: 9.5, 9.5, 9.5 s", text)
        self.assertIn("4.00 %", text)
        self.assertIsNone(precision.spread([5]))
        self.assertIsNone(precision.spread([-1, 3]))


class Report(unittest.TestCase):
    def test_control_and_net_columns(self):
        res = {"suite": "pio", "case": "a", "method": "single", "bytes": 1,
               "cycles": {"median": 1000}, "cycles_control": {"median": 300},
               "cycles_net": {"median": 700}}
        row = report.result_row(res)
        self.assertEqual(row[3:6], ["1000", "300", "700"])
        # the figure rule: a net below zero is not resolved, never "-5"
        res["cycles_net"] = {"median": -5}
        self.assertEqual(report.result_row(res)[5], "n.r.")
        text = report.render_report({}, {}, [res], [], [])
        self.assertIn("n.r.: not resolved: net estimate at or below zero", text)
        self.assertNotIn("-5", text)
        agg = report.aggregate_results([[dict(res, cycles={"median": 310})],
                                        [dict(res, cycles={"median": 330})]])
        self.assertEqual(agg[0]["cycles_net"], {"median": 20})
        # a median over boots of nets of either sign is ruled as a whole
        agg = report.aggregate_results([[dict(res, cycles={"median": 290})],
                                        [dict(res, cycles={"median": 305})]])
        self.assertEqual(agg[0]["cycles_net"], {"median": None})
        self.assertEqual(report.result_row(agg[0])[5], "n.r.")

    def test_control_none_is_said_not_blank(self):
        why = "only the interrupt itself does what the op does"
        res = [{"suite": "exits", "case": "ipi.%d" % i, "method": "single",
                "cycles": {"median": 1000}, "control_none": why}
               for i in range(5)]
        self.assertEqual(report.result_row(res[0])[4:6], ["n/a", "-"])
        text = report.render_report({}, {}, res, [], [])
        self.assertIn("  control n/a: %s (ipi.0, ipi.1, ipi.2 and 2 more)" % why,
                      text)
        agg = report.aggregate_results([res[:1], res[:1]])
        self.assertEqual(report.result_row(agg[0])[4], "n/a")
        plain = {"suite": "pio", "case": "a", "cycles": {"median": 1}}
        self.assertEqual(report.result_row(plain)[4], "-")
        self.assertNotIn("control n/a", report.render_report({}, {}, [plain], [], []))

    def test_firmware_cross_check(self):
        qboot = {"firmware": "qboot", "firmware_vendor": "qboot"}
        self.assertIsNone(runner.firmware_problem(qboot, "qboot"))
        self.assertIsNone(runner.firmware_problem({"firmware": "uefi"}, "uefi"))
        self.assertIsNone(runner.firmware_problem(None, "bios"))
        said = runner.firmware_problem({"firmware": "bios", "firmware_vendor": ""},
                                        "qboot")
        self.assertEqual(said, "guest names its firmware 'bios' (SMBIOS BIOS "
                         "vendor: none read) but the runner booted 'qboot'")
        self.assertIn("vendor: qboot", runner.firmware_problem(qboot, "bios"))

    def test_time_per_suite(self):
        times = runner.suite_times([("pio", 0.9), ("exits", 12.0)], 12.5)
        self.assertEqual(times, {"boot_s": 0.9, "suite_s": [["pio", 11.1],
                                                           ["exits", 0.5]]})
        line = report.render_timing(times)
        self.assertEqual(line, "  time: to first suite 0.9 s, pio 11.1 s, exits 0.5 s")
        self.assertEqual(runner.suite_times([], 3.0), {})

    def test_firmware_auto(self):
        with tempfile.NamedTemporaryFile() as rom:
            self.assertEqual(qemu.auto_firmware("direct", [], rom.name), "qboot")
            self.assertEqual(qemu.auto_firmware("direct", ["suite=pio,ide"],
                                                rom.name), "qboot")
            self.assertEqual(qemu.auto_firmware("direct", ["suite=virtio"],
                                                rom.name), "bios")
            self.assertEqual(qemu.auto_firmware("direct", ["suite=all"],
                                                rom.name), "bios")
            self.assertEqual(qemu.auto_firmware("direct", ["suite=pio,mmio"],
                                                rom.name), "bios")
            self.assertEqual(qemu.auto_firmware("iso", [], rom.name), "bios")
            self.assertEqual(qemu.auto_firmware("direct", [], rom.name,
                                                pci_devices=True), "bios")
        self.assertEqual(qemu.auto_firmware("direct", [], "/nonexistent"), "bios")


if __name__ == "__main__":
    unittest.main()
