"""tests/host/test_run_tests.py - the test runner's own tally: a failing
subtest is a failure (unittest tells neither addSuccess nor addFailure for
a test whose only failures are in subtests); files run in worker
processes add up to what they add up to in one."""
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


class Workers(unittest.TestCase):
    """Two small host test files in two workers and in this process."""
    ONLY = ["tests.host.test_figure.", "tests.host.test_resultform."]

    def run_with(self, jobs):
        tally = run_tests.Tally()
        suite = run_tests.discover("tests/host", self.ONLY)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            if jobs > 1:
                run_tests.run_in_workers(tally, suite, self.ONLY, jobs)
            else:
                suite.run(run_tests.TallyResult(tally))
        return tally, out.getvalue()

    def test_workers_count_what_one_process_counts(self):
        one, _ = self.run_with(1)
        two, out = self.run_with(2)
        self.assertGreater(one.passed, 5)
        self.assertEqual((two.passed, two.failed, two.skipped),
                         (one.passed, one.failed, one.skipped), out)
        self.assertEqual(out.count("\nok ") + out.startswith("ok "),
                         two.passed, out)
        self.assertEqual(sorted(two.seconds), sorted(one.seconds))

    def test_long_files_go_first(self):
        suite = run_tests.discover("tests/host", self.ONLY + [
            "tests.host.test_hostile_io.ConcurrentLog"])
        modules, others = run_tests._modules(suite)
        self.assertEqual(modules[0], "tests.host.test_hostile_io")
        self.assertEqual(len(modules), 3)
        self.assertEqual(others.countTestCases(), 0)


if __name__ == "__main__":
    unittest.main()
