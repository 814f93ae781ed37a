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
and loop at usual speed" counts what the second adds).  A lifted round
does not always lift a case as much as its control (p40's later sessions:
inl.unassigned.paired's control 1.6 times the other rounds', its net 1.4
times), so those tries are also taken over the steady rounds alone
(steady: those whose control lay near its lowest)."""

from ..values import figure
from .bootstats import median

# a round is steady for a case where the case's control lies within this
# share above its lowest over the rounds: the host's lifts are one-sided
# and 30-60 % (a control of 20774 cycles against 12867-13349 in the
# other rounds of p40's second and third sessions), a steady round's
# control within 4 % of the others'
STEADY_SHARE = 0.10

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


def steady(boots, cases):
    """The rounds of boots in which each of cases (those whose control
    some round read) ran within STEADY_SHARE of its lowest control: the
    host at its usual speed where trapmeter's figure was taken.  A round
    that did not read such a case's control is not known steady."""
    low = {c: min(v for v in (control(b, c) for b in boots) if v)
           for c in cases if any(control(b, c) for b in boots)}
    return [b for b in boots if all(
        control(b, c) and control(b, c) <= lowest * (1 + STEADY_SHARE)
        for c, lowest in low.items())]


def steady_text():
    """What steady() keeps, as the output prints it."""
    return ("only rounds whose control lay within %s of its lowest over "
            "the rounds (the host at its usual speed), vmexit's difference "
            "over the same rounds" % figure.percent_text(
                figure.measured(STEADY_SHARE), places=0))
