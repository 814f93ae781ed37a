"""tools/trapmeterlib/system/pinning.py - which host CPUs QEMU may run on
(run --pin-cpu).

On a shared host the scheduler moves QEMU's vCPU thread between CPUs, and
each move costs the guest cold caches and a wait for the CPU it lands on;
pinning every QEMU thread to one CPU removes that source of boot-to-boot
spread (see docs/design.md, "Pinning").  The affinity is set in the child
between fork and exec, so every thread QEMU creates inherits it.
"""

import os

from ..values.errors import InputError

CHOICES_HELP = "none, auto (the last CPU this process may use), or a list like 1 or 0,2-3"


class PinError(InputError, ValueError):
    """A --pin-cpu value that names no usable CPU."""


def allowed_cpus():
    """The CPUs this process may run on."""
    return sorted(os.sched_getaffinity(0))


def _expand(part):
    lo, sep, hi = part.partition("-")
    if not lo.isdigit() or (sep and not hi.isdigit()):
        raise PinError("--pin-cpu: %r is not a CPU number or range" % part)
    first, last = int(lo), int(hi) if sep else int(lo)
    if last < first:
        raise PinError("--pin-cpu: range %r runs backwards" % part)
    return range(first, last + 1)


def parse(text, allowed):
    """The CPU set for `text` (None: do not pin).  `allowed` is the CPUs
    this process may use; a CPU outside it is an error, not silently
    dropped."""
    text = (text or "none").strip()
    if text == "none":
        return None
    if text == "auto":
        return (allowed[-1],) if len(allowed) > 1 else None
    cpus = set()
    for part in text.split(","):
        cpus.update(_expand(part.strip()))
    missing = sorted(cpus - set(allowed))
    if missing:
        raise PinError("--pin-cpu %s: CPU %s not available to this process "
                       "(available: %s)" % (text, ",".join(map(str, missing)),
                                            ",".join(map(str, allowed))))
    return tuple(sorted(cpus))


def describe(cpus):
    return "none" if not cpus else ",".join(map(str, cpus))
