"""vmexit's own prints inside its timed loops (stats/kutcmp.py names them
under a row): its xAPIC self-IPI cases printf x whenever it is not 1, on
PVM in every iteration, so their figure is mostly the print.  Such a row
is not resolved unless the tools agree, or a counted model (instructions
or walks, stats/kutmodels.py), whose counts hold the print
(kutcounts.PRINT_COUNTED), explained it."""

from .kutcounts import PRINT_COUNTED
from .kutrounds import fmt_level, spread

# the causes of the models whose counts hold the print
COUNTED_MODELS = ("instructions (model)", "walks (model)")


def printed_x(boot_docs):
    """{vmexit name: [iterations its loop printed x != 1, per boot that
    ran it]}: vmexit's self-IPI cases print x whenever it is not 1
    (backends/kut_log.py: the result's "printed_x"; none, 0)."""
    out = {}
    for boot in boot_docs:
        for res in boot.get("results") or []:
            if res.get("suite") == "kut" and isinstance(res.get("kut_name"), str):
                count = res.get("printed_x")
                out.setdefault(res["kut_name"], []).append(
                    count if isinstance(count, int) and count > 0 else 0)
    return out


# the share of a printed row's iterations that must have printed for the
# instructions model's counts (a print each) to stand: one print is about
# 1.2 M cycles here, so 1 % unprinted moves vmexit's mean about 1 % of its
# difference, under 5 % of the rule's bound (a quarter of the gap)
PRINTED_SHARE = 0.99


def name_prints(diffs, printed):
    """A row vmexit's loop printed in, in every boot, is not resolved
    unless the tools agree: each print is a printf to the serial port
    inside vmexit's timed loop, work its twin does not do.  Or unless a
    counted model (instructions or walks), whose counts hold the print
    (PRINT_COUNTED), explained it and every boot printed in nearly every
    iteration (_print_counted)."""
    for row in diffs:
        counts = printed.get(row["kut_name"]) or []
        if not counts or min(counts) == 0 or row["verdict"] == "agree":
            continue
        why = ("vmexit printed x != 1 in %s iterations a boot (every boot "
               "printed)" % fmt_level(spread(counts)))
        if _print_counted(row, counts):
            row["cause"] = "%s; %s: %s" % (
                row["cause"].split(":")[0], why, row["cause"].partition(
                    ":")[2].strip())
            continue
        row["verdict"] = "not resolved"
        row["cause"] = ("%s: each such iteration runs a printf to the serial "
                        "port in its timed loop, work its twin does not do; "
                        "%s" % (why, row.get("cause") or ""))
    return diffs


def _print_counted(row, counts):
    """Whether a counted model, counting vmexit's print in each
    iteration, explained row, and every boot printed in PRINTED_SHARE of
    its iterations or more (an iteration that took the interrupt before
    its test prints nothing)."""
    return all(_printed_share(c) >= PRINTED_SHARE for c in counts) and \
        row["kut_name"] in PRINT_COUNTED and row["verdict"] == "explained" \
        and row["cause"].startswith(COUNTED_MODELS)


def _printed_share(count):
    """count over the iterations of all a case's loops: vmexit's do_test
    runs 64, 128, ... N, 2 N - 64 in all, taken as the least such total
    count reaches."""
    total = 64
    while total < count:
        total = 2 * total + 64
    return count / total
