"""Host facts: can KVM be used, what kind of KVM it is, QEMU version.

Detection is separated from its inputs (cpuinfo text, sysfs directory) so
that the flavour logic is testable on any machine."""

import errno
import fcntl
import os
import platform
import re
import subprocess

from . import children

KVM_DEV = "/dev/kvm"
KVM_CREATE_VM = 0xAE01
PVM_MODULE_DIR = "/sys/module/kvm_pvm"
CPUINFO = "/proc/cpuinfo"
SOFTWARE_FLAVOURS = ("pvm", "unknown")


def kvm_usable(dev=KVM_DEV):
    """(True, why) if a VM can actually be created, else (False, why).

    Opening /dev/kvm is not enough: nested or software hypervisors may
    expose the device but refuse KVM_CREATE_VM."""
    try:
        fd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
    except OSError as exc:
        return False, "cannot open %s: %s" % (dev, _os_reason(exc))
    try:
        vm_fd = fcntl.ioctl(fd, KVM_CREATE_VM, 0)
    except OSError as exc:
        return False, "KVM_CREATE_VM on %s failed: %s" % (dev, _os_reason(exc))
    finally:
        os.close(fd)
    os.close(vm_fd)
    return True, "%s can create a VM" % dev


def _os_reason(exc):
    if exc.errno == errno.ENOENT:
        return "no such device (KVM module not loaded / not in a VM-capable " \
               "host)"
    if exc.errno == errno.EACCES:
        return "permission denied (join the 'kvm' group)"
    return exc.strerror or str(exc)


def read_text(path):
    """File contents or "" (host facts are best-effort)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def cpu_flags(cpuinfo_text):
    """Set of the first 'flags' line's words."""
    for line in cpuinfo_text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return set()


def kvm_flavour(cpuinfo_text=None, pvm_dir=PVM_MODULE_DIR):
    """"vt-x", "amd-v", "pvm" or "unknown": what backs /dev/kvm here."""
    if cpuinfo_text is None:
        cpuinfo_text = read_text(CPUINFO)
    flags = cpu_flags(cpuinfo_text)
    if "vmx" in flags:
        return "vt-x"
    if "svm" in flags:
        return "amd-v"
    if os.path.isdir(pvm_dir):
        return "pvm"
    return "unknown"


def host_cpu(cpuinfo_text=None):
    """The host's 'model name' from /proc/cpuinfo, or None."""
    if cpuinfo_text is None:
        cpuinfo_text = read_text(CPUINFO)
    for line in cpuinfo_text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name":
            return value.strip()
    return None


def qemu_version(qemu, timeout=5):
    """Version of the QEMU binary (e.g. "7.2.22"), or None if unknown."""
    if qemu is None:
        return None
    try:
        proc = children.run([qemu, "--version"], stdin=subprocess.DEVNULL,
                         capture_output=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    first = proc.stdout.decode("utf-8", "replace").strip().splitlines()
    if not first:
        return None
    match = re.search(r"version (\S+)", first[0])
    return match.group(1) if match else first[0]


def host_info(qemu, accel, flavour):
    """The "host" object of results.json."""
    return {"qemu_version": qemu_version(qemu), "accel": accel,
            "kvm_flavour": flavour if accel == "kvm" else None,
            "host_cpu": host_cpu(), "kernel": platform.release(),
            "hostname_hash": None}
