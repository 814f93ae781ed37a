"""tests/acceptance/test_breakdown_shim.py - `make acceptance`: the cost
breakdown (tools/trapmeterlib/stats/breakdown.py) under the delay shim
(build/kvm_delay.so, +N ns after every exit to QEMU).

Two sides of BOOTS boots each on the breakdown's sweep (fw_cfg single and
rep, debugcon, the exits anchors; ROUNDS rounds a boot, the breakdown's
protocol), both with the shim loaded: at 0 ns and at DELAY_NS, booted
alternately (A B B A ...) so that a slower stretch of the host falls on
both sides, not on one.  Then, per QEMU-port class with layers on both sides:
  - "round trip to QEMU" moved by N (the ns the shim really spun per
    delayed exit, in TSC cycles from the dump's TSC kHz) within the interval
    of its change across boots, and attribute() names it;
  - VM exit, KVM PIO emulation and the device model did not move (their
    intervals hold 0): the shim never delays an exit KVM answers, and one
    `rep ins` exit carries many units.
The intervals are Welch's at 5 % over all components of both classes
(Bonferroni), the level attribute() names a component at.
Set TRAPMETER_ACCEPTANCE_OUT=DIR to keep the results files (base.json,
delayed.json, breakdown.txt).  About 6 minutes; skipped where KVM cannot
create a VM.  Six boots a side, not four: on the noisy host of
2026-12-02 a boot in a slow mode (every case 30-50 % high) left 4+4 boots
too few to name the move; the breakdown's intervals use each side's
undisturbed boots of a class (breakdown.undisturbed_boots).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.boot.common import ROOT, RUNNER, need_build, need_kvm

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.stats import attribution, breakdown  # noqa: E402
from trapmeterlib.commands import sensitivity  # noqa: E402

DELAY_NS = 4000
BOOTS = 6
ROUNDS = 4
CASES = "fwcfg.in8.single.*,fwcfg.in8.rep.*,debugcon.*,pio.*,cpuid"
CLASSES = ("fwcfg.in", "debugcon.out")
STILL = ("vm_exit", "kvm_pio", "device_model")


def run_boot(tmp, name, qemu, number):
    out = os.path.join(tmp, "%s-%d.json" % (name, number))
    proc = subprocess.run(
        [RUNNER, "run", "--no-build", "--accel", "kvm", "--rounds", str(ROUNDS),
         "--suite", "pio,exits", "--case", CASES, "--qemu", qemu, "--json", out],
        capture_output=True, text=True, timeout=1500, cwd=ROOT)
    if proc.returncode != 0:
        raise AssertionError(f"{name} boot {number}: run failed ({proc.returncode})\n"
                             f"{proc.stderr[-3000:]}")
    with open(out) as fh:
        return json.load(fh)


def join(doc, more):
    """`more`'s boots appended to `doc` (a side of one-boot runs)."""
    if doc is None:
        return more
    for boot in more["boots"]:
        boot["index"] = len(doc["boots"])
        doc["boots"].append(boot)
    return doc


def alternate(boots):
    """A B B A A B ...: the side of each boot, 2 x boots in all."""
    return [("base", "delayed")[(i + 1) // 2 % 2] for i in range(2 * boots)]


class BreakdownUnderShim(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf", "build/kvm_delay.so")
        keep = os.environ.get("TRAPMETER_ACCEPTANCE_OUT")
        cls.dir = os.path.join(keep, "breakdown") if keep else \
            tempfile.mkdtemp(prefix="tm-accept-bd-")
        os.makedirs(cls.dir, exist_ok=True)
        if not keep:
            cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        qemu = shutil.which("qemu-system-x86_64")
        shim = os.path.join(ROOT, "build", "kvm_delay.so")
        wrappers = {name: sensitivity.wrapper(cls.dir, qemu, shim, ns)
                    for name, ns in (("base", 0), ("delayed", DELAY_NS))}
        docs, reports = {"base": None, "delayed": None}, {}
        for number, name in enumerate(alternate(BOOTS)):
            wrapper, report = wrappers[name]
            docs[name] = join(docs[name], run_boot(cls.dir, name, wrapper, number))
            with open(report) as fh:
                reports[name] = json.load(fh)
        for name, doc in docs.items():
            with open(os.path.join(cls.dir, name + ".json"), "w") as fh:
                json.dump(doc, fh)
        cls.docs, cls.reports = docs, reports
        cls.base = attribution.per_boot(docs["base"])
        cls.cand = attribution.per_boot(docs["delayed"])
        khz = docs["base"]["boots"][0]["run"]["tsc"]["khz"]
        # what the shim really spun per delayed exit (a little over the
        # nominal delay: the spin ends on the first clock read past it)
        rep = reports["delayed"]
        cls.spun_ns = rep["spun_ns"] / (rep["delayed_io"] + rep["delayed_mmio"])
        cls.delay_cycles = cls.spun_ns * khz / 1e6
        # the intervals attribute() judges by: 5 % over all components
        tests = sum(len(m) for m in breakdown.component_moves(cls.base, cls.cand).values())
        cls.moves = breakdown.component_moves(cls.base, cls.cand, breakdown.ALPHA / tests)
        with open(os.path.join(cls.dir, "breakdown.txt"), "w") as fh:
            fh.write(cls.summary())

    @classmethod
    def summary(cls):
        lines = [f"delay {DELAY_NS} ns nominal, {cls.spun_ns:.0f} ns spun per "
                 f"delayed exit = {cls.delay_cycles:.0f} cycles"]
        for name in ("base", "delayed"):
            lines.append(f"[{name}]")
            boots = [b["results"] for b in cls.docs[name]["boots"]
                     if breakdown.has_exits(b.get("results") or [])]
            lines += breakdown.format_table(breakdown.breakdown(boots), True)
        lines += attribution.render(attribution.attribution(
            cls.docs["base"], cls.docs["delayed"]))
        for key, moves in cls.moves.items():
            for comp, (delta, ci) in moves.items():
                lines.append(f"  {key:<14} {comp:<16} {delta:+9.0f} "
                             f"[{ci[0]:+.0f}..{ci[1]:+.0f}]")
        return "\n".join(lines) + "\n"

    def test_the_shim_delayed_exits(self):
        # the report of each side's last boot: the shim saw its exits
        for name, ns in (("base", 0), ("delayed", DELAY_NS)):
            rep = self.reports[name]
            self.assertEqual(rep.get("delay_ns"), ns)
            self.assertGreater(rep.get("delayed_io", 0), 10000)
        self.assertEqual(len(self.base), BOOTS)
        self.assertEqual(len(self.cand), BOOTS)

    def test_round_trip_moves_by_the_delay(self):
        # no subTest: tests/run_tests.py counts only whole tests
        for key in CLASSES:
            delta, ci = self.moves[key]["qemu_round_trip"]
            self.assertTrue(0 < ci[0] <= self.delay_cycles <= ci[1],
                            f"{key}: {delta:+.0f} [{ci[0]:+.0f}..{ci[1]:+.0f}] "
                            f"for {self.delay_cycles:.0f}\n{self.summary()}")

    def test_it_is_named_as_what_moved(self):
        named = breakdown.attribute(self.base, self.cand)
        for key in CLASSES:
            self.assertEqual((named[key] or ("nothing",))[0], "qemu_round_trip",
                             self.summary())

    def test_the_other_components_stay(self):
        for key in CLASSES:
            for comp in STILL:
                if comp not in self.moves[key]:
                    continue            # no device-model term in this class
                _delta, ci = self.moves[key][comp]
                self.assertTrue(ci[0] <= 0.0 <= ci[1],
                                f"{key} {comp} moved\n{self.summary()}")

if __name__ == "__main__":
    unittest.main()
