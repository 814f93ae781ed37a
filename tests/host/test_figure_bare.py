#!/usr/bin/env python3
"""tests/host/test_figure_bare.py - no ratio and no percentage is
formatted by hand: a speed-up or any other "N.Nx" figure of the host
library goes through values/figure.py (times_text: with its interval, or
n.r. and why), a share or a relative change "N.N %" through
percent_text (with its interval where it has one, "(model)" when it is
one, n.r. and why), so that no output prints one bare.  A format that
writes a number followed by "x" or "%" outside values/figure.py is a
finding, unless ALLOWED (ratios) or ALLOWED_PCT (percentages) names it
with the reason it is no measured figure (a setting, a level, a bound
worked out from them, a model figure its line labels) or carries its
interval beside it."""

import os
import re
import shutil
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "tools", "trapmeterlib")
HOME = os.path.join("values", "figure.py")      # the one formatter

# "%.1fx", "%sx", "%.2fx": a number formatted with an "x" after it; and
# `...) + "x"`: a formatted number with an "x" added
BARE = re.compile(r'%[-+ #0]*\d*(?:\.\d+)?[fgsd]x\b|\)\s*\+\s*"x"')

# "%.1f %%", "%g%%", "%s %%": a number formatted with a "%" after it (in a
# %-format); f"{x:.1f} %" and f"{x:.1%}"; `fmt + " %%"`: a "%" added
PCT = re.compile(r'%[-+ #0]*\d*(?:\.\d+)?[fgdeis]\s?%%'
                 r'|\{[^{}"\']*\}\s?%["\s]|\{[^{}]*:[^{}]*%\}'
                 r'|\+\s*" ?%%?"')

SETTING = "a setting the user gave or its default, not a figure"
LEVEL = "the coverage or level of a test or an interval: a setting"
RESOLVES = ("a detection limit (\"resolves\"): the smallest change the "
            "test could flag at these boots and spread, worked out from the "
            "test (a model figure its line names), not a measured change")
FORECAST = ("a forecast (model figure, its line says \"forecast\"): the "
            "spread and resolution the session is expected to reach")

# (path under the library, text on the line, why it is no bare figure)
ALLOWED = (
    ("stats/compare_notes.py", '"%.3fx %s"',
     "compare's size note of a flagged row: the row's interval is printed "
     "in its own column of the same line (test_verdict_figures.py)"),
    ("commands/sensitivity.py", '"%.2fx" % ratio',
     "a ratio of two exit counts (the shim's delayed exits over the "
     "counted ones): counts, no sampling interval"),
    ("guest/virtio.py", '"%s %.2fx"',
     "left: virtio-matrix's ioeventfd off/on ratio of two boots' kick "
     "minima and medians (one boot each); the matrix keeps no samples to "
     "give it an interval"),
)


ALLOWED_PCT = (
    ("stats/compare_notes.py", "boots a side for %.3g %%",
     "ab's --target: " + SETTING),
    ("stats/compare_notes.py", '"resolves %.1f %% (spread %.1f %%%s)"',
     RESOLVES + "; the spread beside it is what it was worked out from"),
    ("stats/compare_notes.py", "more than the %.1f %% threshold", SETTING),
    ("stats/speedup.py", "too few samples for a %d %% interval", LEVEL),
    ("stats/speedup.py", "at least %d %% sure", LEVEL),
    ("stats/speedup.py", "the %d %% t interval", LEVEL),
    ("stats/forecast.py", '(fmt + " %%") % lo', FORECAST),
    ("stats/forecast.py", '(fmt + "-" + fmt + " %%")', FORECAST),
    ("stats/forecast.py", '"%s/%s %.1f %%"', FORECAST),
    ("stats/forecast.py", "the threshold %.1f %% is below", SETTING),
    ("stats/forecast.py", "--resolution %.1f %% is reached", SETTING),
    ("stats/forecast.py", "--resolution %.1f %% is not reached", SETTING),
    ("output/verdicts.py", '"%.1f %%" % (100 * res[0])', RESOLVES),
    ("output/verdicts.py", '"%.1f-%.1f %% (median %.1f %%)"', RESOLVES),
    ("output/bisect_text.py", "interval at %.3g %%", LEVEL),
    ("output/bisect_text.py", "a wrong answer: at most %.1f %%",
     "a bound worked out from the levels and alpha (settings): at most"),
    ("output/bisect_text.py", "the search's steps alone: at most %.1f %%",
     "a bound worked out from the steps' levels (settings)"),
    ("output/bisect_text.py", "would bound it at %.1f %%",
     "a bound worked out from the steps' levels (settings)"),
    ("output/comparison.py", '"%s..%s (%s %%)"', LEVEL),
    ("output/comparison.py", "threshold %g%%", SETTING),
    ("output/report_figures.py", 'q("%g %%%%" % p)',
     "sensitivity's delay levels as axis tics: " + SETTING),
    ("output/html.py", '"%s (at %g %%)"', "the delay level: " + SETTING),
    ("output/html.py", '"%g %% (nominal)"',
     "the nominal delay level, named so: " + SETTING),
    ("output/html.py", '"%.1f %%" % (100 * res)', RESOLVES),
    ("output/html.py", '"+%g %%" % p for p in levels',
     "delay levels as column heads: " + SETTING),
    ("commands/ab_report.py", '"resolves %.1f %%" % lo', RESOLVES),
    ("commands/ab_report.py", '"resolves %.1f-%.1f %%" % (lo, hi)', RESOLVES),
    ("commands/sensitivity.py", '"%.1f %%" % (100 * value)', RESOLVES),
    ("commands/sensitivity.py", '"%g%%" % p if not moved.get(p)',
     "delay levels as column heads (the moved median beside it goes "
     "through percent_text): " + SETTING),
    ("commands/sensitivity.py", '"%g %%: in-kernel %s %s"',
     "the delay level a control was flagged at: " + SETTING),
)


def _scan(root, pattern, allowed):
    """["path:line: text"] of each line `pattern` finds that `allowed`
    does not name."""
    out = []
    for base, _dirs, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(base, name)
            rel = os.path.relpath(path, root)
            if rel == HOME:
                continue
            with open(path, encoding="utf-8") as fh:
                for num, line in enumerate(fh, 1):
                    if pattern.search(line) and not any(
                            rel == a_path and text in line
                            for a_path, text, _why in allowed):
                        out.append("%s:%d: %s" % (rel, num, line.strip()))
    return out


def findings(root=LIB):
    """["path:line: text"] of each bare ratio format ALLOWED does not name."""
    return _scan(root, BARE, ALLOWED)


def pct_findings(root=LIB):
    """The same of percentages: each ALLOWED_PCT does not name."""
    return _scan(root, PCT, ALLOWED_PCT)


class NoBareRatio(unittest.TestCase):
    def test_the_library_formats_no_ratio_by_hand(self):
        self.assertEqual(findings(), [])

    def test_the_pattern_sees_one(self):
        for text in ('"%.1fx" % speed', '"%sx" % times(v)',
                     '_fmt(r.get("rep_loop_ratio"), 1) + "x"',
                     '"loop/rep %.2fx per sector"'):
            self.assertTrue(BARE.search(text), text)
        for text in ('"%08x" % crc', '"\\\\x%02x" % ord(c)', '"%d KiB" % n',
                     'figure.times_text(fig)'):
            self.assertFalse(BARE.search(text), text)

    def test_every_allowed_line_is_still_there(self):
        """An entry whose line went away is removed with it."""
        for path, text, why in ALLOWED + ALLOWED_PCT:
            self.assertTrue(why)
            with open(os.path.join(LIB, path), encoding="utf-8") as fh:
                self.assertIn(text, fh.read(), path)


class NoBarePercentage(unittest.TestCase):
    def test_the_library_formats_no_percentage_by_hand(self):
        self.assertEqual(pct_findings(), [])

    def test_the_pattern_sees_one(self):
        for text in ('"%.2f%%" % (100 * value)', '"%+.0f %%" % v',
                     '"(%.0f %% -> %.0f %%)"', '"%s %%" % share',
                     'f"{within * 100:.1f} %" if w', 'f"{share:.1%}"',
                     '(fmt + " %%") % lo', '"%g%%=%s"'):
            self.assertTrue(PCT.search(text), text)
        for text in ('"%d%s" % (a, b)', '"100 %% sure"', '"%s (%s)" % x',
                     'figure.percent_text(fig)', '"{:,.{}f}".format(v, p)',
                     '"%d KiB" % n', 'dict(a=1) % 2'):
            self.assertFalse(PCT.search(text), text)

    def test_a_planted_one_is_found(self):
        """A bare percentage added to a copy of the library is a finding;
        the same line in values/figure.py is not."""
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.join(tmp, "lib")
            shutil.copytree(LIB, root, ignore=shutil.ignore_patterns(
                "__pycache__"))
            self.assertEqual(pct_findings(root), [])
            with open(os.path.join(root, "values", "figure.py"), "a",
                      encoding="utf-8") as fh:
                fh.write('\nPLANTED = "%.1f %%" % 12.5\n')
            self.assertEqual(pct_findings(root), [])
            with open(os.path.join(root, "stats", "precision.py"), "a",
                      encoding="utf-8") as fh:
                fh.write('\nPLANTED = "%.1f %%" % 12.5\n')
            found = pct_findings(root)
            self.assertEqual(len(found), 1, found)
            self.assertTrue(found[0].startswith("stats/precision.py:"), found)


if __name__ == "__main__":
    unittest.main()
