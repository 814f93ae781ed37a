#!/usr/bin/env python3
"""tests/host/test_figure_bare.py - no ratio is formatted by hand: a
speed-up or any other "N.Nx" figure of the host library goes through
values/figure.py (times_text: with its interval, or n.r. and why), so
that no output prints one bare.  A format that writes a number followed
by "x" outside values/figure.py is a finding, unless ALLOWED names it
with the reason it is no measured ratio of times or carries its interval
beside it."""

import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "tools", "trapmeterlib")
HOME = os.path.join("values", "figure.py")      # the one formatter

# "%.1fx", "%sx", "%.2fx": a number formatted with an "x" after it; and
# `...) + "x"`: a formatted number with an "x" added
BARE = re.compile(r'%[-+ #0]*\d*(?:\.\d+)?[fgsd]x\b|\)\s*\+\s*"x"')

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


def findings(root=LIB):
    """["path:line: text"] of each bare ratio format ALLOWED does not name."""
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
                    if BARE.search(line) and not any(
                            rel == a_path and text in line
                            for a_path, text, _why in ALLOWED):
                        out.append("%s:%d: %s" % (rel, num, line.strip()))
    return out


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
        for path, text, why in ALLOWED:
            self.assertTrue(why)
            with open(os.path.join(LIB, path), encoding="utf-8") as fh:
                self.assertIn(text, fh.read(), path)


if __name__ == "__main__":
    unittest.main()
