"""tests/host/test_perfcount.py - perf's KVM tracepoint lines into exits per
count window (no perf, no QEMU): parsing, pairing an exit to QEMU with the
access it served, sync ports left out, windows split by time, lost events."""
import os
import stat
import sys
import tempfile
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.counters import perfcount  # noqa: E402

# perf script --ns -F time,event,trace, as printed here (KVM on PVM):
# an fw_cfg select + one inb (QEMU), one PIC read (KVM), COM1 polls
SCRIPT = """\
 10.000000100: kvm:kvm_userspace_exit: reason KVM_EXIT_INTR (10)
 10.000000200: kvm:kvm_userspace_exit: reason KVM_EXIT_IO (2)
 10.000000300:            kvm:kvm_pio: pio_read at 0x3fd size 1 count 1 val 0x61 
 10.000000400:            kvm:kvm_pio: pio_write at 0x510 size 2 count 1 val 0x20 
 10.000000500: kvm:kvm_userspace_exit: reason KVM_EXIT_IO (2)
 10.000000600: kvm:kvm_userspace_exit: reason KVM_EXIT_IO (2)
 10.000000700:            kvm:kvm_pio: pio_read at 0x511 size 1 count 1 val 0x5a 
 10.000000800:            kvm:kvm_pio: pio_read at 0x21 size 1 count 1 val 0xff 
 10.000000900:            kvm:kvm_pio: pio_write at 0x3f8 size 1 count 1 val 0x40 
 10.000001000: kvm:kvm_userspace_exit: reason KVM_EXIT_IO (2)
 10.000001100: kvm:kvm_userspace_exit: reason KVM_EXIT_IO (2)
 20.000000000:            kvm:kvm_pio: pio_read at 0x511 size 1 count 4 val 0x5a (...)
 20.000000100:           kvm:kvm_mmio: mmio unsatisfied-read len 4 gpa 0xfebf1000 val 0x0
 20.000000200: kvm:kvm_userspace_exit: reason KVM_EXIT_MMIO (6)
 20.000000300:           kvm:kvm_mmio: mmio read len 4 gpa 0xfebf1000 val 0x1
 20.000000400: kvm:kvm_userspace_exit: reason KVM_EXIT_HLT (5)
"""


class Parse(unittest.TestCase):
    def test_lines_and_keys(self):
        events = perfcount.parse_script(SCRIPT.splitlines())
        self.assertEqual(events[2], (10.0000003, "sync", "pio 0x3fd in"))
        self.assertEqual(events[3], (10.0000004, "access", "pio 0x510 out"))
        self.assertEqual(events[0][1:], ("user", "KVM_EXIT_INTR"))
        # the unsatisfied half of an MMIO read is not a second access
        self.assertEqual(sum(1 for e in events if e[2].startswith("mmio")), 1)
        self.assertEqual(perfcount.event_key("kvm:kvm_cpuid", "func 0 idx 0"),
                         ("access", "cpuid"))

    def test_lost_records(self):
        events = perfcount.parse_script(["LOST 17 events!", "junk line"])
        self.assertEqual(events, [(None, "lost", 17)])
        wins = perfcount.split_windows(events, [(0, 1), (2, 3)])
        self.assertEqual([w["lost"] for w in wins], [17, 17])


class Windows(unittest.TestCase):
    def figures(self):
        events = perfcount.parse_script(SCRIPT.splitlines())
        wins = perfcount.split_windows(events, [(9.5, 10.5), (19.5, 20.5)])
        return [perfcount.window_exits(w) for w in wins]

    def test_first_window(self):
        fig = self.figures()[0]
        self.assertEqual(fig["ports"], {"pio 0x510 out": 1, "pio 0x511 in": 1,
                                        "pio 0x21 in": 1})
        self.assertEqual(fig["exits"], 3)
        self.assertEqual(fig["user"], 2)            # select and inb
        self.assertEqual(fig["kernel"], 1)          # the PIC read
        # the host's kick and the trailing COM1 exit are no guest exits
        self.assertEqual(fig["reasons"], {"KVM_EXIT_IO": 2})

    def test_second_window_mmio_and_hlt(self):
        fig = self.figures()[1]
        # the rep insb chunk had no exit event in the window: KVM's own
        self.assertEqual(fig["exits"], 3)           # pio chunk, mmio, hlt
        self.assertEqual(fig["reasons"], {"KVM_EXIT_MMIO": 1, "KVM_EXIT_HLT": 1})
        self.assertEqual(fig["kernel"], 1)

    def test_kernel_write_before_a_qemu_read(self):
        # outb to the PIC (KVM), then the COM1 status read (QEMU): the exit
        # between them is the read's
        lines = [" 1.1: kvm:kvm_pio: pio_write at 0x21 size 1 count 1 val 0x0 ",
                 " 1.2: kvm:kvm_userspace_exit: reason KVM_EXIT_IO (2)",
                 " 1.3: kvm:kvm_pio: pio_read at 0x511 size 1 count 1 val 0x5a ",
                 " 1.4: kvm:kvm_pio: pio_write at 0x510 size 2 count 1 val 0x20 ",
                 " 1.5: kvm:kvm_userspace_exit: reason KVM_EXIT_IO (2)",
                 " 1.6: kvm:kvm_pio: pio_write at 0x21 size 1 count 1 val 0x0 "]
        wins = perfcount.split_windows(perfcount.parse_script(lines), [(1.0, 2.0)])
        fig = perfcount.window_exits(wins[0])
        self.assertEqual((fig["exits"], fig["user"], fig["kernel"]), (4, 2, 2))
        self.assertEqual(fig["reasons"], {"KVM_EXIT_IO": 2})

    def test_events_outside_windows_are_dropped(self):
        events = perfcount.parse_script(SCRIPT.splitlines())
        wins = perfcount.split_windows(events, [(15.0, 16.0)])
        self.assertEqual(perfcount.window_exits(wins[0])["exits"], 0)

    def test_per_op(self):
        fig = perfcount.per_op(self.figures()[0], 2)
        self.assertEqual(fig["exits"], 1.5)
        self.assertEqual(fig["ports"]["pio 0x21 in"], 0.5)


class Host(unittest.TestCase):
    def test_missing_perf_or_tracepoints_is_one_reason(self):
        events, why = perfcount.available(perf="no-such-perf-binary")
        self.assertEqual(events, [])
        self.assertIn("perf not found", why)
        with tempfile.TemporaryDirectory() as tmp:
            events, why = perfcount.available(perf=sys.executable, tracefs=(tmp,))
        self.assertEqual(events, [])
        self.assertIn("kvm_pio", why)

    def test_an_empty_tracefs_is_mounted_as_root_only(self):
        calls = []

        def run(argv, **kw):
            calls.append(argv)
            self.assertEqual(kw.get("timeout"), perfcount.MOUNT_TIMEOUT_S)

        # through children.run: a bounded child of its own group
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(perfcount.children, "run", run), \
                mock.patch.object(perfcount.os, "geteuid", return_value=0):
            perfcount.mount_tracefs((tmp,))
            self.assertEqual(calls, [["mount", "-t", "tracefs", "nodev", tmp]])
            with mock.patch.object(perfcount.os, "geteuid", return_value=1000):
                perfcount.mount_tracefs((tmp,))
            open(os.path.join(tmp, "README"), "w").close()   # mounted already
            perfcount.mount_tracefs((tmp,))
        self.assertEqual(len(calls), 1)

    def test_offered_events_follow_tracefs(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("kvm_pio", "kvm_exit"):
                os.makedirs(os.path.join(tmp, "events", "kvm", name))
            self.assertEqual(perfcount.offered_events((tmp,)),
                             ["kvm:kvm_pio", "kvm:kvm_exit"])

    def test_record_argv(self):
        argv = perfcount.record_argv(["kvm:kvm_pio"], 42, "c", "a", "d")
        self.assertEqual(argv[:2], ["perf", "record"])
        self.assertIn("fifo:c,a", argv)
        self.assertEqual(argv[argv.index("-D") + 1], "-1")
        self.assertEqual(argv[argv.index("-p") + 1], "42")

    def test_perf_that_exits_at_start_is_an_error_not_a_hang(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "perf")
            with open(fake, "w") as fh:
                fh.write("#!/bin/sh\necho 'no permission' >&2\nexit 1\n")
            os.chmod(fake, stat.S_IRWXU)
            counter = perfcount.PerfCounter(tmp, ["kvm:kvm_pio"], perf=fake)
            with self.assertRaises(perfcount.PerfError) as ctx:
                counter.start(os.getpid())
            self.assertIn("no permission", str(ctx.exception))
            counter.stop()
            self.assertIsNone(counter.proc)


if __name__ == "__main__":
    unittest.main()
