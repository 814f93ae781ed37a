"""tests/host/test_breakdown_lowfit.py - the lower-envelope fit
(tools/trapmeterlib/stats/lowfit.py) the cost breakdown uses."""
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.stats import breakdown as bd  # noqa: E402
from trapmeterlib.stats.lowfit import frontier  # noqa: E402


def line(xs, a=1000.0, b=20.0, slow=lambda i: 1.0):
    return [[1.0, x] for x in xs], [(a + b * x) * slow(i) for i, x in enumerate(xs)]


class Frontier(unittest.TestCase):
    def test_recovers_a_line_under_one_sided_noise(self):
        rng = random.Random(7)
        extra = [1.0 + (rng.random() * 0.8 if rng.random() < 0.4 else 0.0) for _ in range(30)]
        rows, ys = line(range(1, 31), slow=lambda i: extra[i])
        a, b = frontier(rows, ys)
        self.assertAlmostEqual(a, 1000.0, delta=1e-6)
        self.assertAlmostEqual(b, 20.0, delta=1e-9)
        # least squares through the same rows is pulled up by the slow ones
        ls = bd.wls(rows, ys)
        self.assertGreater(abs(ls[0] - 1000.0) + 100 * abs(ls[1] - 20.0), 10.0)

    def test_lies_at_or_below_every_row(self):
        rng = random.Random(3)
        rows = [[1.0, float(x), float(x % 7)] for x in range(1, 25)]
        ys = [(500 + 3 * r[1] + 40 * r[2]) * (1 + rng.random() * 0.3) for r in rows]
        coef = frontier(rows, ys)
        for r, y in zip(rows, ys):
            self.assertLessEqual(sum(c * v for c, v in zip(coef, r)), y * (1 + 1e-9))

    def test_a_row_far_above_does_not_move_it(self):
        rows, ys = line(range(1, 10))
        base = frontier(rows, ys)
        ys[4] *= 10
        self.assertEqual([round(v, 6) for v in frontier(rows, ys)],
                         [round(v, 6) for v in base])

    def test_collinear_terms_are_not_fitted(self):
        rows = [[1.0, float(x), 2.0 * x] for x in range(1, 10)]
        self.assertIsNone(frontier(rows, [3.0 * x + 1 for x in range(1, 10)]))

    def test_one_row_fixes_one_constant(self):
        self.assertEqual(frontier([[1.0], [1.0], [1.0]], [7.0, 5.0, 9.0]), [5.0])

    def test_negative_figures_are_fitted_too(self):
        # net figures of an in-kernel port can fall below their control's
        rows, ys = line(range(1, 12), a=-3000.0, b=350.0)
        a, b = frontier(rows, ys)
        self.assertAlmostEqual(a, -3000.0, delta=1e-6)
        self.assertAlmostEqual(b, 350.0, delta=1e-9)


if __name__ == "__main__":
    unittest.main()
