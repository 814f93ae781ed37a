"""tests/boot/test_virtio.py - the virtio suite end to end.

TCG: every packet size and kick policy moves frames from NIC A to NIC B
with 0 lost and 0 corrupt, on the legacy, modern and modern-pio
transports; one or no NIC gives skips with a reason.  KVM: one bounded
boot whose NIC A has ioeventfd=on and NIC B ioeventfd=off: each kick on
B is an MMIO exit to QEMU and none on A is (counted).  Which kick is the
slower is a timing claim that moves with the host: make acceptance
(tests/acceptance/test_kvm_kicks.py).  Never absolute cycles.
"""
import os
import sys
import unittest

from tests.boot.common import ROOT, need_build, need_kvm, run

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.output import resultsfile  # noqa: E402

SIZES = (64, 128, 260, 520, 1024, 1500)
POLICIES = ("each", "batch32", "event")
SMALL = ("--cmdline", "samples=3 budget_ms=20")


def virtio_results(boot):
    return {r["case"]: r for r in boot.boot["results"] if r["suite"] == "virtio"}


class TcgTransport:
    transport = None
    guest = None          # (transport, notify) the guest must report

    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run("--accel", "tcg", "--suite", "virtio", "--virtio-transport",
                    cls.transport, *SMALL, timeout=240)

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_size_and_policy_without_loss(self):
        res = virtio_results(self.b)
        for size in SIZES:
            for pol in POLICIES:
                r = res.get(f"net.{size}.{pol}")
                self.assertIsNotNone(r, f"net.{size}.{pol} missing: {sorted(res)}")
                self.assertEqual(r["packet_bytes"], size)
                self.assertGreaterEqual(r["sent"], 32 * 3, r)
                self.assertEqual(r["received"], r["sent"], r)
                self.assertEqual(r["lost"], 0, r)
                self.assertEqual(r["corrupt"], 0, r)

    def test_kick_policies(self):
        res = virtio_results(self.b)
        for size in SIZES:
            each = res[f"net.{size}.each"]
            batch = res[f"net.{size}.batch32"]
            event = res[f"net.{size}.event"]
            self.assertEqual(each["kicks"], each["sent"])
            self.assertEqual(batch["kicks"] * 32, batch["sent"])
            self.assertLessEqual(event["kicks"], event["sent"])

    def test_packets_check(self):
        checks = {c["name"]: c for c in self.b.boot["checks"]}
        chk = checks["virtio.packets"]
        self.assertTrue(chk["ok"], chk)
        self.assertIn("lost 0, corrupt 0, out of order 0", chk["detail"])

    def test_guest_and_runner_labels(self):
        guest = self.b.boot["virtio"]["guest"]
        self.assertEqual((guest["transport"], guest["notify"]), self.guest)
        self.assertTrue(guest["event_idx"])
        for r in virtio_results(self.b).values():
            self.assertEqual(r["virtio"], {"transport": self.transport, "ioeventfd": "on"})
            self.assertEqual(r["virtio_transport"], self.guest[0])

    def test_results_file_verifies_with_the_runners_kick_handler(self):
        """The runner names a kick's handler (ioeventfd) after the guest
        sealed its line: the file must still verify, as compare reads it."""
        kicks = [r for r in self.b.boot["results"]
                 if r.get("handler") == "ioeventfd"]
        self.assertTrue(kicks, "no kick row with the runner's handler")
        resultsfile.verify_document(self.b.results)


class TcgLegacy(TcgTransport, unittest.TestCase):
    transport = "legacy"
    guest = ("legacy", "pio")


class TcgModern(TcgTransport, unittest.TestCase):
    transport = "modern"
    guest = ("modern", "mmio")


class TcgModernPio(TcgTransport, unittest.TestCase):
    transport = "modern-pio"
    guest = ("modern", "pio")


class TcgMissingNics(unittest.TestCase):
    def skip_reason(self, nics):
        b = run("--accel", "tcg", "--suite", "virtio", "--virtio-nics", str(nics),
                timeout=120)
        self.assertEqual(b.status, 0, b.describe())
        self.assertEqual([r for r in b.boot["results"] if r["suite"] == "virtio"], [])
        skips = [s for s in b.boot["skips"] if s["suite"] == "virtio"]
        self.assertEqual(len(skips), 1, skips)
        return skips[0]["reason"]

    def test_no_nic(self):
        need_build(self, "build/trapmeter.elf")
        self.assertIn("no virtio-net device", self.skip_reason(0))

    def test_one_nic(self):
        need_build(self, "build/trapmeter.elf")
        self.assertIn("only one virtio-net NIC", self.skip_reason(1))


class TcgBarAbove4G(unittest.TestCase):
    """A 1 GiB 64-bit BAR (ivshmem) leaves no room below 4 GiB with -m 3G,
    so SeaBIOS puts the 64-bit BARs high: the guest must map virtio's."""

    def test_high_bar_mapped_and_used(self):
        need_build(self, "build/trapmeter.elf")
        b = run("--accel", "tcg", "--suite", "virtio", "--case", "net.64.*", *SMALL,
                "--", "-m", "3G", "-object", "memory-backend-ram,id=hm,size=1G",
                "-device", "ivshmem-plain,memdev=hm", timeout=120)
        self.assertEqual(b.status, 0, b.describe())
        guest = b.boot["virtio"]["guest"]
        self.assertGreaterEqual(int(guest["notify_addr"], 16), 1 << 32, guest)
        self.assertEqual(virtio_results(b)["net.64.each"]["lost"], 0)


class TcgBehindBridge(unittest.TestCase):
    """Both NICs behind a PCI-PCI bridge: found only if enumeration follows
    the bridge to its secondary bus."""

    def test_nics_behind_bridge(self):
        need_build(self, "build/trapmeter.elf")
        qemu = ["-device", "pci-bridge,id=br1,chassis_nr=1"]
        for i in range(2):
            qemu += ["-netdev", f"hubport,id=bb{i},hubid=0", "-device",
                     f"virtio-net-pci,netdev=bb{i},bus=br1,addr={i + 3},romfile=,"
                     "disable-legacy=on"]
        b = run("--accel", "tcg", "--suite", "virtio", "--virtio-nics", "0",
                "--case", "net.64.*", *SMALL, "--", *qemu, timeout=120)
        self.assertEqual(b.status, 0, b.describe())
        self.assertEqual([s for s in b.boot["skips"] if s["suite"] == "virtio"], [])
        self.assertEqual(virtio_results(b)["net.64.batch32"]["lost"], 0)
        self.assertTrue({c["name"]: c for c in b.boot["checks"]}["virtio.packets"]["ok"])


class KvmIoeventfd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf")
        nics = []
        for i, ioeventfd in enumerate(("on", "off")):
            nics += ["-netdev", f"hubport,id=kt{i},hubid=0", "-device",
                     f"virtio-net-pci,netdev=kt{i},romfile=,disable-legacy=on,"
                     f"ioeventfd={ioeventfd}"]
        cls.b = run("--accel", "kvm", "--suite", "virtio", "--virtio-nics", "0",
                    "--case", "kick.*", "--cmdline", "samples=9 budget_ms=300",
                    "--timeout", "240", "--", *nics, timeout=300)

    def test_only_the_kick_without_ioeventfd_goes_to_qemu(self):
        """Each kick is one VM exit; QEMU's MMIO exits (QMP, whole exits
        over the timed window, 2 allowed for the window's edges) are one a
        kick on NIC B and none on NIC A, whose doorbell KVM answers."""
        self.assertEqual(self.b.status, 0, self.b.describe())
        for case, to_qemu in (("kick.alone", 0), ("kick.alone.nic_b", 1)):
            r = self.b.result(case)
            self.assertEqual(r["exits_model"], 1)
            stats = r.get("exit_stats_per_op") or {}
            if stats.get("mmio_exits") is None:
                self.skipTest("the host reports no mmio_exits: %s" % r.get("exits_note"))
            self.assertLessEqual(abs(stats["mmio_exits"] - to_qemu) * r["ops"],
                                 EDGE_EXITS + 0.0005 * r["ops"], (case, r))


# the whole exits a QMP window's edges may add or miss
EDGE_EXITS = 2


if __name__ == "__main__":
    unittest.main()
