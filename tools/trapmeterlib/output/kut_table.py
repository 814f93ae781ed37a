"""The tables of `import-kut` (vmexit's figures over its boots) and `kut`
(vmexit beside trapmeter's twin cases, stats/kutcmp.py's rows)."""

from ..stats import kutcmp, kutfloors, kutlooks, kutrounds, kutsession
from ..stats.abtest import binomial_lower, binomial_upper
from ..stats.bootstats import median
from ..values import figure
from .report import fmt_num

SUITE = "kut"
MEASURED = "measured"
# the bounds printed with "explained"'s false-explanation rate, and the
# sessions it was measured on (kutcmp.FALSE_EXPLAINED)
NULL_CONFIDENCE = 0.95
NULL_SESSIONS = ("79 kut sessions of PVM hosts (52 Intel, 27 AMD; 5 to 30 "
                 "rounds) and their 103 blocks of 5 rounds")
SKIPPED = "skipped"


def vmexit_figures(boots):
    """{case: [vmexit cycles of each boot]} and the cases in order."""
    figures, order = {}, []
    for boot in boots:
        for res in boot.get("results") or []:
            if res.get("suite") != SUITE:
                continue
            case = res.get("case")
            if case not in figures:
                figures[case] = []
                order.append(case)
            figures[case].append((res.get("cycles") or {}).get("median"))
    return figures, order


def fmt_spread(values):
    """"median (min-max, n boots)" of the values that are numbers."""
    nums = sorted(v for v in values if isinstance(v, (int, float)))
    if not nums:
        return "not resolved (no figure in any boot)"
    if len(nums) == 1:
        return "%s (1 boot: no spread)" % fmt_num(nums[0])
    return "%s (%s-%s, %d boots)" % (fmt_num(median(nums)), fmt_num(nums[0]),
                                     fmt_num(nums[-1]), len(nums))


def render_vmexit(boots):
    figures, order = vmexit_figures(boots)
    lines = ["kvm-unit-tests x86/vmexit, measured (gross: its loop and the "
             "exit; no control), cycles per iteration, median over boots:"]
    width = max([len(c) for c in order] + [4])
    for case in order:
        lines.append("  %-*s  %s" % (width, case, fmt_spread(figures[case])))
    skipped = sorted({s.get("case") for b in boots for s in b.get("skips")
                      or [] if s.get("suite") == SUITE})
    if skipped:
        lines.append("  skipped by vmexit: " + ", ".join(skipped))
    return "\n".join(lines) + "\n"


def net_below_zero(levels):
    """A line naming the rows whose net is below zero over its whole
    interval: the control ran slower than the case, as measured; the net is
    then no cost of the exit (docs/design.md, "negative when the control
    was the slower")."""
    below = [r["kut_name"] for r in levels if r["net"] and r["net"][2] < 0]
    if not below:
        return []
    return ["net below zero (%s): the control (its loop alone) ran slower "
            "than the case, as measured; such a net is no cost of the exit"
            % ", ".join(below)]


def _fig(sp):
    """A spread (median, low, high, n) as "median (low-high)"."""
    if sp is None:
        return "-"
    if sp[3] == 1 or sp[1] == sp[2]:
        return fmt_num(round(sp[0]))
    return "%s (%s-%s)" % (fmt_num(round(sp[0])), fmt_num(round(sp[1])),
                           fmt_num(round(sp[2])))


def _pct(sp):
    """A spread of percentages as "median % (low-high)"."""
    if sp is None:
        return "-"
    if sp[3] == 1 or round(sp[1]) == round(sp[2]):
        return figure.percent_text(figure.measured(sp[0] / 100), places=0)
    return figure.percent_text(figure.measured(
        sp[0] / 100, [sp[1] / 100, sp[2] / 100]), places=0)


def _diff(sp):
    if sp is None:
        return "-"
    if sp[3] == 1 or sp[1] == sp[2]:
        return "%+d" % round(sp[0])
    return "%+d (%+d..%+d)" % (round(sp[0]), round(sp[1]), round(sp[2]))


def _table(head, rows):
    widths = [max(len(str(r[i])) for r in [head] + rows)
              for i in range(len(head))]
    out = []
    for row in [head, ["-" * w for w in widths]] + rows:
        out.append("  " + "  ".join(str(c).ljust(w) for c, w in
                                    zip(row, widths)).rstrip())
    return out


def render_side_by_side(levels, diffs, left_out, host, accel, absent=None,
                        kut_dir=None, look=1, vm_boots=1,
                        looks_rounds=None):
    """`trapmeter kut`'s table (stats/kutcmp.py rows); kut_dir: the
    session's kvm-unit-tests build, for the command that judges the rows
    not resolved or unexplained again (look: the session's, 2 and on
    --again's; none after the last kutlooks.MOST_LOOKS allows); vm_boots:
    vmexit's boots a round; looks_rounds: the rounds of each session so
    far (each as this one's where not given)."""
    host = host or {}
    backend = host.get("kvm_flavour") or accel
    boots = max([r["vmexit"][3] for r in levels if r["vmexit"]] + [0])
    lines = ["vmexit beside trapmeter, %s (%s), %d round(s); cycles per "
             "op, median over boots (%s); measured" % (
                 accel, backend, boots, spread_text(boots)),
             "vmexit: gross (its loop and the exit, no control); trapmeter: "
             "gross, control (its loop alone) and net = gross - control"]
    chain = (looks_rounds or [boots] * look)[:look]
    if look > 1:
        lines.append(look_text(chain))
    if vm_boots > 1:
        lines.append("vmexit's figure of a round: each case's lowest of its "
                     "%d boots' windows (the host's other work only adds "
                     "time), with that window's waits and counts"
                     % vm_boots)
    if any(r.get("vmexit_wait_pct") for r in levels):
        lines.append("vCPU wait: the share of each vmexit case's measured "
                     "loop (its last doubling: the printed mean x its "
                     "iterations) its vCPU thread waited for a host CPU "
                     "(schedstat, read between vmexit's lines); a session "
                     "that read none there: of the case's window, from "
                     "the line before its figure")
    rows = [[r["kut_name"], _fig(r["vmexit"]), _pct(r.get("vmexit_wait_pct")),
             r["case"] or "-", _fig(r["gross"]), _fig(r["control"]),
             _fig(r["net"])] for r in levels]
    lines += _table(["vmexit case", "vmexit", "vCPU wait", "trapmeter case",
                     "gross", "control", "net"], rows)
    lines += net_below_zero(levels)
    ref = diffs[0]["ref"] if diffs else "-"
    lines.append("")
    lines.append("differences to %s, boot by boot (each tool's loop cancels "
                 "where its two cases share it):" % ref)
    rows = [[r["kut_name"], _diff(r["vmexit"]), _diff(r["gross"]),
             _diff(r["net"]), r["verdict"]] for r in diffs]
    lines += _table(["vmexit case", "vmexit", "trapmeter gross",
                     "trapmeter net", "agreement"], rows)
    if diffs or absent:
        lines.append(verdict_tally(diffs, absent))
    again = judge_again(diffs, chain, accel, kut_dir)
    if again:
        lines.append(again)
    notes = [r for r in diffs if r["verdict"] != "agree" or r.get("work")]
    if notes:
        lines.append("")
    if any(kutcmp.was_tried(r) for r in diffs):
        lines.append(explained_rule(boots))
    lines += ["  %s: %s: %s%s%s" % (
        r["kut_name"], r["verdict"], r["cause"],
        "; work: " + r["work"] if r.get("work") else "",
        "; " + r["counted"] if r.get("counted") else "") for r in notes]
    for name, why in sorted(left_out.items()):
        lines.append("  %s: not run in vmexit here: %s" % (name, why))
    for name, why in (absent or {}).items():
        lines.append("  %s: no figure from either tool: %s" % (name, why))
    return "\n".join(lines) + "\n"


VERDICTS = ("agree", "explained", "not resolved", "unexplained")


def verdict_tally(diffs, absent=None):
    """One line of the rows' agreement: each verdict's count over the rows
    both tools measured, the rows not resolved or unexplained named (what
    the user reads on); then the rows a tool has no figure for, apart, with
    which tool (a case vmexit skips on this CPU does not run here); then
    the names neither tool has a figure for (absent: kutcmp.unmeasured)."""
    both = [r for r in diffs if r["vmexit"] is not None and
            r["gross"] is not None]
    parts = []
    for verdict in VERDICTS:
        names = [r["kut_name"] for r in both if r["verdict"] == verdict]
        named = " (%s)" % ", ".join(names) if names and verdict in \
            VERDICTS[2:] else ""
        parts.append("%d %s%s" % (len(names), verdict, named))
    text = "agreement of %d row(s) both tools measured: %s" % (
        len(both), ", ".join(parts))
    lacking = [_lacking(r) for r in diffs if r not in both]
    if lacking:
        text += "; %d row(s) a tool has no figure for, not resolved: %s" % (
            len(lacking), ", ".join(lacking))
    if absent:
        text += "; %d case(s) neither tool measured, not resolved: %s " \
            "(below)" % (len(absent), ", ".join(absent))
    return text


def judge_again(diffs, rounds, accel, kut_dir=None):
    """The command that judges the rows not resolved or unexplained (both
    tools measured, kutlooks.rows_again) again on rounds of their own, or
    None (none left, or this session, whose chain's sessions had rounds,
    the last kutlooks.MOST_LOOKS allows).  Taking the verdict of any of k
    sessions adds their chances of one by accident (explained:
    kutlooks.false_bound; unexplained: kutlooks.session_parting): a union
    bound."""
    names = kutlooks.rows_again(diffs)
    if not names or len(rounds) >= kutlooks.MOST_LOOKS:
        return None
    chain = rounds + kutlooks.session_rounds(rounds[0], len(rounds))[-1:]
    return ("to judge the %d row(s) not resolved or unexplained again, on "
            "rounds of their own: tools/trapmeter kut --kut-dir %s --accel "
            "%s --cases %s --boots %d (what --again runs; %s)" % (
                len(names), kut_dir or "DIR", accel, ",".join(names),
                chain[-1], union_text(chain)))


def look_text(rounds):
    """What a verdict of --again's last session rests on, rounds the
    rounds of each session so far: its rows were left open by the
    sessions before, so its chances are theirs summed (each session's at
    its own rounds, a model)."""
    look = len(rounds)
    return ("session %d of `kut --again`, on the rows the %s before left "
            "not resolved or unexplained; each row's verdict the last "
            "session's that judged it, any of %d sessions' (a union "
            "bound): a false explanation at most %s, the sum of each "
            "session's %s bound at its spread (%s), and a parting by chance "
            "at most %s, the sum of each one's (%s), over %s rounds" % (
                look, "session" if look == 2 else "%d" % (look - 1), look,
                model_pct(kutlooks.union_false(rounds)),
                pct0(kutlooks.LOOKS_CONFIDENCE), ", ".join(
                    model_pct(kutlooks.false_bound(r)) for r in rounds),
                model_pct(kutlooks.union_parting(rounds)), ", ".join(
                    model_pct(kutlooks.session_parting(r)) for r in rounds),
                ", ".join(str(r) for r in rounds)))


def model_pct(share, against=None):
    """A model's share to one place: "2.4 % (model)"; to two where one
    would round it onto the bound it is held against (5.04 % beside a 5 %
    bound reads "5.04 %", not "5.0 %")."""
    places = 1
    if against is not None and share != against and \
            round(share * 100, 1) == round(against * 100, 1):
        places = 2
    return figure.percent_text(figure.model(share), places=places)


def union_text(rounds):
    """What taking the verdict of any of sessions of these rounds costs."""
    return ("any of %d sessions' verdicts, by union bounds: a false "
            "explanation at most %s, a parting by chance at most %s" % (
                len(rounds), model_pct(kutlooks.union_false(rounds),
                                       kutcmp.FALSE_EXPLAINED_ALPHA),
                model_pct(kutlooks.union_parting(rounds),
                          kutcmp.PARTING_ALPHA)))


def _lacking(row):
    """"wr_ibrs_msr (vmexit skipped it)": the tool without a figure, and
    whether it skipped the case by name (kutcmp.name_skips' skipped_by)."""
    tool = "vmexit" if row["vmexit"] is None else "trapmeter"
    what = "skipped it" if row.get("skipped_by") == tool else "has no figure"
    return "%s (%s %s)" % (row["kut_name"], tool, what)


def spread_text(boots):
    """What a figure's interval is over this many boots (kutrounds)."""
    k = kutrounds.depth(boots)
    if k == 1:
        return "range"
    return ("the %s lowest to the %s highest: the median's %s interval, "
            "distribution-free" % (kutrounds.ordinal(k), kutrounds.ordinal(
                k), pct0(kutrounds.median_cover(boots, k))))


def explained_rule(rounds=None):
    """The rule "explained" follows, its measured false-explanation rate
    (kutcmp.FALSE_EXPLAINED, tests/host/kut_null.py; over a session's
    rounds, that of their spread, kutlooks.FALSE_BY_SPREAD) and how often
    a remainder lying on the bound itself is called within it there
    (kutcmp.on_bound_chance, a model)."""
    k, n = kutcmp.FALSE_EXPLAINED
    spread = ""
    if rounds:
        spread = kutlooks.spread_class(rounds)
        k, n = kutlooks.FALSE_BY_SPREAD[spread]
        spread = "; those judged over the %s, as this session's" % spread
    rate = figure.measured(k / n, [binomial_lower(k, n, NULL_CONFIDENCE),
                                   binomial_upper(k, n, NULL_CONFIDENCE)])
    text = ("explained: a tried cause's figure less vmexit's, round by "
            "round (or, from %d rounds, by lower quartiles over the rounds, "
            "unpaired), lies within plus or minus %s; by accident (vmexit's "
            "figures of another case, further off than that, in the row's "
            "place, %d pairs of %s%s) %s, each end a one-sided %s bound; "
            "the rule is kept only while the upper one is under %s"
            % (kutfloors.FEWEST, kutcmp.WIDTH_TEXT, n, NULL_SESSIONS, spread,
               figure.percent_text(rate), pct0(NULL_CONFIDENCE),
               pct0(kutcmp.FALSE_EXPLAINED_ALPHA)))
    if rounds and rounds >= 2:
        chance = kutcmp.on_bound_chance(rounds)
        text += ("; a remainder whose median lies on the bound itself is "
                 "called within it %s of the time over %d rounds (rounds "
                 "exchangeable)" % (figure.percent_text(figure.model(
                     chance), places=1), rounds))
        if chance > kutcmp.FALSE_EXPLAINED_ALPHA:
            text += (", over the %s held: no try explains a row over so few "
                     "(--boots %d)" % (pct0(kutcmp.FALSE_EXPLAINED_ALPHA),
                                       kutcmp.rounds_to_explain()))
    return text


def pct0(share):
    """A share as a whole percentage: "95 %"."""
    return figure.percent_text(figure.measured(share), places=0)


def coverage(doc, names):
    """Which of vmexit's `names` a trapmeter results document covers:
    {name: [(case, MEASURED or SKIPPED, reason)]} over its boots (one row
    per case, measured in any boot wins), from the kut_name of each result
    and skip; vmexit's own figures (suite kut) are not trapmeter's."""
    rows = {}
    for boot in doc.get("boots") or []:
        for kind, items in ((MEASURED, boot.get("results")),
                            (SKIPPED, boot.get("skips"))):
            for item in items or []:
                name = item.get("kut_name")
                if name not in names or item.get("suite") == SUITE:
                    continue
                cases = rows.setdefault(name, {})
                if cases.get(item.get("case"), (None,))[0] != MEASURED:
                    cases[item.get("case")] = (kind, item.get("reason") or "")
    return {n: [(c, k, r) for c, (k, r) in rows[n].items()]
            for n in names if n in rows}


def render_coverage(cov, names):
    """One line per vmexit name: its trapmeter cases measured or skipped
    (with the reason), or "no trapmeter case in this file"."""
    lines = ["vmexit names in this file: %d of %d have a trapmeter case" % (
        len(cov), len(names))]
    width = max(len(n) for n in names)
    for name in names:
        parts = ["%s %s%s" % (case, kind, ": " + why if why else "")
                 for case, kind, why in cov.get(name, [])]
        lines.append("  %-*s  %s" % (width, name, " | ".join(parts) or
                                      "no trapmeter case in this file"))
    return "\n".join(lines) + "\n"


def counted_rows(counted, names):
    """{vmexit case: {counter: [per-iteration figure of each round]}} of
    kut's vmexit_counted entries (backends/kut_counted.py), in names'
    order; a pci case counts by its first pci-testdev test, as its
    figure does (kutsession.vmexit_name)."""
    out = {}
    for entry in _entries(counted):
        for case, row in entry["cases"].items():
            name = kutsession.vmexit_name(case, names)
            if name is None or not isinstance(row, dict):
                continue
            cell = out.setdefault(name, {})
            for key in kutsession.COUNTERS:
                if isinstance(row.get(key), (int, float)):
                    cell.setdefault(key, []).append(row[key])
    return {n: out[n] for n in names if n in out}


def _entries(counted):
    """kut's saved vmexit_counted entries that have the shape kut writes
    (a results file is read as untrusted input)."""
    return [e for e in (counted if isinstance(counted, list) else [])
            if isinstance(e, dict) and isinstance(e.get("cases"), dict)]


def _per_iteration(values):
    """"median (lowest-highest)" of per-iteration figures, or "-"."""
    return kutsession.spread_text(values) if values else "-"


def render_counted(counted, names):
    """KVM's counters per iteration of each vmexit case over the rounds
    that read them (kut_counted), and why a round read none; "" where no
    round tried (a session recorded before kut read them)."""
    counted = _entries(counted)
    if not counted:
        return ""
    rows = counted_rows(counted, names)
    errors = sorted({str(e["error"]) for e in counted if e.get("error")})
    lines = ["", "vmexit counted: KVM's vCPU counters (QMP query-stats, "
             "read at each line vmexit printed) over each case's window, "
             "per iteration of all its loops, median over the boots "
             "that read them (lowest-highest); measured"]
    lines += _table(["vmexit case"] + list(kutsession.COUNTERS), [
        [n] + [_per_iteration(rows[n].get(k)) for k in kutsession.COUNTERS]
        for n in rows])
    for err in errors:
        lines.append("  not read in %d boot(s): %s" % (sum(
            str(e.get("error")) == err for e in counted), err))
    last = sorted({str(e["last_uncounted"]) for e in counted
                   if e.get("last_uncounted")})
    if last:
        lines.append("  not counted: the last case of %d boot(s) (%s): QEMU "
                     "ended with vmexit before that line was read" % (sum(
                         bool(e.get("last_uncounted")) for e in counted),
                         ", ".join(last)))
    return "\n".join(lines) + "\n"
