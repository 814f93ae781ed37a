#!/usr/bin/env python3
"""The figure rule (tools/trapmeterlib/values/figure.py): a cost is
measured or model above zero, else not resolved with the reason; the one
formatter never prints a number for a figure that is not resolved, labels
a model figure, and results.json's forms round-trip."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.output import resultsfile  # noqa: E402
from trapmeterlib.stats import breakdown, compare  # noqa: E402
from trapmeterlib.values import figure as fig  # noqa: E402
from trapmeterlib.commands.common import SUITE_FITS  # noqa: E402


def runner_breakdown(lists):
    """The breakdown as the runner computes it: with the suites' fits."""
    return breakdown.breakdown(lists, SUITE_FITS)


def runner_applies(results):
    return breakdown.applies(results, SUITE_FITS)


class Rule(unittest.TestCase):
    def test_a_cost_above_zero_is_measured_with_its_interval(self):
        f = fig.cost(23121.0, [22900.0, 23342.0])
        self.assertEqual(f.kind, fig.MEASURED)
        self.assertEqual(f.value, 23121.0)
        self.assertEqual(f.interval, [22900.0, 23342.0])
        self.assertTrue(f.resolved)

    def test_a_cost_below_zero_is_not_resolved_and_has_no_value(self):
        for value in (-943.0, -0.5, 0.0, 0):
            f = fig.cost(value)
            self.assertEqual(f.kind, fig.NOT_RESOLVED, value)
            self.assertIsNone(f.value)
            self.assertEqual(f.reason, fig.BELOW_ZERO)

    def test_an_interval_holding_zero_is_not_resolved(self):
        f = fig.cost(120.0, [-40.0, 280.0])
        self.assertEqual((f.kind, f.value, f.reason),
                         (fig.NOT_RESOLVED, None, fig.HOLDS_ZERO))
        # an interval that ends at zero holds it too
        self.assertFalse(fig.cost(120.0, [0.0, 240.0]).resolved)

    def test_a_model_cost_keeps_the_rule_and_its_kind(self):
        self.assertEqual(fig.cost(44.7, kind=fig.MODEL).kind, fig.MODEL)
        self.assertFalse(fig.cost(-3.0, kind=fig.MODEL).resolved)

    def test_no_value_gives_the_callers_reason(self):
        self.assertEqual(fig.cost(None, reason="no control").reason,
                         "no control")
        self.assertEqual(fig.cost(None).reason, fig.NO_DATA)
        self.assertFalse(fig.cost(float("nan")).resolved)

    def test_bad_figures_are_refused(self):
        with self.assertRaises(ValueError):
            fig.not_resolved("")
        with self.assertRaises(ValueError):
            fig.measured(None)
        with self.assertRaises(ValueError):
            fig.measured(1.0, [2.0, 1.0])
        with self.assertRaises(ValueError):
            fig.cost(1.0, kind="guess")


class Text(unittest.TestCase):
    def test_measured_with_and_without_interval(self):
        self.assertEqual(fig.text(fig.measured(23121.4)), "23,121")
        self.assertEqual(fig.text(fig.measured(23121.0, [22969.0, 23273.0])),
                         "23,121\u00b1152")

    def test_model_is_labelled_unless_its_column_says_so(self):
        self.assertEqual(fig.text(fig.model(1250.0)), "1,250 (model)")
        self.assertEqual(fig.text(fig.model(1250.0), label=False), "1,250")

    def test_not_resolved_never_shows_a_number(self):
        f = fig.cost(-943.0)
        self.assertEqual(fig.text(f), fig.SHORT)
        self.assertEqual(fig.text(f, short=False),
                         "not resolved (%s)" % fig.BELOW_ZERO)
        self.assertNotIn("943", fig.text(f, short=False))

    def test_the_caller_formats_the_number(self):
        self.assertEqual(fig.text(fig.measured(0.456), "{:.2f}".format),
                         "0.46")


class Percent(unittest.TestCase):
    """percent_text: the one formatter of a share or a relative change."""

    def test_a_share_and_its_interval(self):
        self.assertEqual(fig.percent_text(fig.measured(0.125)), "12.5 %")
        self.assertEqual(fig.percent_text(fig.measured(0.12, [0.1, 0.14]),
                                          places=0), "12 % (10-14)")

    def test_a_change_is_signed_and_names_its_level(self):
        f = fig.measured(0.024, [0.011, 0.036])
        self.assertEqual(fig.percent_text(f, signed=True),
                         "+2.4 % [+1.1..+3.6]")
        self.assertEqual(fig.percent_text(f, signed=True, level=0.95),
                         "+2.4 % [+1.1..+3.6, 95 % interval]")
        self.assertEqual(fig.percent_text(fig.measured(-0.05), signed=True,
                                          places=0), "-5 %")

    def test_model_labelled_and_not_resolved_without_a_number(self):
        self.assertEqual(fig.percent_text(fig.model(0.03)), "3.0 % (model)")
        f = fig.not_resolved("too few runs")
        self.assertEqual(fig.percent_text(f), fig.SHORT)
        self.assertEqual(fig.percent_text(f, short=False),
                         "not resolved (too few runs)")


class Json(unittest.TestCase):
    def test_round_trip(self):
        """Every kind (and a figure that does not exist) reads back as
        written, through JSON text."""
        for f in (fig.measured(5.0, [4.0, 6.0]), fig.measured(7.0),
                  fig.model(3.5), fig.not_resolved(fig.HOLDS_ZERO),
                  fig.cost(-1.0), fig.cost(None, reason="not in every boot")):
            text = json.dumps(fig.to_json(f))
            self.assertEqual(fig.from_json(json.loads(text)), f)
        self.assertEqual(fig.to_json(fig.cost(-1.0))["cycles"], None)
        absent = json.loads(json.dumps(fig.to_json(None, "no such layer")))
        self.assertEqual(absent["reason"], "no such layer")
        self.assertIsNone(fig.from_json(absent))
        with self.assertRaises(ValueError):
            fig.to_json(None)
        for bad in ({"kind": "estimate", "cycles": 1}, [1], None,
                    {"kind": fig.MEASURED, "cycles": None}):
            with self.assertRaises(ValueError):
                fig.from_json(bad)

    def test_the_form_before_the_rule_reads_by_the_rule(self):
        self.assertEqual(fig.from_json({"cycles": 566.7, "ci": [-830.5, 1963.9]}),
                         fig.not_resolved(fig.HOLDS_ZERO))
        self.assertEqual(fig.from_json({"cycles": 25.0, "ci": [20.0, 30.0]}),
                         fig.measured(25.0, [20.0, 30.0]))
        self.assertIsNone(fig.from_json({"cycles": None, "ci": None}))

    def test_the_breakdown_writes_what_from_json_reads(self):
        """Every component of a real PVM run's breakdown (vm_exit not
        resolved in every class) and of the breakdown fitted again reads
        through from_json (the run --html crash of issue 33)."""
        path = os.path.join(ROOT, "tests", "fixtures", "kvm-pvm-notresolved.json")
        doc = resultsfile.read_results(path)
        stored = [c for e in doc["boots"][0]["breakdown"]
                  for c in (e.get("components") or {}).values()]
        fresh = [c for e in runner_breakdown(compare.boot_results(doc))
                 for c in (e.get("components") or {}).values()]
        for comps in (stored, fresh):
            kinds = {None if f is None else f.kind
                     for f in map(fig.from_json, comps)}
            self.assertEqual(kinds, {None, fig.MEASURED, fig.NOT_RESOLVED})

    def test_flat_records_carry_null_and_a_reason(self):
        rec = {}
        fig.put(rec, "measured", fig.cost(-823.0))
        self.assertEqual(rec, {"measured": None,
                               "measured_reason": fig.BELOW_ZERO})
        self.assertEqual(fig.get(rec, "measured"), fig.cost(-823.0))
        fig.put(rec, "measured", fig.measured(820.0, [700.0, 940.0]))
        self.assertEqual(rec, {"measured": 820.0,
                               "measured_ci": [700.0, 940.0]})
        self.assertEqual(fig.get(rec, "measured"),
                         fig.measured(820.0, [700.0, 940.0]))
        self.assertEqual(fig.get({}, "x").reason, fig.NO_DATA)
        self.assertEqual(fig.get({"x": 2.0}, "x", fig.MODEL), fig.model(2.0))


if __name__ == "__main__":
    unittest.main()
