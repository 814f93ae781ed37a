"""Build the QEMU command line and run one boot with a wall-clock timeout.

Argument building is pure (config in, argv out) so every accel/boot/firmware
combination can be tested without QEMU; running streams COM1 through the
incremental dump parser so progress and the last started case are known even
when QEMU has to be killed."""

import fnmatch
import os
import selectors
import shutil
import subprocess
import time
from dataclasses import dataclass, field

from ..system import children
from ..values import exitstatus
from ..values.errors import TrapmeterError
from . import firmware_suite
from .dump import DumpParser

ELF_REL = os.path.join("build", "trapmeter.elf")
ISO_REL = os.path.join("build", "trapmeter.iso")
OVMF_CODE = os.environ.get("TRAPMETER_OVMF_CODE",
                           "/usr/share/OVMF/OVMF_CODE.fd")
OVMF_VARS = os.environ.get("TRAPMETER_OVMF_VARS",
                           "/usr/share/OVMF/OVMF_VARS.fd")
# qboot: a minimal BIOS that starts a -kernel in a fraction of SeaBIOS's
# time (0.5 s against 4.2 s to the kernel under KVM on PVM here).
QBOOT = os.environ.get("TRAPMETER_QBOOT", "/usr/share/qemu/qboot.rom")
BLOB_NAME = "blob.bin"
BLOB_SIZE = 65536
VARS_NAME = "OVMF_VARS.fd"
FWCFG_BLOB = "opt/trapmeter/blob"
FWCFG_CMDLINE = "opt/trapmeter/cmdline"
DEFAULT_TIMEOUT = {"tcg": 300.0, "kvm": 1800.0}
KILL_GRACE_S = 2.0
DRAIN_S = 1.0
STDERR_POLL_S = 0.5
# QEMU messages after which the VM is stopped but QEMU keeps running, so
# waiting for the timeout would only waste time.
FATAL_STDERR = (b"KVM internal error",)
# records passed to on_sync: the sync points and the case lines naming them
SYNC_FEED = ("sync", "case")


class QemuStartError(TrapmeterError):
    """QEMU could not be executed at all."""

    code = exitstatus.QEMU_ERROR


@dataclass
class RunConfig:
    """Everything needed to build one QEMU command line."""
    repo_root: str
    accel: str = "tcg"              # resolved: "kvm" or "tcg"
    boot: str = "direct"            # "direct" or "iso"
    firmware: str = "bios"          # "bios" or "uefi"
    machine: str = "pc"
    words: list = field(default_factory=list)
    extra: list = field(default_factory=list)
    qemu: str = "qemu-system-x86_64"
    ovmf_code: str = OVMF_CODE
    kernel_irqchip: str = "on"      # KVM only: "on" or "off"
    smp: int = 1                    # vCPUs (2 for suite exits' ipi case)
    qmp_path: str = None            # QMP socket (exit counting) or None

    @property
    def cmdline(self):
        return " ".join(self.words)

    @property
    def elf(self):
        return os.path.join(self.repo_root, ELF_REL)

    @property
    def iso(self):
        """Suite firmware boots its own image (guest/firmware_suite.py)."""
        return os.path.join(self.repo_root, firmware_suite.iso_rel(self.words))


def kernel_words(suite=None, case=None, quick=False, cmdline="",
                 flavour=None):
    """Kernel command-line words, plus notes to print on stderr.

    Under a software KVM (PVM) the guest's vmcall never returns, so
    hypercall=off is added unless the user chose a hypercall= value."""
    words, notes = [], []
    if suite:
        words.append("suite=" + suite)
    if case:
        words.append("case=" + case)
    if quick:
        words.append("quick")
    user = (cmdline or "").split()
    if flavour == "pvm" and not any(w.startswith("hypercall=") for w in user):
        words.append("hypercall=off")
        notes.append("KVM backend is PVM (software): adding hypercall=off "
                     "(vmcall never returns there; override with --cmdline "
                     "hypercall=...)")
    if flavour == "pvm" and not any(w.startswith("pvm=") for w in user):
        words.append("pvm=on")     # the guest skips what stops the VM there
    return words + user, notes


def runner_table_off(words):
    """The runner prints its own table from the result lines, so the guest
    skips its console rows (kernel word table=off: each costs ~8 ms under
    a software hypervisor) unless a table= word was given."""
    if any(w.startswith("table=") for w in words):
        return list(words)
    return list(words) + ["table=off"]


# Cases that need a second vCPU (kernel/suites/irq.c, exits_ple.c).
SMP_CASES = ("ipi", "ipi.halt", "ipi.on_cpu", "ipi.halt.on_cpu", "ple.round_robin",
             "ple.round_robin.insn.paired", "ipi.on_cpu.insn.paired")
SMP_CHOICES = ("auto", "1", "2")


def smp_for(words, mode="auto"):
    """vCPUs for the boot: --smp 1|2 as given; auto: 2 only when a case=
    glob selects a case that needs the second vCPU (a plain run, and
    --suite all without --case, stay at one: the ipi case then skips with
    its reason)."""
    if mode != "auto":
        return int(mode)
    globs = []
    for word in words:
        if word.startswith("case="):
            globs = word[len("case="):].split(",")
    hit = any(fnmatch.fnmatchcase(name, g) for g in globs if g
              for name in SMP_CASES)
    return 2 if hit else 1


# The guest keeps BOOTINFO_CMDLINE_MAX - 1 bytes (platform/bootinfo.h).
CMDLINE_MAX = 511


# The guest's run record (kernel/main.c, RUN_LINE_MAX: 1535 bytes of JSON)
# carries the command line JSON-escaped beside ~720 bytes of other fields
# at their longest (a 48-character CPU brand, a loader and firmware vendor
# of 32, 20-digit numbers); a longer record is dropped ("machine line too
# long") and the table header is lost, so the runner keeps the escaped
# command line within this room (a line of printable ASCII without quotes
# fits whole: CMDLINE_MAX).
RUN_RECORD_ROOM = 812


def json_escaped_size(text):
    """Bytes of text as the guest's JSON writer escapes it (lib/json.c):
    '"' and '\\' take 2, other bytes outside printable ASCII 6 (\\u00XX)."""
    size = 0
    for byte in text.encode("utf-8"):
        size += 2 if byte in (0x22, 0x5c) else 1 if 0x20 <= byte < 0x7f \
            else 6
    return size


def cmdline_problem(words):
    """Why the kernel command line cannot be passed whole, or None."""
    line = " ".join(words)
    size = len(line.encode("utf-8"))
    if size > CMDLINE_MAX:
        return ("kernel command line is %d bytes; the guest keeps at most %d "
                "(platform/bootinfo.h BOOTINFO_CMDLINE_MAX): shorten --cmdline "
                "/ --case" % (size, CMDLINE_MAX))
    escaped = json_escaped_size(line)
    if escaped > RUN_RECORD_ROOM:
        return ("kernel command line is %d bytes (%d JSON-escaped); the "
                "guest's run record carries at most %d beside its other "
                "fields (kernel/main.c RUN_LINE_MAX): shorten --cmdline / "
                "--case" % (size, escaped, RUN_RECORD_ROOM))
    return None


# Kernel words a runner option sets (the one rule, docs/design.md "The
# runner"): each kernel word is given once; a --cmdline word with the key
# of one of these options is refused, whichever of the two came first.
# Words the runner adds as defaults (hypercall=off and pvm=on under PVM,
# table=off) give way to a --cmdline word with their key.
OPTION_KEYS = {"suite": "--suite", "case": "--case", "quick": "--quick",
               "rounds": "--rounds"}
SYNC_WHY = ("kernel word sync= is the runner's: it adds sync=on when it "
            "counts exits (--count-exits, KVM) and answers the guest at each "
            "sync point; a guest given sync=on by hand would wait for a "
            "runner that never answers. Drop it from --cmdline")


def word_key(word):
    return word.split("=", 1)[0]


def words_problem(user, options):
    """Why the --cmdline words `user` break the one rule, or None;
    options: {key: True when its runner option was given}."""
    seen = {}
    for word in user:
        key = word_key(word)
        if key == "sync":
            return SYNC_WHY
        if key in seen:
            return ("kernel word %s= given twice in --cmdline (%r and %r): "
                    "give it once" % (key, seen[key], word))
        seen[key] = word
        if options.get(key):
            return ("%s and the kernel word %r in --cmdline both set %s: "
                    "give one of them" % (OPTION_KEYS[key], word, key))
    return None


def qemu_opt_escape(value):
    """Escape a value for QEMU's key=value,... option syntax (comma -> ,,)."""
    return value.replace(",", ",,")


def make_blob():
    """The fw_cfg test blob the guest verifies byte by byte."""
    return bytes(((i * 7) + (i >> 8) + 0x5a) & 0xff for i in range(BLOB_SIZE))


def prepare_tmpdir(cfg, tmpdir, ovmf_vars=OVMF_VARS):
    """Write the blob and (UEFI) a private writable copy of OVMF_VARS."""
    with open(os.path.join(tmpdir, BLOB_NAME), "wb") as fh:
        fh.write(make_blob())
    if cfg.firmware == "uefi":
        shutil.copyfile(ovmf_vars, os.path.join(tmpdir, VARS_NAME))


# With kernel-irqchip=off this QEMU (7.2) aborts setting MSR_KVM_ASYNC_PF_INT
# (0x4b564d06) on the machine's KVM ("failed to set MSR"): leave the
# interrupt-based async page fault feature out of the CPU model then.
CPU_IRQCHIP_OFF = ",-kvm-asyncpf-int"


def accel_args(accel, kernel_irqchip="on"):
    if accel == "kvm":
        cpu = "host,-arch-capabilities"
        if kernel_irqchip == "off":
            cpu += CPU_IRQCHIP_OFF
        return ["-accel", "kvm,kernel-irqchip=%s" % kernel_irqchip,
                "-cpu", cpu]
    return ["-accel", "tcg", "-cpu", "max"]


def qmp_args(cfg):
    if not cfg.qmp_path:
        return []
    return ["-qmp", "unix:%s,server=on,wait=off"
            % qemu_opt_escape(cfg.qmp_path)]


def fwcfg_args(cfg, tmpdir):
    args = ["-fw_cfg", "name=%s,file=%s" % (
        FWCFG_BLOB, qemu_opt_escape(os.path.join(tmpdir, BLOB_NAME)))]
    if cfg.cmdline:
        args += ["-fw_cfg", "name=%s,string=%s" % (
            FWCFG_CMDLINE, qemu_opt_escape(cfg.cmdline))]
    return args


def boot_args(cfg):
    if cfg.boot == "iso":
        return ["-cdrom", cfg.iso, "-boot", "d"]
    return ["-kernel", cfg.elf, "-append", cfg.cmdline]


def auto_firmware(boot, words, qboot=QBOOT, pci_devices=False):
    """--firmware auto: qboot for a direct boot when it is installed and no
    suite needs what only SeaBIOS sets up (virtio and mmio, and the mmio
    suite's test devices when attached (pci_devices): qboot leaves the PCI
    BARs they need unassigned), else SeaBIOS."""
    suites = [w.split("=", 1)[1] for w in words if w.startswith("suite=")]
    wanted = ",".join(suites[-1:]).split(",") if suites else []
    needs_bios = pci_devices or any(s in ("virtio", "mmio", "dma", "all")
                                    for s in wanted)
    if boot == "direct" and not needs_bios and os.path.isfile(qboot):
        return "qboot"
    return "bios"


def firmware_args(cfg, tmpdir):
    if cfg.firmware == "qboot":
        return ["-bios", QBOOT]
    if cfg.firmware != "uefi":
        return []
    return ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file="
            + qemu_opt_escape(cfg.ovmf_code),
            "-drive", "if=pflash,format=raw,unit=1,file="
            + qemu_opt_escape(os.path.join(tmpdir, VARS_NAME))]


def build_argv(cfg, tmpdir):
    """The full QEMU argv for one boot."""
    return ([cfg.qemu, "-nodefaults", "-no-reboot", "-display", "none",
             "-M", cfg.machine, "-m", "256", "-smp", str(cfg.smp)]
            + accel_args(cfg.accel, cfg.kernel_irqchip)
            + ["-chardev", "stdio,id=ser0,signal=off",
               "-serial", "chardev:ser0",
               "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
               "-chardev", "null,id=dbgcon",
               "-device", "isa-debugcon,iobase=0x402,chardev=dbgcon"]
            + fwcfg_args(cfg, tmpdir) + firmware_args(cfg, tmpdir)
            + qmp_args(cfg) + boot_args(cfg) + list(cfg.extra))


class BootRun:
    """Outcome of running QEMU once: parsed dump, exit status, timing."""

    def __init__(self, dump, rc, timed_out, wall_s, stderr_text, fatal=None,
                 log_error=None):
        self.dump = dump
        self.log_error = log_error
        self.rc = rc
        self.timed_out = timed_out
        self.fatal = fatal
        self.wall_s = wall_s
        self.stderr_text = stderr_text


class QemuProcess:
    """A running QEMU whose COM1 is parsed as it arrives.

    stdin stays an open pipe for the whole boot so that bytes can be sent to
    the guest's serial port later (send())."""

    def __init__(self, argv, stderr_path, log=None, on_record=None,
                 on_sync=None, cpus=None, nice=None):
        """on_sync(rec, self) gets every sync line and every case line
        (which names the sync points after it)."""
        self.parser = DumpParser()
        self.log = log
        self.on_record = on_record
        self.on_sync = on_sync
        self.stderr_path = stderr_path
        self.fatal = None
        self.log_error = None
        self._next_stderr_check = 0.0
        with open(stderr_path, "wb") as err:
            try:
                self.proc = children.spawn(
                    argv, cpus=cpus, nice=nice, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=err)
            except OSError as exc:
                raise QemuStartError("cannot execute %s: %s"
                                     % (argv[0], exc.strerror or exc))
        self.t0 = time.monotonic()

    def elapsed(self):
        return time.monotonic() - self.t0

    def send(self, data):
        """Write bytes to the guest's COM1 input."""
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _take(self, chunk):
        if self.log is not None:
            self._log(chunk)
        for rec in self.parser.feed(chunk):
            # a sync line names no case: the `case` line before it does
            if rec.get("type") in SYNC_FEED and self.on_sync is not None:
                self.on_sync(rec, self)
            if self.on_record is not None:
                self.on_record(rec, self.elapsed())

    def _log(self, chunk):
        """A log that cannot be written (disk full, /dev/full) stops
        logging, not the run; the runner reports it after the boot."""
        try:
            self.log.write(chunk)
            self.log.flush()
        except OSError as exc:
            self.log_error = exc.strerror or str(exc)
            self.log = None

    def flooded(self):
        """The guest floods COM1 (dump.py's caps): stop QEMU early."""
        return self.parser.dump.flood is not None

    def pump(self, deadline):
        """Read COM1 until EOF/exit (False) or the deadline (True)."""
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return True
                if sel.select(min(remaining, 0.2)):
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        break
                    self._take(chunk)
                    if self.flooded():
                        return False
                elif self.proc.poll() is not None:
                    self.drain(DRAIN_S)
                    return False
                if self.stderr_fatal():
                    return False
        try:
            self.proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            return True
        return False

    def stderr_fatal(self):
        """Spot a QEMU message that means the guest stopped for good (e.g.
        "KVM internal error": QEMU pauses the VM and never exits)."""
        now = time.monotonic()
        if self.fatal or now < self._next_stderr_check:
            return self.fatal
        self._next_stderr_check = now + STDERR_POLL_S
        try:
            with open(self.stderr_path, "rb") as fh:
                text = fh.read()
        except OSError:
            return None
        for pattern in FATAL_STDERR:
            if pattern in text:
                self.fatal = pattern.decode()
        return self.fatal

    def drain(self, seconds):
        """Collect what is left in the pipe without waiting forever (a
        leftover child could hold the write end open)."""
        fd = self.proc.stdout.fileno()
        end = time.monotonic() + seconds
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while time.monotonic() < end:
                if not sel.select(max(end - time.monotonic(), 0)):
                    return
                chunk = os.read(fd, 65536)
                if not chunk:
                    return
                self._take(chunk)

    def kill(self):
        """SIGTERM the QEMU process group, SIGKILL after a grace period."""
        children.stop(self.proc, KILL_GRACE_S)

    def close(self):
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass


def run_boot(argv, timeout, stderr_path, log=None, on_record=None,
             on_sync=None, cpus=None, nice=None):
    """Run QEMU once (on the host CPUs `cpus`, at niceness `nice` when
    given); kill it on timeout or interruption."""
    qp = QemuProcess(argv, stderr_path, log, on_record, on_sync, cpus, nice)
    try:
        timed_out = qp.pump(qp.t0 + timeout)
        if timed_out or qp.fatal or qp.flooded():
            qp.kill()
            if not qp.flooded():
                qp.drain(DRAIN_S)
        rc = qp.proc.wait()
    except BaseException:
        qp.kill()
        raise
    finally:
        qp.close()
        children.stop(qp.proc, 0.0)
    wall = qp.elapsed()
    with open(stderr_path, "rb") as fh:
        err = fh.read().decode("utf-8", "replace")
    return BootRun(qp.parser.finish(), rc, timed_out, wall, err, qp.fatal,
                   qp.log_error)
