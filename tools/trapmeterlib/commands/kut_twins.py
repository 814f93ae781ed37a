"""The trapmeter boots of a `kut` round: every twin of vmexit's cases, or
under --cases only what the rows asked for read.

A row reads its twin (the case whose kut_name is the vmexit name), the
in-kernel port's twin (pio.kernel: every difference is to it) and the
cases stats/kuttries.py tries: vmexit's own instructions (".insn"), the
".paired" and ".upages" passes, inb.elcr in their loop, inl.unassigned for
an exit to QEMU.  READS names them by glob per vmexit name;
tests/host/test_kut_twins.py holds it to what kutcmp read in every
recorded session.  The guest takes at most GUEST_GLOBS globs
(kernel/cmdline.h) in a command line of at most guest/qemu.py's
CMDLINE_MAX bytes: a choice that does not fit boots every twin, as a
session of all cases does.  `kut --again`'s later sessions, on the rows
the first left open, fit: every twin is about 115 cases of a second each
(TWIN_SPAN_MS and the control), an open row's a few (docs/measurements.md,
"p48")."""

import os
import sys

from ..guest import qemu
from .common import repo_root

# trapmeter's twins: suite exits (its names end in no size; fwcfg's
# *.split and ptd's *.nomatch do, the globs leave them out), pci-testdev's
# no-eventfd write in suites mmio and pio (vmexit's first pci test) and
# vmexit's own pci ops in suite exits (ptd.nofd.*.insn, its "p" glob)
TWIN_SUITES = "exits,mmio,pio"
TWIN_CASES = ("[!fp]*[!0-9],p[im]*[!0-9],ptd.nofd.out8.single.64,"
              "ptd.io.nofd.out8.single.512,ptd.nofd.*.insn*")
# the -smp 2 boot: ipi, ipi_halt and ple_round_robin's twins and tries
SMP2_CASES = "ipi*,ple.*"
# vmexit's figure is a mean over a loop of 2^30 cycles a case (about 0.4 s
# here); the twins sample for a span too: kernel word stable=off runs each
# case to its budget (or the cap), not until its minimum settles (as few
# as 5 samples: a boot's median of inb.elcr was 24.9, 28.1 and 33.6 k on a
# quiet host, vmexit's range 1-3 k).  Case and control samples share the
# span, interleaved (no exit counting: its window takes the control out).
TWIN_SPAN_MS = 800
TWIN_SAMPLES_CAP = 10000
TWIN_WORDS = "stable=off budget_ms=%d samples=%d" % (TWIN_SPAN_MS,
                                                     TWIN_SAMPLES_CAP)
# the guest's case= word: at most CMDLINE_MAX_GLOBS globs
GUEST_GLOBS = 32
# every -smp 1 row reads these: the reference's twin, inb.elcr and its
# .upages pass (the same-loop reference of the tries)
COMMON = "pio.kernel,inb.elcr*"
# per vmexit name of the -smp 1 boot: its twin and the cases its tries read
# (vmcall's twin is vmcall or, on AMD, vmmcall)
READS = {
    "cpuid": "cpuid*",
    "vmcall": "vm*call",
    "wbinvd": "wbinvd*",
    "invd": "invd*",
    "mov_from_cr8": "cr8.read*",
    "mov_to_cr8": "cr8.write*",
    "inl_from_pmtimer": "pmtimer*",
    "inl_from_qemu": "inl.unassigned*",
    "inl_from_kernel": "pio.kernel",
    "outl_to_kernel": "outb.elcr.zero*",
    "mov_dr": "dr7.write*",
    "tscdeadline_immed": "tscdeadline.immed*",
    "tscdeadline": "tscdeadline,tscdeadline.[iu]*",
    "self_ipi_sti_nop": "self_ipi.xapic.sti_nop*,inl.unassigned",
    "self_ipi_sti_hlt": "self_ipi.xapic.sti_hlt*",
    "self_ipi_tpr": "self_ipi.xapic.tpr.nowait*,inl.unassigned",
    "self_ipi_tpr_sti_nop": "self_ipi.xapic.tpr.sti_nop*,inl.unassigned",
    "self_ipi_tpr_sti_hlt": "self_ipi.xapic.tpr.sti_hlt*",
    "x2apic_self_ipi_sti_nop": "self_ipi.x2apic.sti_nop*",
    "x2apic_self_ipi_sti_hlt": "self_ipi.x2apic.sti_hlt*",
    "x2apic_self_ipi_tpr": "self_ipi.x2apic.tpr.[ni]*",
    "x2apic_self_ipi_tpr_sti_nop": "self_ipi.x2apic.tpr.sti_nop*",
    "x2apic_self_ipi_tpr_sti_hlt": "self_ipi.x2apic.tpr.sti_hlt*",
    "wr_kernel_gs_base": "wrmsr.kernel_gs_base*",
    "wr_tsx_ctrl_msr": "wrmsr.tsx_ctrl*",
    "wr_ibrs_msr": "wrmsr.spec_ctrl.ibrs*",
    "wr_ibpb_msr": "wrmsr.pred_cmd.ibpb*",
    "wr_tsc_adjust_msr": "wrmsr.tsc_adjust*",
    "rd_tsc_adjust_msr": "rdmsr.tsc_adjust*",
    "toggle_cr0_wp": "cr0.wp.toggle.[wi]*",
    "toggle_cr4_pge": "cr4.pge.toggle*",
    "pci-mem": "ptd.nofd.out8.single.64*,ptd.nofd.mem8.insn*",
    "pci-io": "ptd.io.nofd.out8.single.512*,ptd.nofd.io8.insn*",
}


def cases(smp, wanted=None):
    """(suites, case globs) of a round's trapmeter boot with smp vCPUs for
    the vmexit names wanted (None: every one)."""
    if smp != 1:
        return "exits", SMP2_CASES
    if not wanted:
        return TWIN_SUITES, TWIN_CASES
    globs = ",".join(dict.fromkeys(",".join(
        [COMMON] + [READS[n] for n in wanted if n in READS]).split(",")))
    if not fits(TWIN_SUITES, globs):
        return TWIN_SUITES, TWIN_CASES
    return TWIN_SUITES, globs


def fits(suites, globs):
    """Whether the guest takes a twin boot's globs: GUEST_GLOBS at most,
    in a command line with the words a PVM host's boot adds."""
    return (globs.count(",") < GUEST_GLOBS
            and qemu.cmdline_problem(words(suites, globs)) is None)


def words(suites, globs):
    """A twin boot's kernel words at their longest: the runner's under
    PVM (hypercall=off pvm=on table=off) beside TWIN_WORDS."""
    return (["suite=" + suites, "case=" + globs, "hypercall=off", "pvm=on"]
            + TWIN_WORDS.split() + ["table=off"])


def argv(args, smp, timeout, path, wanted=None):
    """`trapmeter run` of a round's twins with smp vCPUs: sampled for a
    span (TWIN_WORDS), the results to path."""
    suites, globs = cases(smp, wanted)
    out = [sys.executable, os.path.join(repo_root(), "tools", "trapmeter"),
           "run", "--accel", args.accel, "--qemu", args.qemu,
           "--suite", suites, "--case", globs, "--smp", str(smp),
           "--timeout", str(timeout), "--json", path, "--no-build",
           "--no-count-exits", "--cmdline", TWIN_WORDS]
    if args.accel == "kvm":
        out.append("--no-lock")    # this session holds it
    return out
