"""vmexit's waits, for stats/kutcmp.py: how much of a vmexit case's measured
loop its vCPU thread spent runnable on a host run queue, read from the
paired rounds commands/kut_boots.py builds ("vmexit_span": the loop's share and
at most; "vmexit_wait": the share of the case's whole window, older
sessions).  vmexit's figure is the mean of its last loop alone (x86/
vmexit.c do_test: the doubling that reached 2^30 cycles), and the TSC runs
while the thread waits, so a waited loop's figure holds the wait."""

from ..values import figure
from .bootstats import median

# a vmexit loop whose vCPU thread waited at most this share of its span
# is quiet: 1 % of inl_from_kernel's 9.3 k cycles on the Intel PVM host is
# 93, the size of the quiet rows' residue there (measurements.md, "eighth
# session"), where 8-14 % waits moved them by 0.8-1.0 k
QUIET_SHARE = 0.01


def share(boot, name):
    """The share of vmexit's measured loop its vCPU thread waited on a
    host run queue (commands/kut_boots.py's "vmexit_span"), or of its case's
    window where the session read no ticks ("vmexit_wait"), or None."""
    got = ((boot.get("vmexit_span") or {}).get(name) or {}).get("share")
    if not isinstance(got, (int, float)):
        got = (boot.get("vmexit_wait") or {}).get(name)
    return got if isinstance(got, (int, float)) else None


def share_max(boot, name):
    """At most the share of vmexit's measured loop that waited, or None."""
    top = ((boot.get("vmexit_span") or {}).get(name) or {}).get("max")
    return top if isinstance(top, (int, float)) else None


def vm_unwaited(boot, name, share_of=share):
    """vmexit's figure less the share of its loop its vCPU thread waited."""
    fig, got = boot["vmexit"].get(name), share_of(boot, name)
    if isinstance(fig, (int, float)) and got is not None and 0 <= got < 1:
        return fig * (1.0 - got)
    return None


def wait_pct(boot, name):
    got = share(boot, name)
    return None if got is None else 100.0 * got


def quiet_text():
    """QUIET_SHARE as the output prints it."""
    return figure.percent_text(figure.measured(QUIET_SHARE), places=0)


def read(boot, name, ref):
    """Whether both loops' waits were read (at most) in this round."""
    return None not in (share_max(boot, name), share_max(boot, ref))


def quiet(boot, name, ref):
    """Whether both loops waited at most QUIET_SHARE of their spans."""
    return all(share_max(boot, n) is not None and
               share_max(boot, n) <= QUIET_SHARE for n in (name, ref))


def wait_bound(boots, name, ref):
    """The range vmexit's difference could have had without its waits:
    per round, each figure less at most its loop's waited share (the
    TSC runs while the vCPU thread waits), the lowest and highest over
    rounds; None without readings."""
    lows, highs = [], []
    for boot in boots:
        x, r = boot["vmexit"].get(name), boot["vmexit"].get(ref)
        sx, sr = share_max(boot, name), share_max(boot, ref)
        if None in (sx, sr) or not all(isinstance(v, (int, float))
                                       for v in (x, r)):
            continue
        lows.append(x * (1 - sx) - r)
        highs.append(x - r * (1 - sr))
    if not lows:
        return None
    return (median(lows + highs), min(lows), max(highs), len(lows))


def fmt_pct(sp):
    """A spread of percentage points as "+a (lo..hi) points"."""
    if sp is None:
        return "not resolved"
    return "%+.0f (%+.0f..%+.0f) points" % sp[:3]
