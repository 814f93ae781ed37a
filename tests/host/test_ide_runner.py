"""Unit tests of tools/trapmeterlib/guest/ide.py (no QEMU): the disk pattern
matches kernel/suites/idepat.h's definition, sizes parse, the image check finds
a changed sector and names its LBA, the QEMU arguments attach what they
should."""

import os
import struct
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.guest import ide, qemu  # noqa: E402
from trapmeterlib.guest.dump import Dump  # noqa: E402

MASK = (1 << 64) - 1


class Pattern(unittest.TestCase):
    def test_sector_layout(self):
        for lba, seed in ((0, 0), (7, 0), (123456, ide.WRITE_SEED)):
            words = struct.unpack("<64Q", ide.sector(lba, seed))
            self.assertEqual(words[62], lba)
            self.assertEqual(words[61], seed)
            self.assertEqual(sum(words) & MASK, 0)
            self.assertEqual(words[5], (lba * ide.K_LBA + 5 * ide.K_WORD + seed) & MASK)

    def test_sectors_differ(self):
        self.assertNotEqual(ide.sector(1), ide.sector(2))
        self.assertNotEqual(ide.sector(1), ide.sector(1, ide.WRITE_SEED))

    def test_fnv_sum(self):
        # FNV-1a 64 of one zero word: (offset ^ 0) * prime
        self.assertEqual(ide.fnv_sum(bytes(8)),
                         (ide.FNV_OFFSET * ide.FNV_PRIME) & MASK)
        self.assertNotEqual(ide.fnv_sum(bytes(2048)),
                            ide.fnv_sum(bytes(2047) + b"\x01"))


class Options(unittest.TestCase):
    def test_sizes(self):
        self.assertEqual(ide.parse_size("16M"), 16 << 20)
        self.assertEqual(ide.parse_size("16MiB"), 16 << 20)
        self.assertEqual(ide.parse_size("512k"), 512 << 10)
        self.assertEqual(ide.parse_size("1048576"), 1 << 20)
        self.assertEqual(ide.parse_size("0"), 0)

    def test_bad_sizes(self):
        for bad in ("", "x", "-1M", "1000", "1K", "1P", "128G"):
            with self.assertRaises(ide.IdeOptionError, msg=bad):
                ide.parse_size(bad)

    def test_suite_selected(self):
        self.assertTrue(ide.suite_selected(["suite=ide"]))
        self.assertTrue(ide.suite_selected(["suite=pio,all"]))
        self.assertFalse(ide.suite_selected(["suite=ide", "suite=pio"]))
        self.assertFalse(ide.suite_selected(["quick"]))
        # suite dma's bus-master cases read and write the same disk
        self.assertTrue(ide.suite_selected(["suite=dma"]))


class Setup(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tm-ide-")
        self.cfg = qemu.RunConfig(repo_root=self.tmp.name)
        with open(self.cfg.iso if os.path.isdir(os.path.dirname(self.cfg.iso))
                  else self._iso(), "wb") as fh:
            fh.write(bytes(range(256)) * 8 * 3)

    def _iso(self):
        os.makedirs(os.path.dirname(self.cfg.iso))
        return self.cfg.iso

    def tearDown(self):
        self.tmp.cleanup()

    def test_args_and_files(self):
        s = ide.prepare(self.cfg, self.tmp.name, 1 << 20)
        args = " ".join(s.qemu_args)
        self.assertIn("if=ide,index=0,media=disk", args)
        self.assertIn("%s,format=raw,if=ide,index=2,media=cdrom,readonly=on"
                      % os.path.join(self.tmp.name, ide.CD_NAME), args)
        self.assertIn("name=opt/trapmeter/ide,", args)
        self.assertEqual((s.write_lba, s.write_sectors), (1536, 512))
        with open(os.path.join(self.tmp.name, ide.SUMS_NAME), "rb") as fh:
            self.assertEqual(len(fh.read()), 3 * 8)
        with open(os.path.join(self.tmp.name, ide.CFG_NAME), "rb") as fh:
            fields = struct.unpack(ide.CFG_FORMAT, fh.read())
        self.assertEqual(fields, (ide.CFG_MAGIC, 1, 2048, 1536, 512, 0))

    def test_q35_drives_on_piix3_ide(self):
        """q35's own IDE is AHCI: the drives hang on one PIIX3 IDE
        function, disk on its bus 0, CD on bus 1."""
        self.cfg.machine = "q35"
        s = ide.prepare(self.cfg, self.tmp.name, 1 << 20)
        self.assertEqual(s.qemu_args[:2], ["-device", "piix3-ide,id=tmide"])
        args = " ".join(s.qemu_args)
        self.assertEqual(args.count("piix3-ide"), 1)
        self.assertNotIn("if=ide", args)
        self.assertIn("ide-hd,drive=tmdrive0,bus=tmide.0,unit=0", args)
        self.assertIn("ide-cd,drive=tmdrive2,bus=tmide.1,unit=0", args)
        self.assertIn("if=none,id=tmdrive2,media=cdrom,readonly=on", args)
        s = ide.prepare(self.cfg, self.tmp.name, 0, with_cd=False)
        self.assertEqual(s.qemu_args[:2], ["-fw_cfg", "name=opt/trapmeter/ide,file=%s"
                                           % os.path.join(self.tmp.name, ide.CFG_NAME)])

    def test_readonly_and_absent(self):
        s = ide.prepare(self.cfg, self.tmp.name, 1 << 20, readonly=True,
                        with_cd=False)
        self.assertIn("snapshot=on", " ".join(s.qemu_args))
        self.assertNotIn("media=cdrom", " ".join(s.qemu_args))
        self.assertEqual(s.write_sectors, 0)
        s = ide.prepare(self.cfg, self.tmp.name, 0, with_cd=False)
        self.assertNotIn("media=disk", " ".join(s.qemu_args))
        self.cfg.boot = "iso"      # -cdrom is already there
        s = ide.prepare(self.cfg, self.tmp.name, 0)
        self.assertNotIn("media=cdrom", " ".join(s.qemu_args))

    def _dump(self, written=None):
        dump = Dump()
        dump.started = True
        if written:
            dump.other.append(written)
        return dump

    def test_host_check(self):
        s = ide.prepare(self.cfg, self.tmp.name, 1 << 20)
        with open(s.disk_path, "r+b") as fh:
            for lba in range(s.write_lba, s.write_lba + 4):
                fh.seek(lba * 512)
                fh.write(ide.sector(lba, ide.WRITE_SEED))
        rec = {"type": "ide_written", "lba": s.write_lba, "sectors": 4}
        dump = self._dump(rec)
        self.assertIsNone(ide.after_boot(s, dump))
        self.assertIn("4 written sectors", dump.checks[-1]["detail"])
        # the guest claims one more sector than it wrote
        rec["sectors"] = 5
        msg = ide.after_boot(s, self._dump(rec))
        self.assertIn("first at LBA %d" % (s.write_lba + 4), msg)
        # a sector outside the region changed
        with open(s.disk_path, "r+b") as fh:
            fh.seek(77 * 512 + 3)
            fh.write(b"\xff")
        rec["sectors"] = 4
        msg = ide.after_boot(s, self._dump(rec))
        self.assertIn("1 mismatches, first at LBA 77", msg)

    def test_two_suites_written_union(self):
        """Suites ide and dma both write from the region's start: the
        host check takes the union of their ide_written records."""
        s = ide.prepare(self.cfg, self.tmp.name, 1 << 20)
        with open(s.disk_path, "r+b") as fh:
            for lba in range(s.write_lba, s.write_lba + 8):
                fh.seek(lba * 512)
                fh.write(ide.sector(lba, ide.WRITE_SEED))
        dump = self._dump({"type": "ide_written", "lba": s.write_lba, "sectors": 2})
        dump.other.append({"type": "ide_written", "suite": "dma",
                           "lba": s.write_lba, "sectors": 8})
        self.assertIsNone(ide.after_boot(s, dump))
        self.assertIn("8 written sectors", dump.checks[-1]["detail"])

    def test_write_outside_region_rejected(self):
        s = ide.prepare(self.cfg, self.tmp.name, 1 << 20)
        rec = {"type": "ide_written", "lba": 0, "sectors": 1}
        self.assertIn("outside the writable region",
                      ide.after_boot(s, self._dump(rec)))


if __name__ == "__main__":
    unittest.main()
