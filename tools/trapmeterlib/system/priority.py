"""tools/trapmeterlib/system/priority.py - the scheduling priority QEMU
runs at (run --nice).

On a shared host the guest's timed loops are preempted: QEMU's vCPU thread
sat runnable but off a CPU for 30-60 % of every boot here, and a loop
whose samples were all preempted reads 20-100 % dear (docs/design.md,
"Where the per-boot spread comes from here").  A lower niceness gives the
vCPU thread the larger share of its CPU against the host's other tasks
and lets it preempt them when it wakes.  The niceness is set in the child
between fork and exec (children.spawn), so every thread QEMU creates
inherits it -- twice: a thread's own niceness weighs only against the tasks
of its autogroup (CONFIG_SCHED_AUTOGROUP, kernel.sched_autogroup_enabled=1:
every session is one group, and groups share the CPUs equally), and QEMU
starts a session of its own, so the group's niceness (/proc/self/autogroup)
is what weighs against the host's other work.  Measured here (a busy loop
for 3 s, load 6 on 2 CPUs): nice -20 alone waited 47 % of the time on a run
queue, in its own group at -20 5 %, at 0 59 %.  Going below the runner's own niceness needs root (or
CAP_SYS_NICE, or RLIMIT_NICE): probed once in a throwaway fork, so a user
who cannot gets a clear error, not a QEMU that fails to start."""

import os

from ..values.errors import InputError

NICE_MIN, NICE_MAX = -20, 19


class PriorityError(InputError, ValueError):
    """A --nice value outside -20..19 or one this process may not set."""


def current():
    return os.getpriority(os.PRIO_PROCESS, 0)


def permitted(nice):
    """True when a child of this process may run at `nice` (probed in a
    fork that exits at once)."""
    if nice >= current():
        return True
    pid = os.fork()
    if pid == 0:                        # the probe: set, report, leave
        try:
            os.setsid()                 # as children.spawn's child
            apply_in_child(nice)
            os._exit(0)
        except OSError:
            os._exit(1)
    _pid, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def parse(value):
    """The niceness for --nice `value` (None: leave it as inherited)."""
    if value is None:
        return None
    if not NICE_MIN <= value <= NICE_MAX:
        raise PriorityError("--nice must be %d..%d (got %d)"
                            % (NICE_MIN, NICE_MAX, value))
    if not permitted(value):
        raise PriorityError(
            "--nice %d: this process (niceness %d) may not lower a child's "
            "niceness: that needs root or CAP_SYS_NICE (or RLIMIT_NICE); "
            "leave --nice out to run QEMU at the runner's own" % (
                value, current()))
    return value


AUTOGROUP = "/proc/self/autogroup"


def apply_in_child(nice):
    """In the child between fork and exec, after setsid (a new autogroup):
    the thread's niceness and its autogroup's; every thread QEMU starts
    inherits both."""
    if nice is None:
        return
    os.setpriority(os.PRIO_PROCESS, 0, nice)
    try:
        with open(AUTOGROUP, "w") as fh:
            fh.write("%d" % nice)
    except FileNotFoundError:           # no CONFIG_SCHED_AUTOGROUP
        pass


def autogroup_nice(pid):
    """The niceness of process `pid`'s autogroup, or None."""
    try:
        with open("/proc/%d/autogroup" % pid) as fh:
            return int(fh.read().split("nice")[-1])
    except (OSError, ValueError):
        return None
