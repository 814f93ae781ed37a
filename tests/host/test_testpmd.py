"""Unit tests of tools/trapmeterlib/backends/testpmd.py without DPDK: the command
lines, the statistics parser on testpmd 22.11's own output, the
cross-check with the guest's totals, and every error path against a fake
testpmd (tests/host/fake_testpmd.py): missing binary, too few cores, a
port that fails to start, no readiness, a crash, death with the runner;
and the runner's exit status for them."""

import itertools
import os
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.backends import testpmd  # noqa: E402
from trapmeterlib.guest import qemu, vhost_user, virtio  # noqa: E402
from trapmeterlib.values import exitstatus  # noqa: E402

FAKE = os.path.join(HERE, "fake_testpmd.py")
RUNNER = os.path.join(REPO, "tools", "trapmeter")

# "show port stats all" + "show fwd stats all" as dpdk-testpmd 22.11 prints
# them (one run here: 19008 frames through, nothing back)
REAL_STATS = """show port stats all

  ######################## NIC statistics for port 0  ########################
  RX-packets: 19008      RX-missed: 0          RX-bytes:  11075328
  RX-errors: 0
  RX-nombuf:  0
  TX-packets: 0          TX-errors: 0          TX-bytes:  0

  Throughput (since last show)
  Rx-pps:            0          Rx-bps:            0
  Tx-pps:            0          Tx-bps:            0
  ############################################################################

  ######################## NIC statistics for port 1  ########################
  RX-packets: 0          RX-missed: 0          RX-bytes:  0
  RX-errors: 0
  RX-nombuf:  0
  TX-packets: 19008      TX-errors: 0          TX-bytes:  11075328

  Throughput (since last show)
  Rx-pps:            12         Rx-bps:            0
  Tx-pps:            0          Tx-bps:            0
  ############################################################################
  ---------------------- Forward statistics for port 0  ----------------------
  RX-packets: 19008          RX-dropped: 0             RX-total: 19008
  TX-packets: 0              TX-dropped: 0             TX-total: 0
  ----------------------------------------------------------------------------

  ---------------------- Forward statistics for port 1  ----------------------
  RX-packets: 0              RX-dropped: 0             RX-total: 0
  TX-packets: 19008          TX-dropped: 3             TX-total: 19011
  ----------------------------------------------------------------------------

  +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++
  RX-packets: 19008          RX-dropped: 0             RX-total: 19008
  TX-packets: 19008          TX-dropped: 0             TX-total: 19008
  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++
"""


def totals(sent, got, size=64, probes=(1, 1)):
    return {"type": "virtio_totals", "nic_a_tx_frames": sent,
            "nic_a_tx_bytes": sent * size, "nic_b_rx_frames": got,
            "nic_b_rx_bytes": got * size, "probes_sent": probes[0],
            "probes_received": probes[1]}


def counters(rx0, tx1, size=64, dropped=0):
    return {0: {"nic": {"RX-packets": rx0, "RX-bytes": rx0 * size,
                        "RX-missed": 0, "RX-errors": 0, "TX-errors": 0},
                "fwd": {"TX-dropped": 0, "RX-dropped": 0}},
            1: {"nic": {"TX-packets": tx1, "TX-bytes": tx1 * size,
                        "RX-missed": 0, "RX-errors": 0, "TX-errors": 0},
                "fwd": {"TX-dropped": dropped, "RX-dropped": 0}}}


class CommandLines(unittest.TestCase):
    def test_testpmd_argv(self):
        argv = testpmd.build_argv("/x/dpdk-testpmd", "/p", "tm-1", [0, 1],
                                  ["--forward-mode=noisy"])
        self.assertEqual(argv[:3], ["/x/dpdk-testpmd", "-l", "0,1"])
        for word in ("--no-huge", "--no-pci", "--no-shconf", "--no-telemetry"):
            self.assertIn(word, argv)
        self.assertEqual(argv[argv.index("-m") + 1], str(testpmd.MEM_MB))
        self.assertEqual(argv[argv.index("--file-prefix") + 1], "tm-1")
        self.assertIn("net_vhost0,iface=/p/vhost0.sock", argv)
        self.assertIn("net_vhost1,iface=/p/vhost1.sock", argv)
        app = argv[argv.index("--") + 1:]
        self.assertEqual(app[0], "-i")
        self.assertEqual(app[-1], "--forward-mode=noisy")   # the user's wins

    def test_shared_memory_matches_guest_ram(self):
        argv = vhost_user.qemu_args("/p")
        backend = argv[argv.index("-object") + 1]
        self.assertIn("share=on", backend)
        self.assertIn("size=%dM" % testpmd.MEM_MB, backend)
        guest = qemu.build_argv(qemu.RunConfig(repo_root="/r"), "/t")
        self.assertEqual(guest[guest.index("-m") + 1], str(testpmd.MEM_MB))
        self.assertIn("node,memdev=%s" % vhost_user.MEM_ID, argv)

    def test_vhost_user_nics(self):
        conf = virtio.settings(virtio_args(virtio_backend="vhost-user",
                                           testpmd_args="--nb-cores=1"))
        argv = virtio.device_args(conf, "/p")
        self.assertIn("vhost-user,id=tmnet0,chardev=tmvc0", argv)
        self.assertIn("socket,id=tmvc1,path=/p/vhost1.sock", argv)
        self.assertFalse(any(a.startswith("hubport") for a in argv))
        self.assertEqual(conf["testpmd_args"], ["--nb-cores=1"])

    def test_runtime_dir(self):
        self.assertEqual(testpmd.runtime_dir("p", {}, 0), "/var/run/dpdk/p")
        self.assertEqual(testpmd.runtime_dir("p", {"XDG_RUNTIME_DIR": "/x"}, 1000),
                         "/x/dpdk/p")

    def test_cores(self):
        self.assertEqual(testpmd.place_cores([], {3, 1, 2})[0], [1, 2])
        self.assertEqual(testpmd.place_cores(["--nb-cores", "2"], {0, 1, 2})[0],
                         [0, 1, 2])
        with self.assertRaisesRegex(testpmd.TestpmdError, "too few cores.*needs 2 "
                                    "lcores.*may use 1 CPU "):
            testpmd.place_cores([], {0})
        with self.assertRaisesRegex(testpmd.TestpmdError, "needs 4 lcores"):
            testpmd.place_cores(["--nb-cores=1", "--nb-cores=3"], {0, 1})
        with self.assertRaisesRegex(testpmd.TestpmdError, "needs a number"):
            vhost_user.forwarding_cores(["--nb-cores=x"])

    def test_polling_lcores_keep_off_qemus_pinned_cpu(self):
        # --pin-cpu 1 on a 2-CPU host: testpmd polls on 0, its main lcore
        # (idle at the prompt) shares CPU 1 with QEMU
        self.assertEqual(testpmd.place_cores([], {0, 1}, (1,)),
                         ([0, 1], 1, None))
        self.assertEqual(testpmd.place_cores([], {0, 1}, ()),
                         ([0, 1], 0, None))
        self.assertEqual(testpmd.place_cores([], {0, 1, 2, 3}, (0,)),
                         ([1, 2], 2, None))
        cores, main, warning = testpmd.place_cores(["--nb-cores=2"],
                                                   {0, 1, 2}, (1, 2))
        self.assertEqual((cores, main), ([0, 1, 2], 2))
        self.assertRegex(warning, r"polling lcore 1 shares the CPU QEMU is "
                         r"pinned to \(--pin-cpu 1,2\)")

    def test_main_lcore_option(self):
        argv = testpmd.build_argv("t", "/p", "x", [0, 1], [], 1)
        self.assertEqual(argv[1:5], ["-l", "0,1", "--main-lcore", "1"])
        argv = testpmd.build_argv("t", "/p", "x", [0, 1], [], 0)
        self.assertNotIn("--main-lcore", argv)


class Statistics(unittest.TestCase):
    def test_parse_real_output(self):
        ports = testpmd.parse_stats(REAL_STATS)
        self.assertEqual(ports[0]["nic"]["RX-packets"], 19008)
        self.assertEqual(ports[0]["nic"]["RX-bytes"], 11075328)
        self.assertEqual(ports[1]["nic"]["TX-packets"], 19008)
        self.assertEqual(ports[1]["fwd"]["TX-dropped"], 3)
        self.assertNotIn("Rx-pps", ports[1]["nic"])
        self.assertEqual(set(ports), {0, 1})     # the "all ports" block is not a port

    def test_event_lines_inside_a_block(self):
        # QEMU closing its sockets makes testpmd's other threads print an
        # empty line and an event at column 0 while the prompt's thread
        # prints the counters (seen in CI: port 0 lost its block)
        head = "for port 0  ########################\n"
        mixed = REAL_STATS.replace(
            head, head + "\nPort 0: link state change event\nVHOST_CONFIG: "
            "(x/vhost0.sock) vhost peer closed\n")
        self.assertNotEqual(mixed, REAL_STATS)
        self.assertEqual(testpmd.parse_stats(mixed),
                         testpmd.parse_stats(REAL_STATS))

    def test_counters_read_until_two_readings_agree(self):
        good = testpmd.parse_stats(REAL_STATS)
        split = {0: {"nic": dict(good[0]["nic"], **{"RX-packets": 19})},
                 1: good[1]}
        torn = {1: good[1]}
        readings = iter([torn, split, good, good])
        self.assertEqual(testpmd.settled(lambda: next(readings)), good)
        self.assertFalse(testpmd.complete(torn))
        self.assertTrue(testpmd.complete(good))
        # counters that never stand still are an error, not a guess
        n = itertools.count()

        def moving():
            return {p: {k: {c: v + next(n) for c, v in cs.items()}
                        for k, cs in kinds.items()} for p, kinds in good.items()}
        with self.assertRaisesRegex(testpmd.TestpmdError,
                                    "did not read the same twice in 4"):
            testpmd.settled(moving)

    def test_delta(self):
        d = testpmd.stats_delta(counters(10, 10), counters(42, 40, dropped=2))
        self.assertEqual(d[0]["nic"]["RX-packets"], 32)
        self.assertEqual(d[1]["fwd"]["TX-dropped"], 2)

    def test_cross_check(self):
        ok, detail = testpmd.cross_check(counters(97, 97), totals(97, 97))
        self.assertTrue(ok, detail)
        # a probe dropped before forwarding began is allowed...
        ok, _ = testpmd.cross_check(counters(98, 97, dropped=1),
                                    totals(98, 97, probes=(2, 1)))
        self.assertTrue(ok)
        ok, _ = testpmd.cross_check(counters(98, 97), totals(98, 97, probes=(2, 1)))
        self.assertTrue(ok)        # noisy mode: the lost probe is not "dropped"
        ok, _ = testpmd.cross_check(counters(99, 97), totals(99, 97, probes=(2, 1)))
        self.assertFalse(ok)       # one more than the probes explain
        # ...a frame dropped during the cases is not
        ok, detail = testpmd.cross_check(counters(97, 94, dropped=3), totals(97, 94))
        self.assertFalse(ok)
        self.assertIn("testpmd dropped 3", detail)
        # the backend saw a frame the guest did not send, or bytes differ
        self.assertFalse(testpmd.cross_check(counters(98, 97), totals(97, 97))[0])
        c = counters(97, 97)
        c[1]["nic"]["TX-bytes"] += 1
        self.assertFalse(testpmd.cross_check(c, totals(97, 97))[0])
        self.assertFalse(testpmd.cross_check(counters(1, 1), None)[0])

    def test_classify(self):
        self.assertRegex(testpmd.classify_failure("Fail to configure port 0\n"),
                         "^port start failed")
        self.assertRegex(testpmd.classify_failure("EAL: lcore 2 unavailable\n"),
                         "^too few cores")
        self.assertIsNone(testpmd.classify_failure(
            "EAL: Physical addresses are unavailable, selecting IOVA as VA mode.\n"))

    def test_bad_option_is_named_not_cores(self):
        """testpmd prints its usage after a bad option, and the usage
        names --nb-cores: the option is the cause (issue 27)."""
        text = ("testpmd: No probed ethernet devices\n"
                "dpdk-testpmd: unrecognized option '--frobnicate=1'\n\n"
                "Usage: dpdk-testpmd [EAL options] -- [testpmd options]\n"
                "  --nb-cores=N: set the number of forwarding cores "
                "(1 <= N <= 1).\n")
        why = testpmd.classify_failure(text)
        self.assertRegex(why, "^bad --testpmd-args option: ")
        self.assertIn("--frobnicate=1", why)
        self.assertRegex(testpmd.classify_failure(
            "dpdk-testpmd: option '--nb-cores' requires an argument\n"),
            "^bad --testpmd-args option")


def virtio_args(**kw):
    import argparse
    base = dict(suite="virtio", virtio_transport=None, ioeventfd=None,
                virtio_nics=None, virtio_matrix=False, repeat=1,
                virtio_backend=None, testpmd=None, testpmd_args=None)
    base.update(kw)
    return argparse.Namespace(**base)


class Validation(unittest.TestCase):
    def test_bad_combinations(self):
        for kw, text in ((dict(testpmd="x"), "needs --virtio-backend"),
                         (dict(virtio_backend="vhost-user", ioeventfd="off"),
                          "needs --ioeventfd on"),
                         (dict(virtio_backend="vhost-user", virtio_nics=1),
                          "both NICs"),
                         (dict(virtio_backend="vhost-user", suite="pio"),
                          "needs the virtio suite"),
                         (dict(virtio_backend="vhost-user", virtio_matrix=True),
                          "virtio-matrix"),
                         (dict(virtio_backend="vhost-user",
                               testpmd_args="--nb-cores=two"), "needs a number")):
            self.assertIn(text, virtio.validate(virtio_args(**kw)) or "", kw)
        self.assertIsNone(virtio.validate(virtio_args(virtio_backend="vhost-user")))


class FakeProcess(unittest.TestCase):
    """Testpmd against tests/host/fake_testpmd.py."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tm-testpmd-")
        self.dir = os.path.join(self.tmp.name, "vhost")
        self.addCleanup(self.tmp.cleanup)
        self.pmd = None

    def tearDown(self):
        if self.pmd is not None:
            self.pmd.stop()

    def start(self, mode, timeout=10.0, binary=FAKE, cpus=(0, 1)):
        os.environ["FAKE_TESTPMD_MODE"] = mode
        self.addCleanup(os.environ.pop, "FAKE_TESTPMD_MODE", None)
        self.pmd = testpmd.Testpmd(binary, [], self.dir, cpus=set(cpus))
        self.pmd.start(timeout)
        return self.pmd

    def test_missing_binary(self):
        with self.assertRaisesRegex(testpmd.TestpmdError, "testpmd not found: "
                                    "no-such-testpmd.*dpdk-dev"):
            self.start("ok", binary="no-such-testpmd")
        self.assertEqual(testpmd.TestpmdError("x").code, exitstatus.BACKEND_ERROR)

    def test_too_few_cores_before_start(self):
        with self.assertRaisesRegex(testpmd.TestpmdError, "too few cores"):
            self.start("ok", cpus=(0,))
        self.assertIsNone(self.pmd.proc)     # nothing was started

    def test_eal_refuses_cores(self):
        with self.assertRaisesRegex(testpmd.TestpmdError,
                                    "too few cores for its lcores: EAL: lcore 2"):
            self.start("cores")

    def test_a_late_reader_still_names_why(self):
        """testpmd's refusal is read after its exit was seen (as under
        load): the reason is still named, not an empty tail."""
        read = testpmd.Testpmd._read

        def late_read(pmd, master):
            time.sleep(0.5)
            read(pmd, master)
        with unittest.mock.patch.object(testpmd.Testpmd, "_read", late_read):
            with self.assertRaisesRegex(testpmd.TestpmdError,
                                        "too few cores for its lcores"):
                self.start("cores")

    def test_port_start_fails(self):
        with self.assertRaisesRegex(testpmd.TestpmdError, "port start failed"):
            self.start("port-fail")
        proc = self.pmd.proc
        self.pmd.stop()
        self.assertIsNotNone(proc.poll())    # stopped, not left running

    def test_not_ready(self):
        t0 = time.monotonic()
        with self.assertRaisesRegex(testpmd.TestpmdError, "not ready after 0.5 s"):
            self.start("silent", timeout=0.5)
        self.assertLess(time.monotonic() - t0, 5)

    def test_stats_and_clean_stop(self):
        pmd = self.start("ok")
        ports = pmd.stats()
        self.assertEqual(ports[0]["nic"]["RX-packets"], 100)
        self.assertEqual(ports[1]["nic"]["TX-packets"], 100)
        self.assertTrue(os.path.isdir(pmd.runtime_dir))
        proc = pmd.proc
        pmd.stop()
        self.assertEqual(proc.returncode, 0)          # "quit" was enough
        self.assertFalse(os.path.exists(pmd.runtime_dir))
        for name in vhost_user.SOCKETS:
            self.assertFalse(os.path.exists(os.path.join(self.dir, name)))

    def test_stats_through_event_lines(self):
        pmd = self.start("events")
        ports = pmd.stats()
        self.assertEqual(ports[0]["nic"]["RX-packets"], 100)
        self.assertEqual(ports[1]["nic"]["RX-packets"], 0)
        self.assertIn("link state change", pmd.log_text())

    def test_counters_that_keep_moving(self):
        pmd = self.start("moving")
        with self.assertRaisesRegex(testpmd.TestpmdError, "did not read the same"):
            pmd.stats()

    def test_crash_is_named(self):
        pmd = self.start("crash")
        with self.assertRaisesRegex(testpmd.TestpmdError,
                                    "testpmd killed by signal 9"):
            pmd.stats()
            pmd.check_alive("during boot 1")

    def test_dies_with_the_runner(self):
        pidfile = os.path.join(self.tmp.name, "pid")
        code = ("import os,sys; sys.path.insert(0, %r);"
                "from trapmeterlib.backends import testpmd;"
                "p = testpmd.Testpmd(%r, [], %r, cpus={0, 1}); p.start(10);"
                "os._exit(0)" % (os.path.join(REPO, "tools"), FAKE, self.dir))
        env = dict(os.environ, FAKE_TESTPMD_MODE="ok", FAKE_TESTPMD_STUBBORN="1",
                   FAKE_TESTPMD_PIDFILE=pidfile)
        subprocess.run([sys.executable, "-c", code], env=env, timeout=30,
                       check=True)
        with open(pidfile) as fh:
            pid, rundir = fh.read().split("\n")[:2]
        pid = int(pid)
        self.addCleanup(_rmdir, rundir)   # its runner died: nobody else will
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        self.assertFalse(_alive(pid), "testpmd outlived the runner")


def _rmdir(path):
    try:
        os.rmdir(path)
    except OSError:
        pass


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


class RunnerStatus(unittest.TestCase):
    """tools/trapmeter run exits with the documented status before QEMU."""

    def run_tm(self, *args):
        with tempfile.TemporaryDirectory(prefix="tm-testpmd-") as tmp:
            proc = subprocess.run(
                [RUNNER, "run", "--no-build", "--accel", "tcg", "--suite",
                 "virtio", "--json", os.path.join(tmp, "r.json"), *args],
                capture_output=True, text=True, timeout=60, cwd=REPO)
        return proc

    def test_missing_testpmd(self):
        proc = self.run_tm("--virtio-backend", "vhost-user", "--testpmd",
                           "/nonexistent/dpdk-testpmd")
        self.assertEqual(proc.returncode, exitstatus.BACKEND_ERROR, proc.stderr)
        self.assertIn("testpmd not found", proc.stderr)

    def test_too_few_cores(self):
        proc = self.run_tm("--virtio-backend", "vhost-user", "--testpmd", FAKE,
                           "--testpmd-args=--nb-cores=%d" % os.cpu_count())
        self.assertEqual(proc.returncode, exitstatus.BACKEND_ERROR, proc.stderr)
        self.assertIn("too few cores", proc.stderr)

    def test_port_start_fails(self):
        proc = subprocess.run(
            [RUNNER, "run", "--no-build", "--accel", "tcg", "--suite", "virtio",
             "--json", os.devnull, "--virtio-backend", "vhost-user",
             "--testpmd", FAKE], capture_output=True, text=True, timeout=60,
            cwd=REPO, env=dict(os.environ, FAKE_TESTPMD_MODE="port-fail"))
        self.assertEqual(proc.returncode, exitstatus.BACKEND_ERROR, proc.stderr)
        self.assertIn("port start failed", proc.stderr)

    def test_bad_option_is_bad_input(self):
        proc = self.run_tm("--testpmd-args=--nb-cores=1")
        self.assertEqual(proc.returncode, exitstatus.BAD_INPUT)
        self.assertIn("needs --virtio-backend vhost-user", proc.stderr)


if __name__ == "__main__":
    unittest.main()
