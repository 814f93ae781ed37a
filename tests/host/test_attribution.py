"""tests/host/test_attribution.py - compare/ab name the breakdown component
that moved (tools/trapmeterlib/stats/attribution.py), on results docs made from
known coefficients."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.output import breakdown_text  # noqa: E402
from trapmeterlib.stats import attribution, tdist  # noqa: E402
from trapmeterlib.commands import compare as compare_cmd  # noqa: E402
from tests.host.test_breakdown import anchors, sweep  # noqa: E402


def doc(n=4, round_trip=0.0, kernel=9000.0, with_exits=True, counted=None):
    """A side of n boots; exits counted in every boot, or (ab's
    --count-boots) in the first `counted` only."""
    boots = []
    for b in range(n):
        jitter = lambda i, b=b: 1.0 + 0.002 * ((i * 5 + b * 3) % 7)  # noqa: E731
        results = sweep(per_exit=20000.0 + round_trip + (kernel - 9000.0),
                        noise=jitter)
        results += anchors(kernel=kernel + 20.0 * (b % 3))
        for r in results:
            if r["suite"] == "pio" and with_exits and (counted is None
                                                       or b < counted):
                r["exits_measured"] = r["exits_model"]
        boots.append({"index": b, "results": results})
    return {"schema": 2, "boots": boots}


class Attribution(unittest.TestCase):
    def test_a_slower_round_trip_is_named(self):
        attr = attribution.attribution(doc(), doc(round_trip=2445.0))
        entry = attr["fwcfg.in"]
        self.assertEqual(entry["moved"], "qemu_round_trip")
        comp = entry["components"]["qemu_round_trip"]
        self.assertAlmostEqual(comp["delta"], 2445.0, delta=100.0)
        lo, hi = entry["components"]["device_model"]["ci"]
        self.assertLessEqual(lo, 0.0)
        self.assertGreaterEqual(hi, 0.0)

    def test_ab_s_default_session_attributes_with_one_counted_boot(self):
        # ab --count-boots 1: the first boot of each side counts exits;
        # the others take its exits per op, so every boot has a breakdown
        self.assertEqual(len(attribution.per_boot(doc(counted=1))), 4)
        attr = attribution.attribution(doc(counted=1),
                                       doc(round_trip=2445.0, counted=1))
        self.assertEqual(attr["fwcfg.in"]["moved"], "qemu_round_trip")
        # no boot counted: no exits known, nothing to attribute (TCG)
        self.assertEqual(attribution.per_boot(doc(counted=0)), [])

    def test_the_anchors_alone_name_a_slower_round_trip(self):
        # ab's sentinel list has no size sweep: cpuid, pio.kernel and
        # pio.user alone lay out one access to a QEMU port
        def side(round_trip):
            boots = []
            for b in range(4):
                j = 20.0 * ((b * 3) % 5)
                boots.append({"results": [
                    {"suite": "pio", "case": "fwcfg.in8.single.512",
                     "exits_measured": 513.0, "cycles": {"min": 1e7}},
                    {"suite": "exits", "case": "cpuid", "cycles_net": 300.0 + j},
                    {"suite": "exits", "case": "pio.kernel", "cycles_net": 1500.0 + j},
                    {"suite": "exits", "case": "pio.user",
                     "cycles_net": 24000.0 + round_trip + j}]})
            return {"boots": boots}
        attr = attribution.attribution(side(0.0), side(9000.0))
        entry = attr[attribution.ANCHOR_CLASS]
        self.assertEqual(entry["moved"], "qemu_round_trip")
        self.assertAlmostEqual(entry["delta"], 9000.0, delta=1.0)
        self.assertIsNone(attribution.attribution(side(0.0), side(0.0))
                          [attribution.ANCHOR_CLASS]["moved"])

    def test_a_sure_but_tiny_move_is_not_named(self):
        # as compare's verdict: significant and beyond 0.5 % of the total
        def boots(shift):
            comps = lambda i: {"vm_exit": 300.0 + i % 3, "device_model": None,  # noqa: E731
                               "kvm_pio": 1200.0 + shift + (i % 2),
                               "qemu_round_trip": 24000.0 + 7 * (i % 3)}
            return [{"x.out": {"measured": 25500.0, "components": comps(i)}}
                    for i in range(12)]
        self.assertIsNone(attribution.attribute(boots(0.0), boots(16.0))["x.out"])
        self.assertEqual(attribution.attribute(boots(0.0), boots(200.0))["x.out"][0], "kvm_pio")
        # the same tiny move is sure: its interval excludes 0
        lo, _hi = attribution.component_moves(boots(0.0), boots(16.0))["x.out"]["kvm_pio"][1]
        self.assertGreater(lo, 0.0)

    def test_a_slower_in_kernel_port_is_kvm_pio_not_the_round_trip(self):
        # every exit slower by 1500 through KVM: kvm_pio moves, the rest not
        attr = attribution.attribution(doc(), doc(kernel=10500.0))
        self.assertEqual(attr["fwcfg.in"]["moved"], "kvm_pio")
        lo, hi = attr["fwcfg.in"]["components"]["qemu_round_trip"]["ci"]
        self.assertLessEqual(lo, 0.0)
        self.assertGreaterEqual(hi, 0.0)

    def test_the_same_twice_moves_nothing(self):
        attr = attribution.attribution(doc(), doc())
        self.assertIsNone(attr["fwcfg.in"]["moved"])
        self.assertIn("  fwcfg.in       no component moved", breakdown_text.render_attribution(attr))

    def test_the_lines_compare_prints(self):
        text = compare_cmd.attribution_text(doc(), doc(round_trip=2445.0))
        lines = text.splitlines()
        self.assertEqual(lines[0], breakdown_text.TITLE)
        self.assertRegex(text, r"fwcfg\.in +round trip to QEMU \+24\d\d \[\+\d+\.\.\+\d+\]")

    def test_one_boot_per_side_or_no_exits_prints_nothing(self):
        self.assertEqual(compare_cmd.attribution_text(doc(n=1), doc(n=1)), "")
        self.assertEqual(compare_cmd.attribution_text(
            doc(with_exits=False), doc(with_exits=False)), "")
        self.assertEqual(attribution.attribution({"boots": [{"results": None}]}, {}), {})


class Level(unittest.TestCase):
    def boots(self, shift):
        comps = lambda v: {"vm_exit": v, "kvm_pio": 50.0 + v % 2,  # noqa: E731
                           "qemu_round_trip": 7.0 + v % 3, "device_model": 1.0}
        return [{"x.in": {"components": comps(100.0 + i + shift),
                          "measured": 120.0 + i + shift}} for i in range(4)]

    def test_t_quantiles(self):
        self.assertAlmostEqual(tdist.t_quantile(0.05, 2), 4.303, places=2)
        self.assertAlmostEqual(tdist.t_quantile(0.0025, 2), 19.96, places=1)
        self.assertAlmostEqual(tdist.t_quantile(0.01, 6), 3.707, places=2)

    def test_no_class_total_names_nothing(self):
        """A class whose single access is never above zero gives no scale
        to the 0.5 % floor: nothing is named (the floor was 0 before)."""
        boots = [dict(b, **{"x.in": dict(b["x.in"], measured=-1.0)})
                 for b in self.boots(0.0)]
        moved = [dict(b, **{"x.in": dict(b["x.in"], measured=-1.0)})
                 for b in self.boots(8.0)]
        self.assertIsNone(attribution.attribute(boots, moved)["x.in"])

    def test_a_move_only_plain_95_percent_sees_is_not_named(self):
        moves = attribution.component_moves(self.boots(0.0), self.boots(3.0))
        lo, _ = moves["x.in"]["vm_exit"][1]
        self.assertGreater(lo, 0.0)                  # plain 95 %: excludes 0
        self.assertIsNone(attribution.attribute(self.boots(0.0), self.boots(3.0))["x.in"])
        self.assertEqual(attribution.attribute(self.boots(0.0), self.boots(8.0))["x.in"][0],
                         "vm_exit")


if __name__ == "__main__":
    unittest.main()
