"""tests/host/test_dmafit.py - the breakdown's "DMA translation" component
(tools/trapmeterlib/guest/dmafit.py) on fake suite dma results made from
known coefficients: translated (4k) - pass-through = PER_OP + PER_PAGE *
pages, resolved with its t-interval over three boots or more, not
resolved with the reason when the fit cannot give the figure (one boot
among them), never a cost below zero."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.guest import dma  # noqa: E402
from trapmeterlib.output import breakdown_text  # noqa: E402
from trapmeterlib.values import figure as fig  # noqa: E402
from trapmeterlib.stats import breakdown
from trapmeterlib.guest import dmafit  # noqa: E402
from trapmeterlib.commands.common import SUITE_FITS  # noqa: E402


def runner_breakdown(lists):
    """The breakdown as the runner computes it: with the suites' fits."""
    return breakdown.breakdown(lists, SUITE_FITS)


def runner_applies(results):
    return breakdown.applies(results, SUITE_FITS)

PER_OP, PER_PAGE, BASE = 5000.0, 300.0, 900000.0
# (case, bytes, buffer offset in its page, PRDs): pages 2, 2, 17, 3, 17
CASES = (("bm.read.512", 512, 0, 1), ("bm.read.4096", 4096, 0, 1),
         ("bm.read.65536", 65536, 0, 1), ("bm.read.1024.cross", 1024, 3584, 1),
         ("bm.write.65536.prd512", 65536, 0, 128))
SUFFIX = {"pt": ".vtd_pt", "4k": "", "2m": ".vtd_2m"}


def row(case, mode, net, nbytes=4096, off=0, prds=1, half=None, target="piix-ide.bm"):
    """One dma result: net median `net`; `half`: its p10..p90 spans net -+ half."""
    r = {"suite": "dma", "case": case + SUFFIX.get(mode, ""), "iommu_mode": mode,
         "target": target, "bytes": nbytes, "buf_offset": off, "prds": prds,
         "cycles": {"median": net + 100}, "cycles_net": {"median": net},
         "cycles_control": {"median": 100}, "exits_measured": 16.3}
    if half is not None:
        r["cycles"].update(p10=net + 100 - half, p90=net + 100 + half)
    return r


def boot(per_op=PER_OP, per_page=PER_PAGE, half=None, wobble=0.0, cases=CASES):
    """One boot's rows: every case pass-through and translated."""
    out = []
    for i, (name, nbytes, off, prds) in enumerate(cases):
        pages = dmafit.pages_of({"bytes": nbytes, "buf_offset": off, "prds": prds})
        extra = per_op + per_page * pages + (wobble if i % 2 else -wobble)
        out.append(row(name, "pt", BASE, nbytes, off, prds, half))
        out.append(row(name, "4k", BASE + extra, nbytes, off, prds, half))
    return out


def miss_rows(miss, inval, hit, half=None):
    return [row("bm.read.4096.miss", "4k", miss, half=half),
            row("vtd.iotlb_inval", "4k", inval, half=half, target="vtd")]


def entry(boots):
    (one,) = [e for e in runner_breakdown(boots) if e["class"] == dmafit.CLASS]
    return one


class Pages(unittest.TestCase):
    def test_buffer_pages_and_the_prd_table(self):
        got = [dmafit.pages_of({"bytes": b, "buf_offset": o, "prds": p})
               for _n, b, o, p in CASES]
        self.assertEqual(got, [2, 2, 17, 3, 17])

    def test_untrusted_fields_give_no_page_count(self):
        for bad in ({"bytes": "4096", "prds": 1}, {"bytes": 4096, "prds": -1},
                    {"bytes": 4096}, {"bytes": True, "prds": 1}):
            self.assertIsNone(dmafit.pages_of(bad))


def three(spread=2.0, **kw):
    """Three boots whose per-page cost moves by -spread, 0, +spread."""
    per_page = kw.pop("per_page", PER_PAGE)
    return [boot(per_page=per_page + d, **kw) for d in (-spread, 0.0, spread)]


class Fit(unittest.TestCase):
    def test_one_boot_is_not_resolved(self):
        """Within one boot the cases ran one after another: the host's
        drift between them is in no band, so one boot gives no figure."""
        f = entry([boot(half=200.0)])["fit"]
        for name in ("per_op", "per_page"):
            self.assertIsNone(f[name])
            self.assertEqual(f[name + "_reason"], dma.FEW_BOOTS)

    def test_two_boots_are_not_resolved_three_are(self):
        """The interval needs dma.MIN_BOOTS (3) boots: two give none."""
        boots = three(spread=2.0)
        f = entry(boots[:2])["fit"]
        for name in ("per_op", "per_page"):
            self.assertIsNone(f[name])
            self.assertEqual(f[name + "_reason"], dma.FEW_BOOTS)
        self.assertIsNotNone(entry(boots)["fit"]["per_page"])

    def test_resolved_recovers_the_coefficients_inside_their_interval(self):
        e = entry(three())
        per_op, per_page = fig.get(e["fit"], "per_op"), fig.get(e["fit"], "per_page")
        self.assertAlmostEqual(per_op.value, PER_OP, delta=1e-6 * PER_OP)
        self.assertAlmostEqual(per_page.value, PER_PAGE, delta=1e-6 * PER_PAGE)
        lo, hi = per_page.interval
        self.assertTrue(0 < lo < PER_PAGE < hi)
        self.assertEqual(e["fit"]["points"], len(CASES))
        self.assertEqual(e["fit"]["pages"], [2, 3, 17])

    def test_an_interval_holding_zero_is_not_resolved(self):
        f = entry(three(spread=400.0))["fit"]
        self.assertIsNone(f["per_page"])
        self.assertEqual(f["per_page_reason"], fig.HOLDS_ZERO)

    def test_translation_cheaper_than_pass_through_is_not_resolved(self):
        f = entry(three(per_op=-8000.0, per_page=-10.0))["fit"]
        for name in ("per_op", "per_page"):
            self.assertIsNone(f[name])
            self.assertEqual(f[name + "_reason"], fig.BELOW_ZERO)
        self.assertIsNone(entry(three(per_op=-8000.0))["measured"])

    def test_without_the_modes_it_says_what_it_needs(self):
        f = entry([boot(cases=CASES[:2])])["fit"]
        self.assertIsNone(f["per_op"])
        self.assertIn("fewer than", f["per_op_reason"])
        self.assertEqual(runner_breakdown([[r for r in boot()
                                               if r["iommu_mode"] == "4k"]]), [])

    def test_one_page_count_cannot_give_a_slope(self):
        f = entry([boot(cases=CASES[:2] + (("bm.write.512", 512, 0, 1),))])["fit"]
        self.assertEqual(f["per_page_reason"], dmafit.ONE_PAGE_COUNT)

    def test_iotlb_miss_less_inval_less_hit(self):
        hit = BASE + PER_OP + 2 * PER_PAGE
        boots = [boot() + miss_rows(hit + 300.0 + 2000.0 + d, 300.0, hit)
                 for d in (-10.0, 0.0, 10.0)]
        miss = fig.get(entry(boots)["fit"], "iotlb_miss")
        self.assertAlmostEqual(miss.value, 2000.0)
        self.assertTrue(0 < miss.interval[0] < 2000.0 < miss.interval[1])
        boots = [boot() + miss_rows(hit + 300.0 - 500.0 + d, 300.0, hit)
                 for d in (-10.0, 0.0, 10.0)]
        self.assertEqual(entry(boots)["fit"]["iotlb_miss_reason"], fig.BELOW_ZERO)

    def test_tcg_has_no_translation_component(self):
        rows = [dict(r, exits_measured=None) for r in boot()]
        self.assertFalse(runner_applies(rows))
        self.assertTrue(runner_applies(boot()))


class AcrossBoots(unittest.TestCase):
    def test_the_t_interval_of_the_boots_coefficients(self):
        boots = [boot(per_page=PER_PAGE + d, wobble=50.0) for d in (-20.0, 0.0, 20.0)]
        per_page = fig.get(entry(boots)["fit"], "per_page")
        self.assertAlmostEqual(per_page.value, PER_PAGE, delta=0.05 * PER_PAGE)
        lo, hi = per_page.interval
        self.assertTrue(0 < lo < PER_PAGE < hi < 2 * PER_PAGE)
        self.assertEqual(entry(boots)["fit"]["interval"], "t95 over boots")

    def test_boots_of_either_sign_are_not_resolved(self):
        boots = [boot(per_op=v) for v in (-6000.0, 6000.0, 500.0)]
        self.assertEqual(entry(boots)["fit"]["per_op_reason"], fig.HOLDS_ZERO)


class Text(unittest.TestCase):
    def test_the_line_shows_figures_and_reasons(self):
        lines = breakdown_text.format_table(runner_breakdown(three()))
        text = "\n".join(lines)
        self.assertIn("DMA translation", text)
        self.assertIn("95 % interval over 3 boots", text)
        self.assertIn("per op 5,000 [", text)
        self.assertIn("per page touched 300 [", text)
        self.assertIn("IOTLB miss - hit: not resolved (needs bm.read.4096.miss", text)
        lines = breakdown_text.format_table(runner_breakdown(three(spread=400.0)))
        self.assertIn("per page touched not resolved (%s)" % fig.HOLDS_ZERO,
                      "\n".join(lines))
        lines = breakdown_text.format_table(runner_breakdown([boot()]))
        self.assertIn("per op not resolved (%s)" % dma.FEW_BOOTS, "\n".join(lines))

if __name__ == "__main__":
    unittest.main()
