"""vmexit's within-boot ratio, for `compare` (stats/compare.py and
commands/compare.py): each vmexit figure over the in-kernel port's figure
of the same vmexit boot, the one kut figure compare judges between files
that are not one interleaved session."""

# A vmexit figure over the in-kernel port's figure of the same vmexit boot
# (backends/kut_log.py writes it on import as this result field).  Two sets
# of vmexit logs are blocks of boots taken apart in time: their absolute
# cycles get no timing verdict (stats/compare.py, "not interleaved"), but
# this ratio may be judged, since a uniform change of the host's speed
# between the blocks cancels in it.
REL_METRIC = "cycles_rel_ref"
WITHIN_BOOT = (REL_METRIC,)
KUT_SUITE = "kut"


def within_boot_observations(res):
    """compare's {metric: (value, lower is better)} of a result's
    within-boot figures (vmexit's over its reference)."""
    rel = res.get(REL_METRIC)
    ok = isinstance(rel, (int, float)) and not isinstance(rel, bool) \
        and 0 < rel < float("inf")
    return {REL_METRIC: (float(rel), True)} if ok else {}


def within_boot_rows(rows):
    """compare's rows of two files that are not one interleaved session:
    where vmexit's within-boot ratio is judged, the kut cases' absolute
    cycles_per_op rows are left out (never decidable between blocks), with
    one warning that says so and what the ratio does and does not cancel.
    (rows, warnings); rows unchanged when no row is a within-boot one."""
    rel = [r for r in rows if r.metric in WITHIN_BOOT]
    if not rel:
        return rows, []
    kept = [r for r in rows if not (r.suite == KUT_SUITE
                                    and r.metric == "cycles_per_op")]
    ref = {r.case for r in rel}
    return kept, [
        "kut: %d vmexit case(s) judged on %s, each figure over "
        "inl_from_kernel's in the same vmexit boot, not on absolute cycles "
        "(%d row(s) left out): the files are not one interleaved session, "
        "so a change of the host's speed between them would decide an "
        "absolute row; it cancels in the ratio when it slows every case "
        "alike. Not cancelled: a load that slows the cases unequally, and "
        "a change of inl_from_kernel itself, which moves every row the "
        "same way" % (len(ref), REL_METRIC, len(rows) - len(kept))]
