"""Host fingerprint: what the cost of a trap depends on outside the guest.

Kernel release and command line, KVM module parameters, the backend that
serves /dev/kvm (VT-x, AMD-V, PVM), CPU model, stepping and microcode, the
frequency driver, governor and boost state, the enabled idle states, SMT,
the CPU vulnerability mitigations, transparent huge pages, and the QEMU
binary (version, ELF build id).  Per boot: the load when it started (other
busy processes) and the host CPUs QEMU's threads ran on.

Every reader takes a `root` (the host's "/" by default) so that the host
tests can point it at a fake directory tree; the parsers below take text
and hold no I/O."""

import hashlib
import os
import struct

from . import hostinfo

SYS_CPU = "sys/devices/system/cpu"
KVM_MODULES = ("kvm", "kvm_intel", "kvm_amd", "kvm_pvm")
NT_GNU_BUILD_ID = 3
PT_NOTE = 4
ELF_HEADER = 64
MAX_NOTE = 1 << 16          # a note segment larger than this is not read
MAX_PHDRS = 256
SCRIPT_HASH_MAX = 1 << 20   # a wrapper script is hashed up to 1 MiB


# ---------------------------------------------------------------- parsers

def first_cpu(cpuinfo_text):
    """{"vendor", "family", "model", "model_name", "stepping",
    "microcode"} of the first processor block of /proc/cpuinfo (None
    where the line is missing)."""
    keys = {"vendor_id": "vendor", "cpu family": "family",
            "model": "model", "model name": "model_name",
            "stepping": "stepping", "microcode": "microcode"}
    out = dict.fromkeys(keys.values())
    for line in cpuinfo_text.splitlines():
        if not line.strip():
            if any(v is not None for v in out.values()):
                break
            continue
        key, _, value = line.partition(":")
        name = keys.get(key.strip())
        if name and out[name] is None:
            out[name] = value.strip()
    return out


def bracketed(text):
    """The [selected] word of a sysfs choice ("always [madvise] never"),
    or the stripped text when nothing is bracketed; None for no text."""
    if text is None:
        return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return text.strip() or None


def onoff(text):
    """"1"/"on" -> True, "0"/"off" -> False, else None."""
    value = (text or "").strip().lower()
    if value in ("1", "on", "y"):
        return True
    if value in ("0", "off", "n"):
        return False
    return None


def summarize(per_cpu):
    """{cpu: value} -> the one value all share, or {value: [cpus]} when
    they differ (None when no CPU has one)."""
    seen = {}
    for cpu in sorted(per_cpu):
        if per_cpu[cpu] is not None:
            seen.setdefault(per_cpu[cpu], []).append(cpu)
    if not seen:
        return None
    if len(seen) == 1:
        return next(iter(seen))
    return {str(k): v for k, v in sorted(seen.items(), key=str)}


def boost_state(boost_text, no_turbo_text):
    """Turbo/boost on (True), off (False) or unknown (None): cpufreq's
    global "boost" file, else intel_pstate's "no_turbo" (inverted)."""
    value = onoff(boost_text)
    if value is not None:
        return value
    value = onoff(no_turbo_text)
    return None if value is None else not value


def proc_stat_fields(text):
    """(pid, comm, state, processor) from one /proc/PID/stat line, or
    None.  comm may hold spaces and parentheses: it ends at the last ')'."""
    try:
        left, _, rest = text.rpartition(")")
        pid_text, _, comm = left.partition("(")
        fields = rest.split()
        return int(pid_text), comm, fields[0], int(fields[36])
    except (ValueError, IndexError):
        return None


def loadavg(text):
    """1-minute load average from /proc/loadavg, or None."""
    try:
        return float(text.split()[0])
    except (AttributeError, IndexError, ValueError):
        return None


# ---------------------------------------------------------------- ELF notes

def elf_build_id(read):
    """The GNU build id (hex) of an ELF file, from its PT_NOTE segments;
    `read(offset, size)` returns bytes.  None when the file is no ELF or
    has no build id note."""
    head = read(0, ELF_HEADER)
    if len(head) < 52 or head[:4] != b"\x7fELF":
        return None
    wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
    if wide and len(head) >= ELF_HEADER:
        phoff, = struct.unpack_from(order + "Q", head, 32)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
    else:
        phoff, = struct.unpack_from(order + "I", head, 28)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 42)
    for i in range(min(phnum, MAX_PHDRS)):
        ph = read(phoff + i * phentsize, phentsize)
        if wide and len(ph) >= 56:
            ptype, = struct.unpack_from(order + "I", ph, 0)
            off, size = struct.unpack_from(order + "Q", ph, 8)[0], \
                struct.unpack_from(order + "Q", ph, 32)[0]
        elif not wide and len(ph) >= 32:
            ptype, off = struct.unpack_from(order + "II", ph, 0)
            size, = struct.unpack_from(order + "I", ph, 16)
        else:
            return None
        if ptype == PT_NOTE and 0 < size <= MAX_NOTE:
            found = note_build_id(read(off, size), order)
            if found:
                return found
    return None


def note_build_id(data, order="<"):
    """The NT_GNU_BUILD_ID descriptor (hex) among the notes in `data`."""
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from(order + "III", data, pos)
        name_at = pos + 12
        desc_at = name_at + _align4(namesz)
        end = desc_at + _align4(descsz)
        if end > len(data):
            return None
        name = data[name_at:name_at + namesz].rstrip(b"\0")
        if ntype == NT_GNU_BUILD_ID and name == b"GNU":
            return data[desc_at:desc_at + descsz].hex()
        pos = end
    return None


def _align4(n):
    return (n + 3) & ~3


# ---------------------------------------------------------------- readers

class Host:
    """Reads the host's files below `root` ("/" on a real host)."""

    def __init__(self, root="/"):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, rel)

    def text(self, rel):
        """File contents, stripped, or None when it cannot be read."""
        try:
            with open(self.path(rel), encoding="utf-8",
                      errors="replace") as fh:
                return fh.read().strip()
        except OSError:
            return None

    def names(self, rel):
        try:
            return sorted(os.listdir(self.path(rel)))
        except OSError:
            return []

    def cpus(self):
        """The cpuN directory numbers."""
        return [int(n[3:]) for n in self.names(SYS_CPU)
                if n.startswith("cpu") and n[3:].isdigit()]


def kvm_params(hst):
    """{module: {parameter: value}} of the loaded KVM modules."""
    out = {}
    for module in KVM_MODULES:
        rel = os.path.join("sys/module", module, "parameters")
        names = hst.names(rel)
        if names:
            out[module] = {n: hst.text(os.path.join(rel, n)) for n in names}
    return out


def cpufreq(hst):
    """{"driver", "governor", "boost"}: None each where the host has no
    cpufreq (a guest, or a kernel without it)."""
    driver, governor = {}, {}
    for cpu in hst.cpus():
        rel = os.path.join(SYS_CPU, "cpu%d" % cpu, "cpufreq")
        driver[cpu] = hst.text(os.path.join(rel, "scaling_driver"))
        governor[cpu] = hst.text(os.path.join(rel, "scaling_governor"))
    return {"driver": summarize(driver), "governor": summarize(governor),
            "boost": boost_state(
                hst.text(os.path.join(SYS_CPU, "cpufreq/boost")),
                hst.text(os.path.join(SYS_CPU, "intel_pstate/no_turbo")))}


def idle_states(hst):
    """{"driver", "governor", "enabled"}: the enabled cpuidle states by
    name (the same on every CPU, or per CPU when they differ)."""
    enabled = {}
    for cpu in hst.cpus():
        rel = os.path.join(SYS_CPU, "cpu%d" % cpu, "cpuidle")
        names = [hst.text(os.path.join(rel, s, "name"))
                 for s in hst.names(rel) if s.startswith("state")
                 and hst.text(os.path.join(rel, s, "disable")) == "0"]
        enabled[cpu] = ",".join(n for n in names if n) or None
    return {"driver": hst.text(os.path.join(SYS_CPU,
                                            "cpuidle/current_driver")),
            "governor": hst.text(os.path.join(SYS_CPU,
                                              "cpuidle/current_governor")),
            "enabled": summarize(enabled)}


def vulnerabilities(hst):
    rel = os.path.join(SYS_CPU, "vulnerabilities")
    return {n: hst.text(os.path.join(rel, n)) for n in hst.names(rel)}


def host_facts(hst):
    """The host part of the fingerprint (everything but QEMU)."""
    cpuinfo = hst.text("proc/cpuinfo") or ""
    thp = "sys/kernel/mm/transparent_hugepage"
    return {
        "kernel": {"release": hst.text("proc/sys/kernel/osrelease"),
                   "cmdline": hst.text("proc/cmdline")},
        "backend": hostinfo.kvm_flavour(cpuinfo, hst.path("sys/module/kvm_pvm")),
        "kvm": kvm_params(hst),
        "cpu": first_cpu(cpuinfo),
        "cpufreq": cpufreq(hst),
        "idle": idle_states(hst),
        "smt": {"control": hst.text(os.path.join(SYS_CPU, "smt/control")),
                "active": onoff(hst.text(os.path.join(SYS_CPU,
                                                      "smt/active")))},
        "vulnerabilities": vulnerabilities(hst),
        "thp": {"enabled": bracketed(hst.text(thp + "/enabled")),
                "defrag": bracketed(hst.text(thp + "/defrag"))},
    }


def binary_facts(path, version=None):
    """{"path", "realpath", "kind", "build_id" | "sha256", "version"} of
    a QEMU (or wrapper script): an ELF's build id, a script's hash."""
    if path is None:
        return None
    real = os.path.realpath(path)
    out = {"path": path, "realpath": real, "version": version,
           "kind": None, "build_id": None, "sha256": None}
    try:
        with open(real, "rb") as fh:
            head = fh.read(4)

            def read(offset, size):
                fh.seek(offset)
                return fh.read(size)
            if head == b"\x7fELF":
                out["kind"], out["build_id"] = "elf", elf_build_id(read)
            else:
                out["kind"] = "script" if head[:2] == b"#!" else "other"
                out["sha256"] = hashlib.sha256(
                    read(0, SCRIPT_HASH_MAX)).hexdigest()
    except OSError as exc:
        out["kind"] = "unreadable: %s" % (exc.strerror or exc)
    return out


def collect(qemu=None, root="/", version=None):
    """The "fingerprint" object of results.json's "host" (`version`: the
    QEMU version when the caller has asked the binary already)."""
    facts = host_facts(Host(root))
    facts["qemu"] = binary_facts(qemu, version or hostinfo.qemu_version(qemu)) \
        if qemu else None
    return facts


# ---------------------------------------------------------------- per boot

def processes(hst):
    """[(pid, comm, state, processor)] of every process on the host."""
    out = []
    for name in hst.names("proc"):
        if name.isdigit():
            fields = proc_stat_fields(hst.text("proc/%s/stat" % name) or "")
            if fields:
                out.append(fields)
    return out


def load_at_start(hst=None, own=()):
    """{"loadavg_1m", "running_others": [comm, ...]}: the load when a boot
    starts; `own` are the pids of this tool (left out)."""
    hst = hst or Host()
    mine = set(own) | {os.getpid()}
    busy = sorted(comm for pid, comm, state, _ in processes(hst)
                  if state == "R" and pid not in mine)
    return {"loadavg_1m": loadavg(hst.text("proc/loadavg")),
            "running_others": busy}


def children(pid, hst=None):
    """The child pids of process `pid` (every thread's children file)."""
    hst = hst or Host()
    out = []
    for tid in hst.names("proc/%d/task" % pid):
        text = hst.text("proc/%d/task/%s/children" % (pid, tid)) or ""
        out += [int(w) for w in text.split() if w.isdigit()]
    return out


def descendants(pid, hst, skip=(), depth=3):
    """The children of `pid`, theirs, ... `depth` generations down (a
    wrapper script that does not exec keeps QEMU one level below), less
    `skip` and what runs below it."""
    out, level = [], [pid]
    for _ in range(depth):
        level = [c for p in level for c in children(p, hst) if c not in skip]
        out += level
    return out


def thread_cpus(pid, hst=None):
    """{comm: {cpu, ...}}: the host CPU each thread of `pid` last ran on."""
    hst = hst or Host()
    out = {}
    for tid in hst.names("proc/%d/task" % pid):
        fields = proc_stat_fields(
            hst.text("proc/%d/task/%s/stat" % (pid, tid)) or "")
        if fields:
            out.setdefault(fields[1], set()).add(fields[3])
    return out


class CpuSampler:
    """The host CPUs the children of this process (QEMU) ran on, sampled
    whenever `sample` is called (at the dump's suite and case lines, at
    most every `every` seconds: each sample reads a file per thread)."""

    def __init__(self, hst=None, skip=(), every=1.0):
        self.hst = hst or Host()
        self.skip = set(skip)       # pids not to sample (testpmd)
        self.every = every
        self.last = None
        self.seen = {}

    def sample(self, now):
        if self.last is not None and now - self.last < self.every:
            return
        self.last = now
        for pid in descendants(os.getpid(), self.hst, self.skip):
            for comm, cpus in thread_cpus(pid, self.hst).items():
                self.seen.setdefault(comm, set()).update(cpus)

    def result(self):
        """{"threads": {comm: [cpus]}, "cpus": [all cpus]}."""
        every = sorted(set().union(*self.seen.values())) if self.seen else []
        return {"threads": {k: sorted(v) for k, v in sorted(
            self.seen.items())}, "cpus": every}
