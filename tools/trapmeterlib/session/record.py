"""RunRecord: the results.json a run builds boot by boot (the host, the
configuration, the boots and a summary), so the document can be written
from whatever point the run stopped at, or handed to ab as a value.  The
breakdown (where the time goes) is computed once per set of boots and
shared by the table and the document (BreakdownMemo)."""

from ..guest import dmafit
from ..output import report
from ..stats import breakdown
from ..system import hostinfo

# the suites' own entries of the breakdown (stats/breakdown.py `fits`)
SUITE_FITS = (dmafit,)


class RunRecord:
    """What one run found: results.json's host, config, boots and
    summary, filled in by the runner (session/runner.py)."""

    def __init__(self, plan):
        self.host = hostinfo.host_info(None, None, None)
        self.config = {"accel": plan.accel, "boot": plan.boot,
                       "firmware": plan.firmware, "machine": plan.machine,
                       "cmdline": None, "qemu_argv": None,
                       "repeat": plan.repeat,
                       "kernel_irqchip": plan.kernel_irqchip,
                       "count_exits": None}
        self.boots = []
        self.booted = False         # a QEMU was started: results.json due
        self.summary = None
        self.doc = None             # the results document last made
        self.output_errors = []     # outputs that could not be written
        self.breakdown = BreakdownMemo()

    def document(self, code, messages=()):
        """The results document of the boots so far, ending with `code`."""
        doc = report.results_document(self.host, self.config, self.boots,
                                      code, messages, self.summary)
        add_breakdown(doc, self.breakdown)
        self.doc = doc
        return doc

    def write_json(self, path, code, messages=(), say=None):
        """The document to `path`; False (and said) when it cannot be."""
        doc = self.document(code, messages)
        try:
            report.write_json_atomic(path, doc)
        except OSError as exc:
            if say is not None:
                say("error: cannot write %s: %s" % (path, exc))
            return False
        return True


class BreakdownMemo:
    """breakdown.breakdown, computed once per set of result lists: the
    table and results.json show the same fit (a third of a second of the
    runner's time for the default run)."""

    def __init__(self):
        self._memo = {}

    def __call__(self, results_per_boot):
        key = tuple(id(r) for r in results_per_boot)
        hit = self._memo.get(key)
        if hit is not None and all(a is b for a, b in
                                   zip(hit[0], results_per_boot)):
            return hit[1]
        entries = breakdown.breakdown(results_per_boot, SUITE_FITS)
        self._memo[key] = (list(results_per_boot), entries)
        return entries


def add_breakdown(doc, compute=None):
    """Where the time goes: per boot its own fit, across boots intervals
    and the fit of the boots' lower envelope."""
    compute = compute or (lambda lists: breakdown.breakdown(lists,
                                                            SUITE_FITS))
    results = []
    for boot in doc["boots"]:
        if breakdown.applies(boot.get("results") or [], SUITE_FITS):
            boot["breakdown"] = compute([boot["results"]])
            results.append(boot["results"])
    if len(results) > 1:
        doc["breakdown"] = compute(results)
