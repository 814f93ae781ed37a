"""tests/host/test_schedwait.py - the vCPU thread's wait for a host CPU
(tools/trapmeterlib/counters/schedwait.py) and QEMU's niceness
(tools/trapmeterlib/system/priority.py, run --nice): figures from a fake
/proc, pinned by hand, and a real child at the niceness asked for."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.counters import schedwait  # noqa: E402
from trapmeterlib.system import children, fingerprint, priority  # noqa: E402

RUNNER, QEMU, MAIN, VCPU = 100, 200, "200", "201"
STAT = "cpu  10 0 10 100 0 0 0 %d 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\n"


class FakeProc:
    """A /proc with the runner, its QEMU child and two QEMU threads."""

    def __init__(self):
        self.root = tempfile.mkdtemp()
        os.makedirs(self.path("proc/%d/task/%d" % (RUNNER, RUNNER)))
        self.put("proc/%d/task/%d/children" % (RUNNER, RUNNER), str(QEMU))
        self.set(MAIN, 50, 5)
        self.set(VCPU, 1000, 0)
        self.steal(0)

    def path(self, rel):
        return os.path.join(self.root, rel)

    def put(self, rel, text):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        with open(self.path(rel), "w") as fh:
            fh.write(text)

    def set(self, tid, run_ns, wait_ns, slices=1):
        self.put("proc/%d/task/%s/schedstat" % (QEMU, tid),
                 "%d %d %d\n" % (run_ns, wait_ns, slices))

    def steal(self, ticks):
        self.put("proc/stat", STAT % ticks)


class Sampler(unittest.TestCase):
    def setUp(self):
        self.fake = FakeProc()
        self.addCleanup(shutil.rmtree, self.fake.root)
        self.w = schedwait.WaitSampler(fingerprint.Host(self.fake.root),
                                       root_pid=RUNNER)

    def test_parsers(self):
        self.assertEqual(schedwait.parse_schedstat("5 6 7\n"), (5, 6, 7))
        self.assertIsNone(schedwait.parse_schedstat("5 x 7"))
        self.assertIsNone(schedwait.parse_schedstat(None))
        self.assertEqual(schedwait.steal_ticks(STAT % 42), 42)
        self.assertIsNone(schedwait.steal_ticks("intr 5\n"))

    def test_the_busiest_thread_and_each_case_by_hand(self):
        w, fake = self.w, self.fake
        w.sample({"type": "run"}, 1.0)
        self.assertEqual(w.thread, (QEMU, VCPU))
        # the main thread's wait is not the vCPU's
        fake.set(MAIN, 60, 900000000)
        fake.set(VCPU, 1000 + 300000000, 100000000, 4)
        w.sample({"type": "case", "suite": "pio", "case": "a"}, 1.5)
        fake.set(VCPU, 1000 + 600000000, 400000000, 9)
        w.sample({"type": "result", "suite": "pio", "case": "a"}, 2.1)
        fake.set(VCPU, 1000 + 700000000, 500000000, 12)
        w.sample({"type": "round", "case": "a"}, 2.4)
        fake.steal(250)
        w.finish()
        got = w.result()
        # 0.7 s run, 0.5 s waiting from the first record to the last
        self.assertAlmostEqual(got["run_s"], 0.7)
        self.assertAlmostEqual(got["wait_s"], 0.5)
        self.assertAlmostEqual(got["wait_share"], 0.5 / 1.2)
        self.assertEqual(got["slices"], 11)
        self.assertAlmostEqual(got["steal_s"], 2.5)
        # case a: 300 ms in its result's window, 100 ms in its round's;
        # the case line's own 100 ms is the window before the case
        self.assertAlmostEqual(got["cases"]["a"]["wait_ms"], 400.0)
        self.assertAlmostEqual(got["cases"]["a"]["window_ms"], 900.0)
        self.assertEqual(sorted(got["cases"]), ["a"])

    def test_no_qemu_no_figure(self):
        w = schedwait.WaitSampler(fingerprint.Host(self.fake.root),
                                  root_pid=999)
        w.sample({"type": "run"}, 0.1)
        w.finish()
        self.assertIsNone(w.result())
        self.w.sample({"type": "run"}, 0.1)     # one reading is no window
        self.assertIsNone(self.w.result())


class Nice(unittest.TestCase):
    def test_range_is_a_named_error(self):
        for bad in (-21, 20):
            with self.assertRaises(priority.PriorityError):
                priority.parse(bad)
        self.assertIsNone(priority.parse(None))

    def test_a_child_runs_at_the_niceness_asked_for(self):
        want = max(priority.current(), 5)
        proc = children.spawn([sys.executable, "-c",
                               "import os, sys; print(os.getpriority("
                               "os.PRIO_PROCESS, 0)); sys.stdout.flush(); "
                               "sys.stdin.read()"], nice=want,
                              stdout=subprocess.PIPE, stdin=subprocess.PIPE)
        self.assertEqual(int(proc.stdout.readline()), want)
        # its session's autogroup too: the thread's niceness weighs only
        # inside its group (kernel.sched_autogroup_enabled)
        group = priority.autogroup_nice(proc.pid)
        if group is not None:
            self.assertEqual(group, want)
        proc.communicate(timeout=30)

    def test_refused_below_the_runners_own_without_the_right(self):
        if priority.permitted(priority.current() - 1):
            # root here: a forked child that drops the right is refused
            pid = os.fork()
            if pid == 0:
                try:
                    os.setpriority(os.PRIO_PROCESS, 0, 10)
                    os.setuid(65534)
                    priority.parse(5)
                    os._exit(1)
                except priority.PriorityError:
                    os._exit(0)
                except BaseException:
                    os._exit(2)
            _pid, status = os.waitpid(pid, 0)
            self.assertEqual(os.WEXITSTATUS(status), 0)
        else:
            with self.assertRaises(priority.PriorityError):
                priority.parse(priority.current() - 1)


class AbDefault(unittest.TestCase):
    """ab (and bisect, sensitivity: make_sides) runs QEMU at AB_NICE where
    this process may, unless a side's words set --nice."""

    def test_the_words_and_the_line(self):
        from trapmeterlib.commands import ab_report, ab_sides
        sides = ab_sides.make_sides(["--accel", "kvm"], [])
        words = sides["a"][0]
        if priority.permitted(ab_sides.AB_NICE):
            self.assertEqual(words[:2], ["--nice", str(ab_sides.AB_NICE)])
            self.assertEqual(sides["b"][0], words)
        else:
            self.assertNotIn("--nice", words)
        cfg = unittest.mock.Mock(sides=sides)
        line = ab_report.priority_line(cfg)
        self.assertIn("niceness", line)
        # a side that sets it keeps its own; the other runs as the runner
        sides = ab_sides.make_sides(["--accel", "kvm"], [], ("", "--nice 5"))
        self.assertNotIn("--nice", sides["a"][0])
        self.assertEqual(sides["b"][0][-2:], ["--nice", "5"])
        line = ab_report.priority_line(unittest.mock.Mock(sides=sides))
        self.assertIn("niceness B 5", line)


if __name__ == "__main__":
    unittest.main()
