"""tests/host/test_breakdown.py - the cost breakdown's fit and layers
(tools/trapmeterlib/breakdown.py) on sweeps made from known coefficients."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib import breakdown as bd  # noqa: E402

SIZES = (16, 512, 1024, 4096, 16384, 65536)


def rep_in_exits(nbytes, offset=0, width=1):
    """1 select exit + one per 1 KiB chunk, split at page ends (bytes)."""
    exits, addr, left = 1, offset, nbytes
    while left > 0:
        chunk = min(left, 1024, 4096 - addr % 4096)
        exits, addr, left = exits + 1, addr + chunk, left - chunk
    return exits


def row(target, method, nbytes, exits, cost, width=1, handler="user", dir_="in"):
    return {"suite": "pio", "case": f"{target}.{dir_}{8 * width}.{method}.{nbytes}",
            "target": target, "dir": dir_, "width": width, "method": method,
            "bytes": nbytes, "units": nbytes // width, "handler": handler,
            "exits_model": exits, "cycles_net": cost, "cycles": {"min": cost}}


def sweep(fixed=900.0, per_exit=20000.0, per_unit=150.0, noise=None):
    noise = noise or (lambda i: 1.0)
    out = []
    for i, n in enumerate(SIZES):
        single = n + 1
        out.append(row("fwcfg", "single", n, single,
                       (fixed + per_exit * single + per_unit * n) * noise(i)))
        rep = rep_in_exits(n)
        out.append(row("fwcfg", "rep", n, rep,
                       (fixed + per_exit * rep + per_unit * n) * noise(i + 7)))
    return out


def anchors(cpuid=4000.0, kernel=9000.0):
    return [{"suite": "exits", "case": "cpuid", "cycles_net": cpuid},
            {"suite": "exits", "case": "pio.kernel", "cycles_net": kernel}]


class Fit(unittest.TestCase):
    def test_recovers_known_coefficients(self):
        coef = bd.fit_class(bd.sweep_points(sweep())["fwcfg.in"])
        self.assertAlmostEqual(coef["per_exit"], 20000.0, delta=1.0)
        self.assertAlmostEqual(coef["per_unit"], 150.0, delta=0.01)
        self.assertLess(coef["loo_max_rel_error"], 1e-6)
        self.assertFalse(coef["poor"])

    def test_exits_equal_units_cannot_be_separated(self):
        rows = [row("debugcon", m, n, n, 500 + 23000.0 * n, dir_="out")
                for n in SIZES for m in ("single", "rep")]
        coef = bd.fit_class(bd.sweep_points(rows)["debugcon.out"])
        self.assertIsNone(coef["per_unit"])
        self.assertAlmostEqual(coef["per_exit"], 23000.0, delta=1.0)

    def test_one_row_in_a_slow_mode_is_left_out_and_named(self):
        rows = sweep()
        rows[5]["cycles_net"] *= 1.5          # rep 1024 B off by 50 %
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertEqual(coef["dropped"], [rows[5]["case"]])
        self.assertAlmostEqual(coef["per_unit"], 150.0, delta=0.01)
        self.assertFalse(coef["poor"])

    def test_a_sweep_the_model_does_not_fit_is_poor(self):
        # cost quadratic in size: no linear model predicts held-out rows
        rows = sweep()
        for r in rows:
            r["cycles_net"] = 1000.0 + 0.05 * r["bytes"] ** 2
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertTrue(coef["poor"])

    def test_net_figures_as_the_dump_writes_them(self):
        rows = sweep()
        for r in rows:
            r["cycles_net"] = {"min": r["cycles_net"], "p10": 0, "median": 0}
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertAlmostEqual(coef["per_unit"], 150.0, delta=0.01)

    def test_gross_figures_are_used_without_controls(self):
        rows = sweep()
        for r in rows:
            del r["cycles_net"]
        out = bd.boot_breakdown(rows + anchors())
        self.assertFalse(out["fwcfg.in"]["net"])


class Layers(unittest.TestCase):
    def test_components_sum_to_one_access_and_none_twice(self):
        out = bd.boot_breakdown(sweep() + anchors())["fwcfg.in"]
        c = out["components"]
        self.assertAlmostEqual(c["vm_exit"], 4000.0)
        self.assertAlmostEqual(c["kvm_pio"], 5000.0)
        self.assertAlmostEqual(c["qemu_round_trip"], 11000.0, delta=1.0)
        self.assertAlmostEqual(c["device_model"], 150.0, delta=0.01)
        self.assertAlmostEqual(sum(c.values()), out["measured"], delta=1e-6)

    def test_in_kernel_class_has_no_qemu_layers(self):
        rows = [row("pic", m, n, n if m == "single" else math.ceil(n / 1024),
                    300 + 9000.0 * n, handler="kernel") for n in SIZES
                for m in ("single", "rep")]
        out = bd.boot_breakdown(rows + anchors())
        self.assertIsNone(out["pic.in"]["components"])


class AcrossBoots(unittest.TestCase):
    def boots(self, delay=0.0, n=4):
        out = []
        for b in range(n):
            jitter = lambda i, b=b: 1.0 + 0.001 * ((i * 7 + b * 3) % 5)  # noqa: E731
            out.append(bd.boot_breakdown(sweep(per_exit=20000.0 + delay, noise=jitter)
                                         + anchors()))
        return out

    def test_intervals_cover_the_truth(self):
        entry = [e for e in bd.combine(self.boots()) if e["class"] == "fwcfg.in"][0]
        lo, hi = entry["components"]["qemu_round_trip"]["ci"]
        self.assertLess(lo, hi)
        self.assertEqual(entry["boots"], 4)

    def test_a_slower_round_trip_is_attributed_to_it(self):
        moved = bd.attribute(self.boots(), self.boots(delay=1500.0))
        name, delta, ci = moved["fwcfg.in"]
        self.assertEqual(name, "qemu_round_trip")
        self.assertGreater(ci[0], 0)
        self.assertAlmostEqual(delta, 1500.0, delta=150.0)

    def test_no_change_attributes_nothing(self):
        self.assertIsNone(bd.attribute(self.boots(), self.boots())["fwcfg.in"])


if __name__ == "__main__":
    unittest.main()
