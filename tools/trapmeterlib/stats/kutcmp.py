"""vmexit beside trapmeter, boot by boot: the rows of `trapmeter kut`.

Inputs are paired boots (the i-th vmexit boot and the i-th trapmeter boot
of one interleaved session): per boot, vmexit's figure per vmexit name,
and trapmeter's gross, control and net per twin case (its kut_name).

A tool's absolute figure holds its own loop: vmexit has no control, so
its figure is loop plus exit; trapmeter's gross is too, its net is not.
A difference between two cases *within* one tool cancels that tool's
loop where the two cases share it, so the tools should agree on
differences even where they disagree on levels.  Each difference is
taken boot by boot (the pairing cancels a boot's level), its spread is
the range over boots (from 8 boots the median's interval: kutrounds.depth),
and two tools agree when their spreads overlap.

Where they do not, a cause trapmeter measures is named when the
disagreement goes away with it, each tried in turn (stats/kuttries.py:
the leaf, quiet spans, preemption, reference and loop, page tables,
instructions and walks (models), statistic; each try whose vmexit side
is vmexit's raw difference also over the quiet rounds alone).
A try explains where what it leaves, its figure less vmexit's round by
round (a round's host lifts both sides alike and cancels), lies within
plus or minus WIDTH_OF_GAP of the gap between the raw ranges (try_verdict):
the loosest such rule with false explanations (FALSE_EXPLAINED, of pairs
shuffled between cases: tests/host/kut_null.py) under
FALSE_EXPLAINED_ALPHA, 5 %, at the 95 % bound (tests/host/test_kut_null.py
holds it there at 99 %).  A try whose vmexit side is vmexit's raw figures
and whose remainder the rounds leave outside the bound is judged again
from 15 rounds by lower quartiles, unpaired (stats/kutfloors.py: a lift
of one of vmexit's loops alone does not cancel round by round), under the
same bound and the same measured rate.  Under two quiet rounds, where
what the waits could have added to vmexit's figures reaches trapmeter's:
not resolved.
Where what a try leaves reaches across that bound, or the rounds part too
often by chance (parting_chance): not resolved.  Else unexplained (every
try leaves more than the bound), with each tried figure and what was
counted of the two ops (COUNTED)."""

import math

from ..values import figure
from . import (kutfloors, kutlifted, kutmodels, kutprints, kuttries,
               kutsession, kutwait)
from .kutcounts import (BACK_TO_BACK, BATCH_WAIT, COUNTED, INSNS_BACKEND,
                        PER_INSN, ROUND_TRIP, ROUND_TRIP_COUNTED, TIMER_WAIT)
from .kutrounds import (depth, diffs, fmt_level, fmt_range, overlap, pair,
                        pick_case, pick_tm, pick_twin, pick_vm,
                        round_by_round, spread, twin_case)

REFERENCE = "inl_from_kernel"       # the in-kernel port
# the rule and its false explanations of shuffled pairs: kut_null.py
# (tests/host/test_kut_null.py recounts them on its fixture)
WIDTH_OF_GAP, FALSE_EXPLAINED = 0.25, (879, 79053)
# the most false explanations the rule may make: the rate's upper bound
# stays under it (test_kut_null.py: at 99 %)
FALSE_EXPLAINED_ALPHA = 0.05
WIDTH_TEXT = "a quarter of the gap between the tools' raw ranges"
# "unexplained" says the tools part beyond chance: only where n and m
# rounds of two tools that agree part that far at most this often
PARTING_ALPHA = 0.05
# whether a try no round-by-round remainder explains is also judged by
# lower quartiles, unpaired (stats/kutfloors.py; kut_null.py --no-floors
# counts what they add)
FLOORS = True


def parting_chance(n, m):
    """How often n rounds of one tool and m of the other lie wholly apart
    (their spreads do not meet) when the tools agree: exact when the n+m
    differences are exchangeable (any order of them as likely).  With
    ranges (under 8 rounds) one tool's all below, or all above, is 2 of
    the C(n+m, n) orders."""
    return (_below(n, m) + _below(m, n)) / math.comb(n + m, n)


def _below(n, m):
    """The orders of n+m rounds in which the first tool's spread lies
    wholly below the other's: its (n+1-k)-th lowest before the other's
    j-th lowest (kutrounds.depth), summed over how many of the other's
    come first."""
    top, bottom = n + 1 - depth(n), depth(m)
    return sum(math.comb(top - 1 + i, i) * math.comb(n - top + m - i, m - i)
               for i in range(bottom))


def rounds_to_part(alpha=PARTING_ALPHA):
    """The fewest rounds a tool whose parting stays within alpha."""
    return next(n for n in range(2, 31) if parting_chance(n, n) <= alpha)


def on_bound_chance(n):
    """How often n rounds whose remainder has its median right on the
    bound come out within it: the far end of the spread (kutrounds.depth)
    falls inside when at most depth - 1 rounds lie beyond, a binomial(n,
    1/2) tail: 12.5 % at 3 rounds, 6.25 % at 4, 3.5 % at 8, 3.8 % at 16."""
    k = depth(n)
    return sum(math.comb(n, i) for i in range(k)) / 2.0 ** n


def rounds_to_explain(alpha=FALSE_EXPLAINED_ALPHA):
    """The fewest rounds whose remainder on the bound comes out within it
    at most alpha of the time (on_bound_chance)."""
    return next(n for n in range(2, 31) if on_bound_chance(n) <= alpha)


# kut's rounds unless told: the fewest whose "unexplained" and whose
# "explained" (a remainder on the bound) are each within alpha
DEFAULT_ROUNDS = max(rounds_to_part(), rounds_to_explain())


def level_row(boots, name):
    """One vmexit case: vmexit's figure, trapmeter's gross/control/net."""
    case = next((b["trapmeter"][name]["case"] for b in boots
                 if name in b["trapmeter"]), None)
    return {"kut_name": name, "case": case,
            "vmexit": spread([pick_vm(b, name) for b in boots]),
            "vmexit_wait_pct": spread([kutwait.wait_pct(b, name)
                                       for b in boots]),
            "gross": spread([pick_tm("gross")(b, name) for b in boots]),
            "control": spread([pick_tm("control")(b, name) for b in boots]),
            "net": spread([pick_tm("net")(b, name) for b in boots])}


def diff_row(boots, name, ref=REFERENCE, flavour=None, batch=None):
    """name - ref in each tool, boot by boot, and their agreement
    (flavour: the host's KVM flavour, for the instructions model; batch:
    its PVM emulator batch, kutsession.emul_batch)."""
    row = {"kut_name": name, "ref": ref,
           "vmexit": spread(diffs(boots, name, ref, pick_vm)),
           "gross": spread(diffs(boots, name, ref, pick_tm("gross"))),
           "net": spread(diffs(boots, name, ref, pick_tm("net")))}
    row["verdict"], row["cause"] = judge(boots, row, name, ref, flavour)
    work = round_trip(boots, name, flavour) or timer_wait(boots, name, batch)
    if work:
        row["work"] = work
    counted = kutsession.text(boots, name, batch)
    if counted:
        row["counted"] = counted
    return row


def round_trip(boots, name, flavour=None):
    """"what the twin adds; measured: twin - plainer case (range)" for a
    ROUND_TRIP name (with the counts on the backend they were made on),
    or None (another name, a file whose twin is the plainer case itself,
    or not both cases in one boot)."""
    plain = ROUND_TRIP.get(name)
    twin = twin_case(boots, name)
    if not plain or not twin or twin == plain[0]:
        return None
    sp = pair(boots, pick_twin(boots, name, "gross"),
              pick_case(plain[0], "gross"))
    if sp is None:
        return None
    counted = "; " + ROUND_TRIP_COUNTED[name] if flavour == INSNS_BACKEND \
        else ""
    return "%s; measured, trapmeter's %s - %s: %s%s%s" % (
        plain[1], twin, plain[0], fmt_range(sp), counted,
        back_to_back(boots, name))


def back_to_back(boots, name):
    """"; the call back to back: vmexit's name - sibling (range), trapmeter's
    twin - twin (range)" for a BACK_TO_BACK name with both tools' pairs,
    else ""."""
    other = BACK_TO_BACK.get(name)
    if not other:
        return ""
    vm = pair(boots, lambda b, _n: pick_vm(b, name),
              lambda b, _n: pick_vm(b, other))
    tm = pair(boots, pick_twin(boots, name, "gross"),
              pick_twin(boots, other, "gross"))
    if vm is None or tm is None:
        return ""
    return ("; the call back to back (%s calls again once the AP sets "
            "\"done\", before its EOI and HLT; %s first spins 2000 TSC "
            "cycles), each tool's own, round by round: vmexit's %s - %s %s, "
            "trapmeter's %s - %s %s" % (
                name, other, name, other, fmt_range(vm),
                twin_case(boots, name), twin_case(boots, other),
                fmt_range(tm)))


def timer_wait(boots, name, batch=None):
    """"what both do (on PVM, with batch: what the emulator's batch makes
    of it); measured: how late trapmeter's interrupt came" for a
    TIMER_WAIT name, or None (another name, or no lateness recorded)."""
    late = spread([pick_tm("late")(b, name) for b in boots])
    gross = spread([pick_tm("gross")(b, name) for b in boots])
    if name not in TIMER_WAIT or late is None or not gross or not gross[0]:
        return None
    work = TIMER_WAIT[name]
    if batch and name in BATCH_WAIT:
        work += "; " + BATCH_WAIT[name] % batch
    return ("%s; measured, trapmeter's interrupt came %s cycles after its "
            "deadline (median per boot), %s of its gross %s" % (
                work, fmt_level(late), figure.percent_text(
                    figure.measured(late[0] / gross[0]), places=0),
                fmt_level(gross)))


def width(sp):
    return sp[2] - sp[1]


def raw_gap(row):
    """How far apart the tools' raw ranges lie (> 0: they disagree)."""
    v, g = row["vmexit"], row["gross"]
    return max(v[1] - g[2], g[1] - v[2])


def allowed_width(row):
    """The widest a tried range of row (or vmexit's side) may be."""
    return WIDTH_OF_GAP * raw_gap(row)


def try_verdict(alt, vm, row):
    """(what a tried figure alt says of row against vmexit's vm, left):
    left is alt - vm round by round (round_by_round), over the rounds
    both have; "explains" where left's spread lies within
    ±allowed_width(row) (the cause leaves at most that of the gap),
    "rules out" where it lies wholly beyond it, "neither" where it
    reaches across an end, "one round" under two rounds shared, "too
    few" where it lies within but over rounds so few that a remainder on
    the bound would come out within it over FALSE_EXPLAINED_ALPHA of the
    time (on_bound_chance)."""
    left = round_by_round(alt, vm) if alt is not None and vm is not None \
        else None
    if left is None:
        return "one round", None
    limit = allowed_width(row)
    if -limit <= left[1] and left[2] <= limit:
        if on_bound_chance(left[3]) > FALSE_EXPLAINED_ALPHA:
            return "too few", left
        return "explains", left
    if left[2] < -limit or left[1] > limit:
        return "rules out", left
    return "neither", left


def _left_text(alt, vm, row):
    """"round by round, the try less vmexit: +m (lo..hi), within ±W"."""
    left = try_verdict(alt, vm, row)[1]
    return "round by round, the try less vmexit %s, within ±%.0f (%s)" % (
        fmt_range(left), allowed_width(row), WIDTH_TEXT)


def judge(boots, row, name, ref, flavour=None):
    """("agree"|"explained"|"unexplained"|"not resolved", why)."""
    if row["vmexit"] is None or row["gross"] is None:
        return "not resolved", "a tool has no figure for %s or %s in any " \
            "boot" % (name, ref)
    if min(row["vmexit"][3], row["gross"][3]) < 2:
        return "not resolved", "one boot: a difference has no spread to " \
            "judge it by (--boots 3)"
    if overlap(row["vmexit"], row["gross"]):
        return "agree", "within the spread over %d boots" % min(
            row["vmexit"][3], row["gross"][3])
    tried = kuttries.tries(boots, name, ref, flavour)
    for cause, alt, *vm_alt in tried:
        vm = vm_alt[0] if vm_alt else row["vmexit"]
        if try_verdict(alt, vm, row)[0] == "explains":
            return "explained", "%s: %s, vmexit %s; %s" % (
                cause, fmt_range(alt), fmt_range(vm),
                _left_text(alt, vm, row))
    limit = allowed_width(row)
    floors = kutfloors.tries(tried, boots, name, ref, limit) if FLOORS \
        else []
    hit = next((f for f in floors if f[3]), None)
    if hit:
        return "explained", "%s: %s, vmexit %s; %s" % (
            hit[0], fmt_range(hit[1]), fmt_range(row["vmexit"]),
            kutfloors.within_text(hit[2], name, ref, limit, WIDTH_TEXT))
    why = "beyond the spread: vmexit %s, trapmeter %s; tried: %s%s" % (
        fmt_range(row["vmexit"]), fmt_range(row["gross"]), "; ".join(
            _tried(cause, alt, vm_alt, row)
            for cause, alt, *vm_alt in tried),
        kutfloors.nearest_text(floors, limit))
    waited = _waited(boots, name, ref)
    if waited:
        return "not resolved", waited + "; " + why
    same = kutmodels.same_surplus(boots, name, ref, flavour)
    if same:
        why += "; " + same
    if name in COUNTED:
        why += "; " + COUNTED[name]
    held = [r for r in (_too_wide(tried, row, boots), _too_few(row)) if r]
    if held:
        return "not resolved", "; ".join(held) + "; " + why
    return "unexplained", why


def _too_wide(tried, row, boots=()):
    """Why no verdict: a tried figure meets vmexit's but one side is
    wider than the rule resolves, so the try neither explains the row
    nor is ruled out; or None ("unexplained" is left to rows every try
    misses).  Named: a try within the bound over all the row's rounds,
    too few to say so (more boots would decide it); else the try that
    reaches the least past the bound, the nearest to explaining, with
    the rounds that took it past (kutlifted); else one within it over a
    subset of the rounds (the quiet ones)."""
    said = [(cause.split(":")[0],) + try_verdict(alt, vm, row) + (alt, vm)
            for cause, alt, vm in ((c, a, v[0] if v else row["vmexit"])
                                   for c, a, *v in tried)]
    few = [(c, left) for c, what, left, _a, _v in said if what == "too few"]
    wide = [(c, left, a, v) for c, what, left, a, v in said
            if what == "neither"]
    every = [c for c in few if c[1][3] >= row["vmexit"][3]]
    if every or (few and not wide):
        return _too_few_text(*(every or few)[0], row)
    if not wide:
        return None
    cause, left, alt, vm = min(wide, key=lambda c: max(-c[1][1], c[1][2]))
    return ("%s less vmexit, round by round, %s reaches past ±%.0f (%s): "
            "neither the cause nor ruled out%s%s" % (
                cause, fmt_range(left), allowed_width(row), WIDTH_TEXT,
                _deeper(row["vmexit"][3]),
                kutlifted.text(boots, alt, vm, allowed_width(row))))


def _too_few_text(cause, left, row):
    """A try within the bound over rounds too few to call it so."""
    return ("%s less vmexit, round by round, %s lies within ±%.0f (%s) "
            "over %d rounds, where a remainder on the bound comes out "
            "within it %s of the time (binomial, rounds exchangeable), "
            "over the %s held; --boots %d" % (
                cause, fmt_range(left), allowed_width(row), WIDTH_TEXT,
                left[3], figure.percent_text(figure.model(on_bound_chance(
                    left[3])), places=1), figure.percent_text(
                    figure.measured(FALSE_EXPLAINED_ALPHA), places=0),
                rounds_to_explain()))


def _deeper(n):
    """Where n rounds spread over their range: how to narrow it."""
    if depth(n) > 1:
        return ""
    deeper = next(k for k in range(n, 31) if depth(k) > 1)
    return " (--boots %d or more: the median's interval, narrower than " \
        "the range)" % deeper


def was_tried(row):
    """Whether causes were tried on a judged row (the width rule applied:
    explained, unexplained, or not resolved after its tries)."""
    return row["verdict"] in ("explained", "unexplained") or \
        "; tried: " in row.get("cause", "")


def _too_few(row):
    """Why the tools' parting may be chance: their rounds part by chance
    more often than PARTING_ALPHA; or None."""
    n, m = row["vmexit"][3], row["gross"][3]
    chance = parting_chance(n, m)
    if chance <= PARTING_ALPHA:
        return None
    return ("%d and %d rounds: tools that agree part this far by chance "
            "%s of the time (%s, rounds exchangeable), over the %s "
            "held; --boots %d" % (
                n, m, figure.percent_text(figure.model(chance), places=1),
                _chance_text(n, m), figure.percent_text(figure.measured(
                    PARTING_ALPHA), places=0), DEFAULT_ROUNDS))


def _chance_text(n, m):
    """How parting_chance counts n against m rounds."""
    if depth(n) == depth(m) == 1:
        return "2/C(%d,%d)" % (n + m, n)
    return "their orders counted"


def _waited(boots, name, ref):
    """Why vmexit's figures cannot judge the row: under two rounds with
    both loops quiet, and trapmeter's figure (its quiet-spans one over
    every round) within what the waits could have added; or None."""
    quiet = sum(kutwait.quiet(b, name, ref) for b in boots)
    bound = kutwait.wait_bound(boots, name, ref)
    if quiet >= 2:
        return None
    same = kuttries.same_or_gross(boots, name, ref,
                                  kuttries.same_loop(boots, name))[1]
    if bound is None or not overlap(bound, same):
        return None
    return ("%d of %d rounds had %s's and %s's loops both quiet (waited "
            "at most %s); less what the waits could have added, vmexit's "
            "difference lies in %s, trapmeter's %s" % (
                quiet, len(boots), name, ref,
                kutwait.quiet_text(), fmt_range(bound), fmt_range(same)))


def _tried(cause, alt, vm_alt, row):
    """One tried cause in an unexplained row: its figure (and vmexit's,
    where the try changes vmexit's side)."""
    text = "%s %s" % (cause.split(":")[0], fmt_range(alt))
    if vm_alt:
        text += " against vmexit %s" % fmt_range(vm_alt[0])
    vm = vm_alt[0] if vm_alt else row["vmexit"]
    said, left = try_verdict(alt, vm, row)
    if alt is None:
        return text
    if said == "one round":
        return text + " (under two rounds beside vmexit's: resolves nothing)"
    text += ", less vmexit round by round %s" % fmt_range(left)
    if said == "neither":
        text += " (reaches past ±%.0f: explains nothing)" % \
            allowed_width(row)
    elif said == "too few":
        text += " (within ±%.0f over too few rounds to say so)" % \
            allowed_width(row)
    return text


def read_with(names):
    """The vmexit names whose figures the rows of names read besides their
    own: each row's difference is to REFERENCE, the instructions model
    takes vmexit's cost per instruction from its PER_INSN figure of the
    same boot, a BACK_TO_BACK row reads its partner's round trip.  A
    session of some names runs these too (`kut --cases`)."""
    extra = [REFERENCE, PER_INSN] + [BACK_TO_BACK[n] for n in names
                                     if n in BACK_TO_BACK]
    return [n for n in dict.fromkeys(extra) if n not in names]


def rows(boots, names, ref=REFERENCE, flavour=None, batch=None):
    """(level rows, difference rows) for the vmexit names, in their order."""
    levels = [level_row(boots, n) for n in names]
    diffs = [diff_row(boots, n, ref, flavour, batch) for n in names
             if n != ref]
    return levels, diffs


def backend(host):
    """rows()'s flavour and batch from a session's host record."""
    return {"flavour": (host or {}).get("kvm_flavour"),
            "batch": kutsession.emul_batch(host)}



def skipped_twins(boot_docs):
    """{vmexit name: (trapmeter case, reason)} of the twins the session's
    boots skipped by name (the skip records carry kut_name)."""
    out = {}
    for boot in boot_docs:
        for skip in boot.get("skips") or []:
            name = skip.get("kut_name") if isinstance(skip, dict) else None
            if isinstance(name, str) and name not in out:
                out[name] = (skip.get("case"), skip.get("reason"))
    return out


def name_causes(diffs, boot_docs):
    """name_skips (trapmeter's twins, then vmexit's own cases) and
    name_prints of a session's boots."""
    name_skips(diffs, skipped_twins(boot_docs))
    name_skips(diffs, skipped_vmexit(boot_docs), "vmexit")
    return kutprints.name_prints(diffs, kutprints.printed_x(boot_docs))


def skipped_vmexit(boot_docs):
    """{vmexit name: (name, reason)} of the cases vmexit itself skipped
    ("<name> (skipped)": backends/kut_log.py's skip records)."""
    return {s["case"]: (s["case"], s.get("reason")) for b in boot_docs
            for s in b.get("skips") or [] if isinstance(s, dict) and
            s.get("suite") == "kut" and isinstance(s.get("case"), str)}


def name_skips(diffs, skipped, tool="trapmeter"):
    """A row a tool has no figure for says why, when it skipped the case
    by name: the skip's case and reason in place of "a tool has no
    figure"."""
    for row in diffs:
        name = row["kut_name"]
        if row["gross" if tool == "trapmeter" else "vmexit"] is None and \
                name in skipped and row["verdict"] == "not resolved":
            row["skipped_by"] = tool
            row["cause"] = skip_text(tool, skipped[name])
    return diffs


def skip_text(tool, skip):
    """"vmexit skipped wr_ibrs_msr: <reason>" of a (case, reason) skip
    record; a tool with none has no figure and said nothing."""
    if skip is None:
        return "%s has no figure and recorded no skip" % tool
    case, reason = skip
    return "%s skipped %s: %s" % (
        tool, "its twin " + case if tool == "trapmeter" else case, reason)


def unmeasured(names, boot_docs):
    """{vmexit name: why} of names neither tool has a figure for (no row
    of the table): each tool's skip of it by name, or that it has none."""
    tm, vm = skipped_twins(boot_docs), skipped_vmexit(boot_docs)
    return {n: "%s; %s" % (skip_text("vmexit", vm.get(n)),
                           skip_text("trapmeter", tm.get(n))) for n in names}
