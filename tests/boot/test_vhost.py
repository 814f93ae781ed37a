"""tests/boot/test_vhost.py - the virtio suite through a real vhost-user
backend: DPDK testpmd forwarding NIC A to NIC B (--virtio-backend
vhost-user), under TCG, one short boot per receive path.  Every size and
kick policy moves its frames with 0 lost and 0 corrupt, testpmd's own
port counters agree with the guest's (check vhost.testpmd_stats), the
mergeable path really spreads frames over several 512-byte buffers, and
testpmd's runtime directory is gone afterwards.  Skipped without
dpdk-testpmd or with fewer than 2 CPUs.  testpmd busy-polls a core while
it runs."""
import os
import shutil
import unittest

from tests.boot.common import need_build, run

SIZES = (64, 128, 260, 520, 1024, 1500)
POLICIES = ("each", "batch32", "event")
SMALL = ("--cmdline", "samples=3 budget_ms=20")


def need_testpmd(case):
    if shutil.which("dpdk-testpmd") is None:
        raise unittest.SkipTest("dpdk-testpmd not installed (Debian dpdk-dev)")
    if len(os.sched_getaffinity(0)) < 2:
        raise unittest.SkipTest("testpmd needs 2 CPUs")


class VhostPath:
    path = None

    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        need_testpmd(cls)
        cls.b = run("--accel", "tcg", "--suite", "virtio", "--virtio-backend",
                    "vhost-user", SMALL[0], SMALL[1] + " virtio_path=" + cls.path,
                    timeout=300)

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_size_and_policy_clean(self):
        for size in SIZES:
            for pol in POLICIES:
                r = self.b.result("net.%d.%s" % (size, pol))
                self.assertEqual((r["lost"], r["corrupt"]), (0, 0), r["case"])
                self.assertGreater(r["received"], 0, r["case"])
                self.assertEqual(r["virtio_path"], self.path)
                self.assertEqual(r["virtio"]["backend"], "vhost-user")

    def test_testpmd_counters_agree(self):
        checks = {c["name"]: c for c in self.b.boot["checks"]}
        for name in ("virtio.link", "virtio.packets", "vhost.testpmd_stats"):
            self.assertTrue(checks[name]["ok"], checks[name])
        delta = checks["vhost.testpmd_stats"]["testpmd_delta"]
        totals = next(o for o in self.b.boot["other"] if o["type"] == "virtio_totals")
        self.assertGreater(totals["nic_a_tx_frames"], 1000)
        self.assertEqual(delta["0"]["nic"]["RX-packets"], totals["nic_a_tx_frames"])
        self.assertEqual(delta["1"]["nic"]["TX-packets"], totals["nic_b_rx_frames"])

    def test_buffers_per_frame(self):
        totals = next(o for o in self.b.boot["other"] if o["type"] == "virtio_totals")
        ratio = totals["nic_b_rx_buffers"] / totals["nic_b_rx_frames"]
        if self.path == "mergeable":
            self.assertGreater(ratio, 1.5)     # 1500-byte frames take 3 buffers
        else:
            self.assertEqual(ratio, 1.0)

    def test_runtime_files_removed(self):
        argv = self.b.results["config"]["testpmd_argv"]
        prefix = argv[argv.index("--file-prefix") + 1]
        self.assertFalse(os.path.exists(os.path.join("/var/run/dpdk", prefix)))


class Normal(VhostPath, unittest.TestCase):
    path = "normal"


class Mergeable(VhostPath, unittest.TestCase):
    path = "mergeable"


if __name__ == "__main__":
    unittest.main()
