"""Unit tests of tools/trapmeterlib/guest/virtio.py (no QEMU): NIC arguments,
option checks, result labels and the matrix table."""
import argparse
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import virtio, viommu  # noqa: E402
from trapmeterlib.guest.dump import parse_dump  # noqa: E402


def args(**kw):
    """The runner's namespace; --viommu as its parser gives it (a tuple)."""
    base = dict(suite="virtio", virtio_transport=None, ioeventfd=None,
                virtio_nics=None, virtio_matrix=False, repeat=1)
    base.update(kw)
    base["viommu"] = viommu.parse(base.get("viommu", "off"))
    return argparse.Namespace(**base)


class Options(unittest.TestCase):
    def test_defaults_and_device_args(self):
        conf = virtio.settings(args())
        self.assertEqual(conf, {"transport": "modern", "ioeventfd": "on", "nics": 2})
        argv = virtio.device_args(conf)
        self.assertEqual(argv.count("-device"), 2)
        self.assertEqual(argv.count("-netdev"), 2)
        self.assertIn("hubport,id=tmnet0,hubid=0", argv)
        self.assertIn("hubport,id=tmnet1,hubid=0", argv)
        self.assertTrue(all("disable-legacy=on,ioeventfd=on" in a
                            for a in argv if a.startswith("virtio-net-pci")))

    def test_transport_properties(self):
        legacy = virtio.device_args(virtio.settings(args(virtio_transport="legacy",
                                                         ioeventfd="off")))
        self.assertIn("disable-legacy=off,disable-modern=on,ioeventfd=off", legacy[3])
        pio = virtio.device_args(virtio.settings(args(virtio_transport="modern-pio")))
        self.assertIn("modern-pio-notify=on", pio[3])

    def test_no_suite_no_nics(self):
        self.assertIsNone(virtio.settings(args(suite="pio")))
        self.assertEqual(virtio.device_args(None), [])
        self.assertIsNotNone(virtio.settings(args(suite="pio,all")))

    def test_dma_adds_the_lone_nic(self):
        """Suite dma: the hub pair and a third NIC on hub 1 with a sink
        port (QEMU drops its frames); no change for suite virtio alone."""
        conf = virtio.settings(args(suite="dma"))
        self.assertEqual(conf, {"transport": "modern", "ioeventfd": "on",
                                "nics": 2, "lone_nic": True})
        argv = virtio.device_args(conf)
        self.assertEqual(argv.count("-device"), 3)
        self.assertEqual(argv.count("-netdev"), 4)
        self.assertIn("hubport,id=tmnet2,hubid=1", argv)
        self.assertIn("hubport,id=tmsink,hubid=1", argv)
        self.assertIn("mac=52:54:00:74:6d:03", argv[argv.index("hubport,id=tmnet2,hubid=1") + 2])
        self.assertTrue(virtio.settings(args(suite="all"))["lone_nic"])
        self.assertNotIn("lone_nic", virtio.settings(args()))

    def test_viommu_sets_iommu_platform(self):
        plain = virtio.device_args(virtio.settings(args(suite="dma")))
        self.assertFalse(any("iommu_platform" in a for a in plain))
        argv = virtio.device_args(virtio.settings(args(suite="dma", viommu="intel")))
        nics = [a for a in argv if a.startswith("virtio-net-pci")]
        self.assertEqual(len(nics), 3)
        self.assertTrue(all("disable-legacy=on" in a and "iommu_platform=on" in a
                            for a in nics), nics)

    def test_viommu_refuses_legacy(self):
        self.assertIn("legacy transport", virtio.validate(
            args(viommu="intel", virtio_transport="legacy")))
        self.assertIn("--virtio-matrix", virtio.validate(
            args(viommu="intel", virtio_matrix=True)))
        self.assertIsNone(virtio.validate(args(viommu="intel")))
        self.assertIsNone(virtio.validate(args(suite="pio", viommu="intel")))
        self.assertIn("legacy transport", virtio.validate(
            args(suite="dma", viommu="off,intel", virtio_transport="legacy")))

    def test_validate(self):
        self.assertIsNone(virtio.validate(args()))
        self.assertIn("--suite virtio", virtio.validate(args(suite="pio", ioeventfd="off")))
        self.assertIn("drop --virtio-transport",
                      virtio.validate(args(virtio_matrix=True, virtio_transport="legacy")))
        self.assertIn("--repeat", virtio.validate(args(virtio_matrix=True, repeat=2)))

    def test_matrix_has_six_paths(self):
        self.assertEqual(len(set(virtio.MATRIX)), 6)


class Labels(unittest.TestCase):
    def test_annotate_and_table(self):
        lines = [b"trapmeter 0.1.0 START",
                 b'@tm {"type":"virtio","transport":"legacy","notify":"pio"}',
                 b'@tm {"type":"result","suite":"virtio","case":"kick.alone",'
                 b'"cycles":{"median":100,"min":90},"ns_median":40}',
                 b'@tm {"type":"result","suite":"virtio","case":"net.64.each",'
                 b'"packets_per_s":1000,"lost":0,"corrupt":2}',
                 b'@tm {"type":"result","suite":"pio","case":"x"}']
        dump = parse_dump(b"\n".join(lines) + b"\n")
        conf = {"transport": "legacy", "ioeventfd": "off", "nics": 2}
        virtio.annotate(dump, conf)
        self.assertEqual(dump.results[0]["virtio"],
                         {"transport": "legacy", "ioeventfd": "off"})
        self.assertNotIn("virtio", dump.results[2])
        boot = {"status": "ok", "results": dump.results}
        boot.update(virtio.boot_fields(dump, conf))
        row = virtio.matrix_row("legacy", "off", boot)
        self.assertEqual((row["kick_cycles"], row["corrupt"], row["notify"]),
                         (100, 2, "pio"))
        on = dict(row, ioeventfd="on", kick_cycles=50, kick_min_cycles=45)
        text = virtio.render_matrix([on, row])
        self.assertIn("kick.alone median cost ioeventfd=off / on: legacy 2.00x", text)
        self.assertIn("kick.alone min cost ioeventfd=off / on: legacy 2.00x", text)
        self.assertIn("legacy/pio", text)


    def test_kicks_with_ioeventfd_are_answered_by_kvm(self):
        """A kick row's handler from the runner's ioeventfd setting: the
        exit-count finding then says the counter cannot see it."""
        def rows():
            return [{"suite": "dma", "case": "vnet.tx.64", "target": "virtio-net.tx",
                     "handler": "none"},
                    {"suite": "virtio", "case": "kick.alone", "handler": "none"},
                    {"suite": "dma", "case": "bm.read.512", "target": "piix-ide.bm",
                     "handler": "user"}]
        for setting, want in (("on", "ioeventfd"), ("off", "none")):
            dump = parse_dump(b"trapmeter 0.1.0 START\n")
            dump.results = rows()
            virtio.annotate(dump, {"transport": "modern", "ioeventfd": setting,
                                   "nics": 2})
            self.assertEqual([r["handler"] for r in dump.results],
                             [want, want, "user"], setting)

if __name__ == "__main__":
    unittest.main()
