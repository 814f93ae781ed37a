"""tests/acceptance/test_kvm_kicks.py - `make acceptance`: the ioeventfd
kick's cost against QEMU's under KVM, a timing claim, so out of `make
test` (which asserts what does not move with the host: each kick's exits
and which of them reach QEMU, tests/boot/test_virtio.py KvmIoeventfd).

On the Intel PVM host on a noisy day (docs/measurements.md, "thirtieth
session") the ioeventfd kick lost its edge: A's median 34550 and 34911
cycles against B's 33705 and 33954, B the slower in 196 and 182 of 512
rounds, in two clean-clone `make test` runs, and in two of three runs of
the class alone: the thread each ioeventfd kick wakes takes the vCPU's
CPU where no other is free (not traced).  The claim holds on a host with
a CPU to spare; this file states it there.

Skipped where KVM cannot create a VM or the kernel is not built."""
import math
import unittest

from tests.boot import test_virtio


class KvmKicks(test_virtio.KvmIoeventfd):
    """make test's boot of NIC A (ioeventfd=on) and B (off), its exact
    test inherited, and the timing claim."""

    def test_kick_without_ioeventfd_costs_more(self):
        """B's kick (no ioeventfd: out to QEMU) is slower than A's, by
        either of two tests, each of which two alike kicks (A and B
        exchangeable within each round) pass at most ALIKE_ALPHA / 2 of
        the time:
        - the lower tail: B's fastest kick slower than A's p10, so at
          least LOW_KICKS of A's kicks lie below every one of B's; the
          lowest kicks of distinct rounds each come from A with chance
          1/2, so alike kicks do it at most 2 ** -LOW_KICKS of the time;
        - the sign test: B slower than the A kick just before it in at
          least SIGN_KICKS of the rounds (binomial upper tail).
        Each alone was seen to fail on a real difference.  With both
        cores busy A's kicks split in two (most likely the QEMU thread
        each ioeventfd kick wakes taking the vCPU's CPU, not traced):
        A's median 44318 cycles against B's 41479, the sign test lost,
        A's p10 15178 below B's minimum 38230.  And one B kick fast
        against the rest (minimum 46060, p10 67797) lost the tail test
        while B was slower in 500 of 512 rounds."""
        self.assertEqual(self.b.status, 0, self.b.describe())
        pair = [o for o in self.b.boot["other"] if o.get("type") == "virtio_kicks"]
        self.assertEqual(len(pair), 1, self.b.boot["other"])
        p = pair[0]
        self.assertEqual(p["rounds"], PAIR_ROUNDS)
        tail = p["nic_a"]["p10"] < p["nic_b"]["min"]
        sign = p["b_slower"] >= SIGN_KICKS
        self.assertTrue(tail or sign, f"neither A's p10 below B's fastest kick nor B "
                                      f"slower in {SIGN_KICKS} rounds: {p}")
        self.assertLessEqual(2.0 ** -LOW_KICKS + binomial_upper_tail(PAIR_ROUNDS, SIGN_KICKS),
                             ALIKE_ALPHA)


def binomial_upper_tail(n, k):
    """P(X >= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n


# kick.interleaved's rounds (kernel/suites/virtio.c PAIR_ROUNDS); the kicks
# of A at or below its p10 (lib/stats.c interpolates between sorted ranks
# 51 and 52 of 512: ranks 0..51 lie at or below it); the rounds with B the
# slower that alike kicks reach with chance 4.2e-7; the rate at which two
# alike kicks would pass the test above at most
PAIR_ROUNDS = 512
LOW_KICKS = (PAIR_ROUNDS - 1) * 100 // 1000 + 1
SIGN_KICKS = 312
ALIKE_ALPHA = 1e-6


if __name__ == "__main__":
    unittest.main()
