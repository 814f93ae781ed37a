"""Cases timed after a different number of untimed ops in the two files.

An op that waits for its interrupt runs once untimed before each sample
(the result's "primed", kernel/bench.h bench_case.prime): PVM's
instruction emulator takes the interrupt only where a batch of its
instructions ends, and unprimed the framework's code between samples ran
inside the first op's batch, untimed (tscdeadline.insn 4.8 % under a
batch, docs/measurements.md).  An op that wakes a halted vCPU runs
several ("prime_ops"; a result without it, one): KVM's halt-poll window,
shrunk by the halt between samples, grows back in them.  Across a change
of that number the timing verdict measures the method: `compare`
withholds it for such a case, by name.  The exits per op are counted
alike either way (the untimed ops are among the case's ops).

Pure: the cases of two results documents in, refusals out."""

from .refusal import Refusal


def primed(results):
    """The untimed ops before each sample of each result of a case:
    {0, 1, ...}."""
    return {(r.get("prime_ops", 1) if r.get("primed") is True else 0)
            for r in results}


def refusals(cb, cc):
    """One Refusal for the cases of {(suite, case): [results]} `cb` and
    `cc` timed after different numbers of untimed ops (none, one,
    several) in some boots than in others."""
    touched = [key for key in sorted(set(cb) & set(cc))
               if len(primed(cb[key]) | primed(cc[key])) > 1]
    if not touched:
        return []
    return [Refusal("prime", "the files time these waits after different "
                    "numbers of untimed ops (the result's primed, "
                    "prime_ops): on PVM the unprimed first op of a sample "
                    "leaves part of its emulator batch untimed, and a "
                    "halted vCPU's first wake-ups sleep", touched)]
