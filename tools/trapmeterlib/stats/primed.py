"""Cases timed from an untimed op in one file and not in the other.

An op that waits for its interrupt runs once untimed before each sample
(the result's "primed", kernel/bench.h bench_case.prime): PVM's
instruction emulator takes the interrupt only where a batch of its
instructions ends, and unprimed the framework's code between samples ran
inside the first op's batch, untimed (tscdeadline.insn 4.8 % under a
batch, docs/measurements.md).  Across the change the timing verdict
measures the method: `compare` withholds it for such a case, by name.
The exits per op are counted alike either way (the untimed op is among
the case's ops).

Pure: the cases of two results documents in, refusals out."""

from .refusal import Refusal


def primed(results):
    """Whether each result of a case was primed: {True, False}."""
    return {r.get("primed") is True for r in results}


def refusals(cb, cc):
    """One Refusal for the cases of {(suite, case): [results]} `cb` and
    `cc` primed in some boots and not in others."""
    touched = [key for key in sorted(set(cb) & set(cc))
               if len(primed(cb[key]) | primed(cc[key])) > 1]
    if not touched:
        return []
    return [Refusal("prime", "one file times these waits from an untimed "
                    "op and the other does not (the result's primed): on "
                    "PVM the unprimed first op of a sample leaves part of "
                    "its emulator batch untimed", touched)]
