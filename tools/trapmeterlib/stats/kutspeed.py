"""trapmeter's figures of a kut round at the host's usual speed.

On a backend that emulates the guest (PVM) a busy host slows every
instruction of a window alike, so a case and the control sampled
interleaved with it rise together: in one recorded round the control of
cpuid.insn.paired read 21503 cycles against 12550 in the other rounds,
its net 3566 against 1989 (the same share of the control, within 5 %).
A difference of cycles scales with such a slowdown, and one slow round
of five is enough to leave a try of stats/kuttries.py wider than the
bound it is judged by.  The control measures that speed where the case
ran: a figure times usual / control, usual the median of the case's
control over the rounds judged, is what the round would have read at
the speed the rounds share.  A case without a control is read as it is.
vmexit has no control: its figures stay as printed.  stats/kuttries.py
takes its same-loop tries both as read and so (at_speed;
tests/host/kut_null.py --drop "same instructions at usual speed,reference
and loop at usual speed" counts what the second adds)."""

from .bootstats import median

TEXT = "at the rounds' usual speed (each round's figure times the " \
    "median of the case's control over the rounds / the round's control)"


def control(boot, case):
    """The control of case in round boot (cycles per op), or None."""
    v = (boot["cases"].get(case) or {}).get("control")
    return v if isinstance(v, (int, float)) and v > 0 else None


def usual(boots, case):
    """The median of case's control over boots, or None (none read)."""
    ctl = [c for c in (control(b, case) for b in boots) if c]
    return median(ctl) if ctl else None


def scaled(boot, case, value, base):
    """value of case in round boot at the speed whose control is base
    (as read where either is missing)."""
    ctl = control(boot, case)
    if not isinstance(value, (int, float)) or base is None or ctl is None:
        return value
    return value * base / ctl
