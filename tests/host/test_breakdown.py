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


def gross_sweep(fixed=120000.0, per_exit=15000.0, per_unit=150.0, per_iter=8000.0,
                per_string=4000.0, noise=None, splits=True):
    """A software backend's sweep: gross figures with the guest loop in
    them, and REP controls (rep movs emulated per unit) slower than the
    case, so every REP row's net is negative."""
    noise = noise or (lambda i: 1.0)
    out = []
    sizes = [(n, 0) for n in SIZES + (2048,)]
    if splits:
        sizes += [(1024, 3584), (2048, 3584), (4096, 3584), (16, 4088)]
    for i, (n, off) in enumerate(sizes):
        single = n + 1
        r = row("fwcfg", "single", n, single, (fixed + per_exit * single + per_unit * n
                                               + per_iter * n) * noise(2 * i))
        rep = rep_in_exits(n, off)
        q = row("fwcfg", "rep", n, rep, (fixed + per_string + per_exit * rep
                                         + per_unit * n) * noise(2 * i + 1))
        for x, ctl in ((r, per_iter * n), (q, 3000.0 * n)):
            if off:
                x["case"] += ".split"
            x["cycles"] = {"min": x["cycles_net"]}
            x["cycles_net"] = {"min": x["cycles_net"] - ctl - fixed}
        out += [r, q]
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

    def test_edk2_fifo_shapes_and_coalesced_ports_are_not_sweep_rows(self):
        rows = sweep()
        probe = row("fwcfg", "rep", 512, 40, 9e6)
        probe["case"], probe["fifo_shape"] = "fwcfg.fifo.probe_rep.512", "probe_rep"
        rtc = row("rtc", "single", 512, 512, 1e5, handler="coalesced", dir_="out")
        pts = bd.sweep_points(rows + [probe, rtc])
        self.assertNotIn("rtc.out", pts)
        self.assertEqual(len(pts["fwcfg.in"]), len(rows))

    def test_gross_figures_are_used_without_controls(self):
        rows = sweep()
        for r in rows:
            del r["cycles_net"]
        out = bd.boot_breakdown(rows + anchors())
        self.assertFalse(out["fwcfg.in"]["net"])


class SoftwareBackend(unittest.TestCase):
    """Gross figures with the loop term where a REP control is slower than
    its case (tools/trapmeterlib/breakdown.py, "Figures")."""

    def test_net_loops_and_gross_rep_rows_recover_exit_and_unit(self):
        rows = gross_sweep()
        self.assertFalse(bd.boot_uses_net(rows))
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertAlmostEqual(coef["per_exit"], 15000.0, delta=1.0)
        self.assertAlmostEqual(coef["per_unit"], 150.0, delta=0.01)
        # singles are net of their loop and of the op's fixed part: no
        # intercept of their own; the gross REP rows carry theirs
        self.assertAlmostEqual(coef["fixed"] or 0.0, 0.0, delta=5.0)
        self.assertAlmostEqual(coef["rep_fixed"], 124000.0, delta=5.0)
        self.assertIsNone(coef["per_iteration"])
        self.assertIsNone(coef["rep_unit"])
        self.assertFalse(coef["poor"])

    def test_single_loops_net_rep_rows_gross(self):
        rows = gross_sweep()
        pts = bd.sweep_points(rows)["fwcfg.in"]
        want = {r["case"]: r["cycles_net"]["min"] if r["method"] == "single"
                else r["cycles"]["min"] for r in rows}
        self.assertEqual({p["case"]: p["cost"] for p in pts}, want)

    def test_a_loop_whose_control_ran_slower_is_named_not_fitted(self):
        rows = gross_sweep()
        rows[4]["cycles_net"] = {"min": -5.0}           # single.512
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertEqual(coef["no_figure"], [rows[4]["case"]])
        self.assertEqual(coef["rows"], len(rows) - 1)
        self.assertAlmostEqual(coef["per_exit"], 15000.0, delta=1.0)

    def test_without_controls_the_loop_is_a_term(self):
        rows = gross_sweep()
        for r in rows:
            del r["cycles_net"]
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertAlmostEqual(coef["per_iteration"], 8000.0, delta=1.0)
        self.assertAlmostEqual(coef["per_exit"], 15000.0, delta=1.0)
        self.assertAlmostEqual(coef["per_unit"], 150.0, delta=0.01)

    def test_rep_outs_extra_per_unit_is_its_own_term(self):
        # rep outs to QEMU: one exit per unit, and the string instruction
        # restarted per unit costs more than the net loop's exit
        rows = []
        for n in (1, 16, 64, 512, 4096):
            s = row("debugcon", "single", n, n, 9000.0 * n + 500.0, dir_="out")
            s["cycles"] = {"min": 2 * s["cycles_net"]}
            q = row("debugcon", "rep", n, n, 100000.0 + 13000.0 * n, dir_="out")
            q["cycles_net"] = {"min": -1.0}
            rows += [s, q]
        coef = bd.fit_class(bd.sweep_points(rows)["debugcon.out"])
        self.assertAlmostEqual(coef["per_exit"], 9000.0, delta=1.0)
        self.assertAlmostEqual(coef["rep_unit"], 4000.0, delta=1.0)
        self.assertIsNone(coef["per_unit"])

    def test_slower_rows_up_to_a_quarter_are_left_out(self):
        slow = {3, 8, 13, 20}
        rows = gross_sweep(noise=lambda i: 1.4 if i in slow else 1.0)
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertEqual(sorted(coef["dropped"]), sorted(rows[i]["case"] for i in slow))
        self.assertAlmostEqual(coef["per_exit"], 15000.0, delta=1.0)
        self.assertFalse(coef["poor"])

    def test_a_faster_row_is_kept_and_makes_the_fit_poor(self):
        # noise only adds time: a row far below the fit is not trimmed away
        rows = gross_sweep(noise=lambda i: 0.6 if i == 9 else 1.0)
        coef = bd.fit_class(bd.sweep_points(rows)["fwcfg.in"])
        self.assertNotIn(rows[9]["case"], coef["dropped"])
        self.assertTrue(coef["poor"])

    def test_without_split_rows_the_fit_still_predicts(self):
        coef = bd.fit_class(bd.sweep_points(gross_sweep(splits=False))["fwcfg.in"])
        self.assertLess(coef["loo_max_rel_error"], 0.05)

    def test_anchors_stay_net_even_when_negative(self):
        rows = gross_sweep() + [
            {"suite": "exits", "case": "cpuid", "cycles_net": {"min": -300.0},
             "cycles": {"min": 10000.0}},
            {"suite": "exits", "case": "pio.kernel", "cycles_net": {"min": 2500.0},
             "cycles": {"min": 17000.0}}]
        c = bd.boot_breakdown(rows)["fwcfg.in"]["components"]
        self.assertEqual(c["vm_exit"], -300.0)
        self.assertEqual(c["kvm_pio"], 2800.0)
        self.assertAlmostEqual(c["qemu_round_trip"], 15000.0 - 2500.0, delta=1.0)


class Widths(unittest.TestCase):
    def test_port80_widths_give_a_per_byte_term(self):
        rows = []
        for w in (1, 2, 4):
            for n in (16, 64, 512, 4096):
                units = n // w
                for m in ("single", "rep"):
                    cost = 900.0 + 12000.0 * units + 300.0 * n
                    rows.append(row("port80", m, n, units, cost, width=w, dir_="out"))
        out = bd.boot_breakdown(rows + anchors())["port80.out"]
        self.assertIsNone(out["fit"]["per_unit"])
        self.assertAlmostEqual(out["fit"]["per_byte"], 300.0, delta=0.1)
        # one single-unit access of the narrowest width: exit + one byte
        self.assertAlmostEqual(out["measured"], 12300.0, delta=1.0)


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


class Envelope(unittest.TestCase):
    def test_each_case_from_the_boot_where_it_ran_fastest(self):
        fast, slow = gross_sweep(), gross_sweep(noise=lambda i: 1.5)
        mixed_a = [f if i % 2 else s for i, (f, s) in enumerate(zip(fast, slow))]
        mixed_b = [s if i % 2 else f for i, (f, s) in enumerate(zip(fast, slow))]
        env = bd.envelope([mixed_a, mixed_b])
        self.assertEqual(sorted((r["case"], r["cycles"]["min"]) for r in env),
                         sorted((r["case"], r["cycles"]["min"]) for r in fast))

    def test_the_judged_fit_is_the_envelope_s(self):
        fast, slow = gross_sweep(), gross_sweep(noise=lambda i: 1.5 if i % 3 == 0 else 1.0)
        boots = [fast + anchors(), slow + anchors(), slow + anchors()]
        entry = [e for e in bd.breakdown(boots) if e["class"] == "fwcfg.in"][0]
        self.assertFalse(entry["envelope"]["fit"]["poor"])
        self.assertIn("ok (", bd.fit_cell(entry))


class Table(unittest.TestCase):
    def test_one_line_per_class_with_intervals(self):
        boots = [sweep(noise=lambda i, b=b: 1.0 + 0.001 * ((i + b) % 3)) + anchors()
                 for b in range(3)]
        lines = bd.format_table(bd.breakdown(boots), software_backend=True)
        self.assertIn("over 3 boots", lines[0])
        self.assertIn("PVM exit", lines[1])
        rows = [l for l in lines if l.startswith("  fwcfg.in ")]
        self.assertEqual(len(rows), 1)
        self.assertRegex(rows[0], r"fwcfg\.in +[\d,]+\u00b1[\d,]+ .* ok \(\d+\.\d %\)")

    def test_nothing_without_layers(self):
        self.assertEqual(bd.format_table([]), [])


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
