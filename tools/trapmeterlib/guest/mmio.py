"""The mmio suite's side of the runner: the QEMU devices whose MMIO (and
I/O BARs) the guest measures, per handler class:

  -device pc-testdev      64 KiB at 0xff000000 that QEMU answers and that
                          stores what is written (handler user)
  -device pci-testdev     the ioeventfd test registers kvm-unit-tests'
                          vmexit uses: BAR0 (MMIO) and BAR1 (I/O ports)
  -device e1000           most of BAR0 is coalesced MMIO (hw/net/e1000.c),
                          on its own hub with nothing else on it
  -vga std                VGA's legacy window 0xa0000-0xbffff is coalesced
                          MMIO (hw/display/vga.c); the guest writes the
                          text buffer at 0xb8000

They are attached when the selected suites need them: suite mmio (or
all), or suite pio with a --case glob that can match one of its ptd.*
cases (they use pci-testdev's I/O BAR).  Attaching them costs the boot
SeaBIOS (qboot leaves their BARs unassigned): about 4 s of an 8.7 s boot
of ten pio/exits cases under KVM here.  `--mmio-devices off` leaves them out, so the guest's skip paths
can be seen; `on` attaches them whatever the suites."""

from ..values.numbers import is_number
from ..values.texttable import aligned

SUITE = "mmio"
PTD_PREFIX = "ptd."      # pio's extended cases on pci-testdev's I/O BAR
CHOICES = ("auto", "on", "off")
E1000_MAC = "52:54:00:74:6d:e1"
E1000_HUB = 7            # not the virtio suite's hub 0


def add_options(add):
    """Runner options (called from commands.run.add_parser)."""
    add("--mmio-devices", choices=CHOICES, default="auto",
        help="attach pc-testdev, pci-testdev, an e1000 and -vga std for the mmio "
        "suite (auto: when suite mmio/all is selected, or pio with a --case "
        "glob that can match a ptd.* case; off: never, to see the skips; "
        "on: always)")


def _suites(words):
    chosen = []
    for word in words:
        if word.startswith("suite="):
            chosen = word[len("suite="):].split(",")
    return chosen


def wanted(words, mode="auto"):
    """Do the kernel words (or the mode) ask for the mmio devices?"""
    if mode != "auto":
        return mode == "on"
    suites = _suites(words)
    if SUITE in suites or "all" in suites:
        return True
    return "pio" in suites and any(
        glob_may_start(g, PTD_PREFIX) for g in _case_globs(words))


def _case_globs(words):
    globs = []
    for word in words:
        if word.startswith("case="):
            globs = word[len("case="):].split(",")
    return [g for g in globs if g]


def _class_end(glob, i):
    """Index just past the [...] class that opens at glob[i], or None when
    it is unterminated (then '[' is a literal, as in the kernel)."""
    j = i + 1
    if j < len(glob) and glob[j] in "!^":
        j += 1
    j += 1                       # a ']' right after '[' is a member
    while j < len(glob) and glob[j] != "]":
        j += 1
    return j + 1 if j < len(glob) else None


def _class_has(cls, ch):
    body = cls[1:-1]
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    hit, k = False, 0
    while k < len(body):
        lo = hi = body[k]
        if k + 2 < len(body) and body[k + 1] == "-":
            hi, k = body[k + 2], k + 3
        else:
            k += 1
        hit = hit or lo <= ch <= hi
    return hit != negate


def glob_may_start(glob, prefix):
    """Can the kernel's case glob (*, ?, [...] as in kernel/cmdline.c)
    match some case name that starts with prefix?"""
    i = 0
    for ch in prefix:
        if i >= len(glob):
            return False
        if glob[i] == "*":
            return True
        end = _class_end(glob, i) if glob[i] == "[" else None
        if end is not None:
            if not _class_has(glob[i:end], ch):
                return False
            i = end
        elif glob[i] == "?" or glob[i] == ch:
            i += 1
        else:
            return False
    return True


def device_args(words, mode="auto"):
    """QEMU arguments for the mmio suite's devices (empty when unwanted)."""
    if not wanted(words, mode):
        return []
    return ["-device", "pc-testdev",
            "-device", "pci-testdev",
            "-vga", "std",
            "-netdev", "hubport,id=tme1000,hubid=%d" % E1000_HUB,
            "-device", "e1000,netdev=tme1000,mac=%s,romfile=" % E1000_MAC]


# ---------------------------------------------------------------- afterwards

TOLERANCE = 0.10
MIN_PER_OP = 0.5


def _to_qemu_counter(res, stats):
    """mmio_exits for MMIO rows; for ports io_exits when the host counts
    them, else exits (on PVM the latter counts the QEMU round trips)."""
    if "addr" in res:
        return "mmio_exits" if "mmio_exits" in stats else None
    if stats.get("io_exits"):
        return "io_exits"
    return "exits" if "exits" in stats else None


def annotate(results):
    """Beside exits_measured (VM exits), the round trips to QEMU that the
    model predicts in exits_to_qemu_model: exits_to_qemu_measured, its
    counter, and exits_to_qemu_mismatch (10 %; a model of 0 must measure
    under half a round trip per op).  perf's count of exits to userspace
    (exits_perf_user, one untimed sample) is preferred when it is there
    and the model is 0 or at least one per op: it is exact, where QMP's
    counters carry the background exits of a whole window (and on PVM
    io_exits stays 0); a fraction per op (a coalesced ring filling once
    per 170 writes) needs QMP's many-op average."""
    for res in results:
        model = res.get("exits_to_qemu_model")
        stats = res.get("exit_stats_per_op")
        if not is_number(model):
            continue
        if is_number(res.get("exits_perf_user")) and (model == 0 or model >= 1):
            name, got = "perf_user", res["exits_perf_user"]
        elif isinstance(stats, dict) and _to_qemu_counter(res, stats):
            name = _to_qemu_counter(res, stats)
            got = stats[name]
        else:
            continue
        res["exits_to_qemu_measured"] = got
        res["exits_to_qemu_counter"] = name
        res["exits_to_qemu_mismatch"] = bool(
            abs(got - model) > TOLERANCE * model if model > 0
            else got >= MIN_PER_OP)
    return results


def render(results):
    """The handler-class view: VM exits and round trips to QEMU, model
    against measured, for every row that carries both."""
    rows = [r for r in results if "exits_to_qemu_model" in r]
    if not rows:
        return ""
    head = ("case", "handler", "exits (model)", "exits meas.",
            "to QEMU (model)", "to QEMU meas.", "cycles/op")
    table = [head]
    for r in rows:
        meas = r.get("exits_to_qemu_measured")
        table.append((r.get("case", "?"), r.get("handler", "?"),
                      _num(r.get("exits_model")), _num(r.get("exits_measured")),
                      _num(r.get("exits_to_qemu_model")),
                      _num(meas) + (" !" if r.get("exits_to_qemu_mismatch") else ""),
                      _num((r.get("cycles") or {}).get("median"))))
    lines = ["", "handler classes (per op; ! = round trips to QEMU differ from "
             "the model by more than 10 %):"] + aligned(table, left=2)
    return "\n".join(lines) + "\n"


def _num(value):
    if not is_number(value):
        return "-"
    return "%.3g" % value if abs(value) < 100 else "%d" % round(value)
