"""The ide suite's host side: the scratch disk image, the CD checksums,
the QEMU drives and fw_cfg files, the check of the written region after
QEMU exits, and the per-sector table.

The patterns are those of kernel/suites/idepat.h: a disk sector at LBA L written
with seed S is 64 little-endian u64 words w[i] = L*K_LBA + i*K_WORD + S
(i < 61), w[61] = S, w[62] = L, w[63] = the word that makes all 64 sum to
0 mod 2**64. The runner's image uses S = 0; the guest writes WRITE_SEED.
CD sectors are summed with FNV-1a over u64 words."""

import os
import re
import shutil
import struct
from dataclasses import dataclass

from ..stats import speedup
from ..values import figure
from ..values.errors import InputError
from ..values.numbers import is_number
from ..values.texttable import aligned
from .dump import time_mark

MASK = (1 << 64) - 1
SECTOR = 512
CD_SECTOR = 2048
WORDS = SECTOR // 8
W_SEED = 61
K_LBA = 0x9e3779b97f4a7c15
K_WORD = 0xc2b2ae3d27d4eb4f
WRITE_SEED = 0x5752495445
FNV_OFFSET = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3

FWCFG_IDE = "opt/trapmeter/ide"
FWCFG_SUMS = "opt/trapmeter/cd-sums"
CFG_MAGIC = 0x44494d54           # "TMID"
CFG_VERSION = 1
CFG_READONLY = 1
CFG_FORMAT = "<6I"
DISK_NAME = "ide-disk.img"
CFG_NAME = "ide.bin"
CD_NAME = "cd.iso"
SUMS_NAME = "cd-sums.bin"
DEFAULT_DISK_SIZE = 16 * 1024 * 1024
MIN_DISK_SIZE = 64 * 1024
MAX_DISK_SIZE = 64 * 1024 * 1024 * 1024
WRITE_REGION_MAX = 2048          # sectors (1 MiB) at the end of the disk
CD_SUMS_MAX = 2048               # sectors (4 MiB): what the guest reads
CD_INDEX = 2                     # secondary master, as -cdrom
# q35's own IDE is AHCI: there the drives hang on a PIIX3 IDE function
# (QEMU 7.2 accepts -device piix3-ide on q35; its channels take the
# legacy ports), so the ide and dma suites find the same controller.
Q35_IDE_ID = "tmide"
GEN_CHUNK = 2048                 # sectors per write while generating
# Test hook: flip one byte of this LBA in the generated image, so a test
# can watch the guest and the host check name it.
CORRUPT_ENV = "TRAPMETER_IDE_CORRUPT_LBA"
SIZE_RE = re.compile(r"^\s*(\d+)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class IdeOptionError(InputError, ValueError):
    """A bad --ide-* value (the caller turns it into bad-input)."""


def parse_size(text):
    """'16M', '16MiB', '512k', '1048576' -> bytes; 0 means no disk."""
    match = SIZE_RE.match(text or "")
    if not match:
        raise IdeOptionError("--ide-disk-size %r: expected a size such as "
                             "16M, 512K or 1048576 (bytes)" % text)
    size = int(match.group(1)) * UNITS[match.group(2).lower()]
    if size == 0:
        return 0
    if size % SECTOR:
        raise IdeOptionError("--ide-disk-size %s: not a multiple of %d bytes"
                             % (text, SECTOR))
    if not MIN_DISK_SIZE <= size <= MAX_DISK_SIZE:
        raise IdeOptionError("--ide-disk-size %s: must be 0 (no disk) or "
                             "between 64K and 64G" % text)
    return size


def sector(lba, seed=0):
    """The 512 bytes of kernel/suites/idepat.c's idepat_fill(lba, seed)."""
    base = (lba * K_LBA + seed) & MASK
    words = [(base + i * K_WORD) & MASK for i in range(W_SEED)]
    words.append(seed)
    words.append(lba)
    words.append(-sum(words) & MASK)
    return struct.pack("<%dQ" % WORDS, *words)


def fnv_sum(data):
    """kernel/suites/idepat.c's idepat_sum over whole u64 words."""
    h = FNV_OFFSET
    for (word,) in struct.iter_unpack("<Q", data[:len(data) // 8 * 8]):
        h = ((h ^ word) * FNV_PRIME) & MASK
    return h


def write_image(path, sectors, corrupt_lba=None):
    with open(path, "wb") as fh:
        for start in range(0, sectors, GEN_CHUNK):
            end = min(start + GEN_CHUNK, sectors)
            fh.write(b"".join(sector(lba) for lba in range(start, end)))
        if corrupt_lba is not None and 0 <= corrupt_lba < sectors:
            fh.seek(corrupt_lba * SECTOR + SECTOR // 2)
            fh.write(b"\xa5")


def corrupt_lba_from_env():
    value = os.environ.get(CORRUPT_ENV)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise IdeOptionError("%s=%r is not an LBA" % (CORRUPT_ENV, value))


def cd_sums(iso_path, limit=CD_SUMS_MAX):
    """One FNV sum per 2048-byte sector of the first `limit` sectors."""
    out = []
    with open(iso_path, "rb") as fh:
        while len(out) < limit:
            block = fh.read(CD_SECTOR)
            if len(block) < CD_SECTOR:
                break
            out.append(fnv_sum(block))
    return struct.pack("<%dQ" % len(out), *out)


# Suites that use the scratch disk: ide, dma's bus-master cases, and
# firmware's Block I/O reads (the firmware's own IDE driver).
DISK_SUITES = ("ide", "dma", "firmware", "all")


def suite_selected(words):
    """True when the kernel words select a suite that uses the scratch
    disk (last suite= wins)."""
    chosen = None
    for word in words:
        if word.startswith("suite="):
            chosen = word[len("suite="):].split(",")
    return chosen is not None and any(s in chosen for s in DISK_SUITES)


@dataclass
class IdeSetup:
    """What was attached for one run, and how to check it afterwards."""
    disk_path: str = None
    disk_sectors: int = 0
    write_lba: int = 0
    write_sectors: int = 0
    readonly: bool = False
    cd_path: str = None
    qemu_args: list = None


def write_region(sectors):
    """(first LBA, count) the guest may write: the end of the disk."""
    count = min(WRITE_REGION_MAX, sectors // 4)
    return sectors - count, count


def prepare(cfg, tmpdir, disk_size, readonly=False, with_cd=True):
    """Create the image and fw_cfg files; returns an IdeSetup (its
    qemu_args go before the user's extra arguments)."""
    setup = IdeSetup(readonly=readonly, qemu_args=[])
    if disk_size:
        setup.disk_path = os.path.join(tmpdir, DISK_NAME)
        setup.disk_sectors = disk_size // SECTOR
        write_image(setup.disk_path, setup.disk_sectors,
                    corrupt_lba_from_env())
        if not readonly:
            setup.write_lba, setup.write_sectors = write_region(
                setup.disk_sectors)
        # QEMU refuses readonly=on for an IDE disk ("Block node is
        # read-only"); snapshot=on keeps the image file untouched instead.
        setup.qemu_args += _drive(cfg, setup.disk_path, 0, "media=disk%s" % (
            ",snapshot=on" if readonly else ""))
    if with_cd and cfg.boot != "iso":
        # a private copy: a rebuild during the run must not change the
        # bytes the guest reads under the sums computed here
        setup.cd_path = os.path.join(tmpdir, CD_NAME)
        shutil.copyfile(cfg.iso, setup.cd_path)
        setup.qemu_args += _drive(cfg, setup.cd_path, CD_INDEX,
                                  "media=cdrom,readonly=on")
    elif cfg.boot == "iso":
        setup.cd_path = cfg.iso
    if cfg.machine == "q35" and setup.qemu_args:
        setup.qemu_args[:0] = ["-device", "piix3-ide,id=%s" % Q35_IDE_ID]
    blob = struct.pack(CFG_FORMAT, CFG_MAGIC, CFG_VERSION, setup.disk_sectors,
                       setup.write_lba, setup.write_sectors,
                       CFG_READONLY if readonly else 0)
    _fwcfg_file(setup, tmpdir, CFG_NAME, FWCFG_IDE, blob)
    if setup.cd_path and os.path.exists(setup.cd_path):
        _fwcfg_file(setup, tmpdir, SUMS_NAME, FWCFG_SUMS,
                    cd_sums(setup.cd_path))
    return setup


def _drive(cfg, path, index, media):
    """The image at IDE position index (0 primary master, 2 secondary
    master): if=ide on pc; on q35 a drive on the PIIX3 function (prepare
    adds the function)."""
    if cfg.machine != "q35":
        return ["-drive", "file=%s,format=raw,if=ide,index=%d,%s"
                % (_escape(path), index, media)]
    name = "tmdrive%d" % index
    kind = "ide-cd" if "media=cdrom" in media else "ide-hd"
    return ["-drive", "file=%s,format=raw,if=none,id=%s,%s"
            % (_escape(path), name, media), "-device",
            "%s,drive=%s,bus=%s.%d,unit=%d" % (kind, name, Q35_IDE_ID,
                                              index // 2, index % 2)]


def _escape(value):
    return value.replace(",", ",,")


def _fwcfg_file(setup, tmpdir, name, fwname, data):
    path = os.path.join(tmpdir, name)
    with open(path, "wb") as fh:
        fh.write(data)
    setup.qemu_args += ["-fw_cfg", "name=%s,file=%s" % (fwname, _escape(path))]


# ---------------------------------------------------------------- afterwards

def written_record(dump):
    """What the guest reports writing: suites ide and dma each write from
    the start of the writable region and say so in an ide_written record;
    their union (one range from the lowest LBA to the highest end)."""
    recs = [r for r in getattr(dump, "other", []) or []
            if r.get("type") == "ide_written"]
    if not recs:
        return None
    lo = min(int(r.get("lba", 0)) for r in recs)
    hi = max(int(r.get("lba", 0)) + int(r.get("sectors", 0)) for r in recs)
    return dict(recs[0], lba=lo, sectors=hi - lo)


def verify_image(setup, written):
    """Compare the image file with what it must hold now: the runner's
    pattern, and the guest's pattern in the range it reported writing.
    Returns (ok, detail)."""
    lo = hi = 0
    if written is not None and not setup.readonly:
        lo = int(written.get("lba", 0))
        hi = lo + int(written.get("sectors", 0))
        if lo < setup.write_lba or hi > setup.write_lba + setup.write_sectors:
            return False, ("guest reports writing LBA %d..%d outside the "
                           "writable region %d..%d" % (
                               lo, hi - 1, setup.write_lba,
                               setup.write_lba + setup.write_sectors - 1))
    bad, first = 0, None
    with open(setup.disk_path, "rb") as fh:
        for lba in range(setup.disk_sectors):
            data = fh.read(SECTOR)
            seed = WRITE_SEED if lo <= lba < hi else 0
            if data != sector(lba, seed):
                bad += 1
                first = lba if first is None else first
    what = ("%d written sectors (LBA %d..%d) and %d untouched" % (
        hi - lo, lo, hi - 1, setup.disk_sectors - (hi - lo))
        if hi > lo else "%d sectors, none written" % setup.disk_sectors)
    if bad:
        return False, "image on the host: %s; %d mismatches, first at LBA %d" % (
            what, bad, first)
    return True, "image on the host: %s; 0 mismatches" % what


def after_boot(setup, dump):
    """Add the host-side check to the dump; returns a failure message or
    None."""
    if setup is None or setup.disk_path is None or dump is None \
            or not dump.started:
        return None
    ok, detail = verify_image(setup, written_record(dump))
    dump.checks.append({"type": "check", "name": "ide.host_image", "ok": ok,
                        "detail": detail, "source": "host"})
    return None if ok else "ide.host_image failed: " + detail


# ---------------------------------------------------------------- table

def _fmt(value, places=1):
    if not is_number(value):
        return "-"
    return "%.*f" % (places, value)


def render(dump):
    """Per-sector view of the ide rows and the regression lines; a loop/rep
    ratio is the rep row's speed-up (stats/speedup.py), with its interval
    or n.r. and why."""
    rows = [r for r in (dump.results if dump else []) if r.get("suite") == "ide"]
    views = [v for v in (dump.other if dump else []) if v.get("type") == "view"
             and v.get("suite") == "ide"]
    if not rows and not views:
        return ""
    head = ("case", "device", "xfer", "cycles/sector", "MiB/s",
            "exits/sector (model)", "cycles/exit (model)", "REP/loop")
    table, unresolved = [head], {}
    for r in rows:
        fig = row_speedup(r)
        if fig is not None and not fig.resolved:
            unresolved.setdefault(fig.reason, []).append(str(r.get("case")))
        table.append((r.get("case", "?"), r.get("device", "?"),
                      r.get("xfer", "?"), _fmt(r.get("cycles_per_sector"), 0),
                      _fmt(r.get("mib_s"), 2) + time_mark(r), _fmt(r.get("exits_per_sector_model"), 2),
                      figure.SHORT if r.get("cycles_per_exit_model_reason")
                      else _fmt(r.get("cycles_per_exit_model"), 0),
                      "" if fig is None else figure.times_text(fig)))
    lines = ["", "ide per sector:"] + aligned(table, left=3)
    for why, cases in unresolved.items():
        lines.append("  %s in REP/loop: not resolved, %s: %s"
                     % (figure.SHORT, why, ", ".join(cases)))
    for v in views:
        lines.append("regression view: %s %s: loop/rep %s per sector (rep "
                     "insw %s cycles, inw loop %s cycles a sector)" % (
                         v.get("what"), v.get("device"),
                         figure.times_text(view_speedup(v, rows),
                                           short=False),
                         _fmt(v.get("rep_cycles_per_sector"), 0),
                         _fmt(v.get("loop_cycles_per_sector"), 0)))
    return "\n".join(lines) + "\n"


def row_speedup(res):
    """A row's loop/rep figure: its stored speed-up against its loop twin
    (report.add_speedups), or -- where the guest gave a ratio
    (rep_loop_ratio: edk2's probe shape, whose twin is no pair) and no
    speed-up is stored -- not resolved, NO_TWIN; None for a loop row."""
    fig = speedup.stored(res)
    if fig is None and is_number(res.get("rep_loop_ratio")):
        return figure.not_resolved(NO_TWIN)
    return fig


NO_TWIN = "no interval: its loop twin is not its pair"
NO_VIEW_ROW = "the view's rep insw row is not in the results"


def view_row(view, results):
    """The rep insw row a regression view divides by: of the view's device,
    with the view's per-sector figure (the guest writes both from the same
    median with the same arithmetic, kernel/suites/ide.c)."""
    for res in results:
        if res.get("suite") == "ide" and res.get("xfer") == "rep insw" \
                and res.get("device") == view.get("device") \
                and is_number(res.get("cycles_per_sector")) \
                and res.get("cycles_per_sector") == view.get(
                    "rep_cycles_per_sector"):
            return res
    return None


def view_speedup(view, results):
    """A view's loop/rep ratio by the rule: its rep row's speed-up."""
    row = view_row(view, results)
    return (speedup.stored(row) if row else None) or \
        figure.not_resolved(NO_VIEW_ROW)
