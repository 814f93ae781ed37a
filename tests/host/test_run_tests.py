"""tests/host/test_run_tests.py - the test runner's own tally: a failing
subtest is a failure (unittest tells neither addSuccess nor addFailure for
a test whose only failures are in subtests)."""
import contextlib
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import run_tests  # noqa: E402


def _sample_case(name):
    """A sample test case, built here so that discovery never runs it."""
    class Sample(unittest.TestCase):
        def test_one_bad_subtest(self):
            for value in (1, 2, 3):
                with self.subTest(value=value):
                    self.assertNotEqual(value, 2)

        def test_erroring_subtest(self):
            with self.subTest(step="boom"):
                raise RuntimeError("boom")

        def test_good_subtests(self):
            for value in (1, 2):
                with self.subTest(value=value):
                    self.assertTrue(value)
    return Sample(name)


class Tally(unittest.TestCase):
    def run_sample(self, name):
        tally = run_tests.Tally()
        result = run_tests.TallyResult(tally)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            _sample_case(name).run(result)
        return tally, out.getvalue()

    def test_failing_subtest_counts_as_failed(self):
        tally, out = self.run_sample("test_one_bad_subtest")
        self.assertEqual((tally.passed, tally.failed), (0, 1), out)
        self.assertIn("value=2", out)

    def test_erroring_subtest_counts_as_failed(self):
        tally, out = self.run_sample("test_erroring_subtest")
        self.assertEqual(tally.failed, 1, out)
        self.assertTrue(out.startswith("ERROR"), out)

    def test_passing_subtests_count_once(self):
        tally, out = self.run_sample("test_good_subtests")
        self.assertEqual((tally.passed, tally.failed), (1, 0), out)


if __name__ == "__main__":
    unittest.main()
