"""ab's two sides as run options: the words each side's boots run
(shared words, then the side's own and its QEMU binary), the case list
when none is chosen (the sentinel list), and QEMU's niceness; each side's
words checked as `run` checks them and built into the side's RunPlan
(session/plan.py), which the session's boots and its KVM lock read.
Bisect and sensitivity make their sessions' sides here too."""

import shlex

from ..system import priority
from . import run as run_cmd
from .common import OptionError

# QEMU's niceness, and its autogroup's, in every boot of a session where
# this process may set it (run --nice; docs/design.md, "Where the per-boot
# spread comes from here": the vCPU thread's wait for a CPU is the spread)
AB_NICE = -20
# run options ab sets itself, per boot
OWN_RUN_OPTIONS = ("--repeat", "--json", "--log", "--junit", "--plan",
                   "--no-build", "--rounds")
# The sentinel list: what ab and sensitivity run when no --case or --suite
# is given, one or two cases per handler class and direction, 512-byte
# loops (they resolve more per second than 4096-byte ones); the choice and
# its measurement: docs/design.md, "The sentinel list".
SENTINEL_SUITES = "pio,exits"
SENTINEL_CASES = ("fwcfg.in8.single.512", "fwcfg.in8.rep.512",
                  "debugcon.out8.single.512", "debugcon.out8.rep.512",
                  "pic.in8.single.512", "pic.out8.single.512",
                  "cpuid", "pio.kernel", "pio.user")
# ... as the kernel word case= takes them (at most 8 globs): exactly the
# cases above (tests/host/test_abtest.py checks both against the case list)
SENTINEL_GLOBS = ("fwcfg.in8.[sr]*.512", "debugcon.out8.*.512",
                  "pic.*8.single.512", "pio.*", "cpuid")
# run options that choose the cases (--quick: its smaller sweep has no
# 512-byte fw_cfg rows)
SELECTING = ("--case", "--suite", "--quick")


def split_side(text, what):
    """Shell words of --a-args/--b-args: (run options, QEMU args)."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise OptionError("%s %r: %s" % (what, text, exc))
    if "--" in words:
        cut = words.index("--")
        return words[:cut], words[cut + 1:]
    return words, []


def check_own_options(words, what):
    """None of the run options ab sets itself (OWN_RUN_OPTIONS); the rest
    are checked as `run` checks them by side_plan."""
    for word in words:
        if word.split("=")[0] in OWN_RUN_OPTIONS:
            raise OptionError("%s: %s is set by ab itself" % (what, word))


def side_plan(name, words, qemu_args, rounds, **more):
    """The RunPlan of one boot of side `name` (its run words and QEMU
    arguments checked as `run` checks them; a bad one named as the
    side's): ab sets the options OWN_RUN_OPTIONS name itself."""
    try:
        one = run_cmd.plan_from_words(
            words, qemu_args, say=lambda _text: None, json=None, log=None,
            junit=None, html=None, repeat=1, no_build=True, rounds=rounds,
            table="none", **more)
    except OptionError as exc:
        raise OptionError("side %s options: %s" % (name.upper(),
                                                   exc.message)) from None
    if one.sweep or one.virtio_matrix:
        raise OptionError("side %s options: ab boots one configuration a "
                          "side (no --viommu sweep or --virtio-matrix)"
                          % name.upper())
    return one


def selects_cases(words):
    """Do these run words choose cases (--case or --suite)?"""
    return any(w.split("=")[0] in SELECTING for w in words)


def case_list(shared, side_texts=""):
    """(shared run words, which list runs): the sentinel list when none
    of the shared words and the sides' own (`side_texts`, --a-args and
    --b-args as given) choose cases (SELECTING), else theirs."""
    if selects_cases(shared) or any(sel in side_texts for sel in SELECTING):
        return shared, "the cases --case/--suite/--quick selected"
    words = ["--suite", SENTINEL_SUITES, "--case", ",".join(SENTINEL_GLOBS)]
    return words + shared, ("the sentinel list (%d cases, one or two per "
                            "handler class and direction: %s; --case or "
                            "--suite runs others)" % (
                                len(SENTINEL_CASES),
                                ", ".join(SENTINEL_CASES)))


def at_ab_nice(plans):
    """Do the sides' boots run QEMU at AB_NICE?  Not when a side's plan
    sets its own --nice, or this process may not lower it."""
    if any(one.nice is not None for one in plans.values()):
        return False
    return priority.permitted(AB_NICE)


def make_sides(shared, extra, args=("", ""), qemus=(None, None)):
    """{"a": (run words, qemu args), "b": ...}, validated: `shared` run
    words of both sides, `extra` QEMU arguments of both, then per side
    its own run words (shell words, QEMU arguments after a '--') and
    QEMU binary; `--nice AB_NICE` first where the sides' plans allow it
    (at_ab_nice)."""
    sides = {}
    for name, text, binary in zip(("a", "b"), args, qemus):
        words, qemu_args = split_side(text, "--%s-args" % name)
        if binary:
            words = ["--qemu", binary] + words
        check_own_options(list(shared) + words,
                          "side %s options" % name.upper())
        sides[name] = (list(shared) + words, list(extra) + qemu_args)
    plans = {name: side_plan(name, words, qemu_args, None)
             for name, (words, qemu_args) in sides.items()}
    if not at_ab_nice(plans):
        return sides
    nice = ["--nice", str(AB_NICE)]
    return {name: (nice + words, qemu_args)
            for name, (words, qemu_args) in sides.items()}


def side_binary(words):
    """The --qemu a side's run words give (the last one wins), or None."""
    found = None
    for i, word in enumerate(words):
        if word == "--qemu" and i + 1 < len(words):
            found = words[i + 1]
        elif word.startswith("--qemu="):
            found = word.split("=", 1)[1]
    return found
