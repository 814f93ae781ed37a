"""What was counted on this host for `trapmeter kut`'s rows: the
instruction counts of the instructions model, and the work and counts a
row names (stats/kutcmp.py judges with them).  Data, no logic: a
session on another host keeps the counts of this one, labelled with the
backend they were made on (INSNS_BACKEND)."""

# Guest instructions one op runs, counted on this project's AMD EPYC host
# under KVM on the PVM backend, where both tools' loops are emulated an
# instruction at a time: kvm:kvm_emulate_insn fires once per instruction
# per op (perf record -e kvm:kvm_emulate_insn --filter 'flags == 9' on the
# QEMU of one case's boot, the events' rips counted against the loop's
# call; docs/measurements.md, "kvm-unit-tests").  vmexit (kvm-unit-tests
# 1da1819e): {kut name: per op}; trapmeter: {case: per op of its op path}.
INSNS_BACKEND = "pvm"
VMEXIT_INSNS = {"inl_from_kernel": 9, "mov_dr": 9, "mov_to_cr8": 9,
                "mov_from_cr8": 8, "wbinvd": 8, "cpuid": 10,
                "outl_to_kernel": 10, "inl_from_qemu": 9,
                "inl_from_pmtimer": 14, "tscdeadline_immed": 22,
                "toggle_cr0_wp": 32, "toggle_cr4_pge": 36,
                # a pci_mem_testb / pci_io_testb call: one store or out
                "pci-mem": 10, "pci-io": 10,
                # the ICR or SELF_IPI write with its rdtsc pair, safe_halt,
                # and the interrupt: a per-vector thunk, registers saved,
                # self_ipi_isr's count, rdtsc pair and eoi(); the events
                # between two runs of the op's HLT, alike in every op (perf
                # record, one boot each, the thirty-sixth session: QMP's
                # insn_emulation less the 6-11 failed attempts, five to
                # nine ENDBR64 and the IRETQ, each retried)
                "self_ipi_sti_hlt": 155, "self_ipi_tpr_sti_hlt": 169,
                "x2apic_self_ipi_sti_hlt": 129,
                "x2apic_self_ipi_tpr_sti_hlt": 143,
                # PRINT_COUNTED: the iteration with its printf("%d", x),
                # the interrupt taken at the print's exits; the events
                # between two calls of the case's function, alike in
                # every iteration (perf record, one boot each, the
                # thirty-sixth session; perf stat over whole boots had
                # given 486, 498 and 501 in the twenty-third)
                "self_ipi_sti_nop": 485, "self_ipi_tpr": 497,
                "self_ipi_tpr_sti_nop": 499}
TM_INSNS = {"inb.elcr": 11, "cr8.write": 11, "dr7.write": 11, "pmtimer": 11,
            "cr0.wp.toggle": 14, "cr4.pge.toggle": 14,
            # per byte, as kut divides the ptd cases (perf, per op over its
            # bytes): transfer_at's loop 20 a byte and 76 an op around it,
            # 1356 over 64; transfer's out loop 5 a byte and 70 an op, 2630
            # over 512
            "ptd.nofd.out8.single.64": 21.2,
            "ptd.io.nofd.out8.single.512": 5.14,
            # counted in their disassembly, not with perf: op_deadline_cpuid's
            # loop and lapic_deadline_arm; op_insn's loop and insn_once's
            # path (cr0.wp.toggle's counts 14 there, as perf counted it)
            "tscdeadline.immed.cpuid": 17, "cr0.wp.toggle.whole": 13,
            # op_cpuid's loop: two movs, cpuid, sub, jae
            "cpuid": 5,
            # op_insn's loop (4) and insn_once's dispatch (4) and path, as
            # inb.elcr's 11 and cr8.write's 11 that perf counted
            "cpuid.insn": 12, "outb.elcr": 12, "cr8.read": 10, "invd": 10,
            "wbinvd": 10,
            # vmexit's outl_to_kernel op: xor, mov, out (outb.elcr loads
            # its byte from RAM instead of the xor)
            "outb.elcr.zero": 12,
            # op_self_ipi's sti_hlt path and the interrupt through
            # arch/x86's stub to isr_bsp, its IRETQ's failed attempt in
            # (as vmexit's, above; the thirty-sixth session)
            "self_ipi.xapic.sti_hlt": 92, "self_ipi.xapic.tpr.sti_hlt": 96,
            "self_ipi.x2apic.sti_hlt": 90, "self_ipi.x2apic.tpr.sti_hlt": 96,
            # op_self_ipi_nowait's loop, self_ipi_shaped and lapic_self_ipi
            # (perf record, one boot each, the rips of each function over
            # its calls): 7 + 21 + 7, 5 + 25 + 7, 7 + 25 + 7; no interrupt
            # is taken in the ops here (irq_rate about 0.004)
            "self_ipi.xapic.sti_nop.nowait": 35, "self_ipi.xapic.tpr.nowait": 37,
            "self_ipi.xapic.tpr.sti_nop.nowait": 39}
TM_INSNS_DISASM = ("tscdeadline.immed.cpuid", "cr0.wp.toggle.whole", "cpuid",
                   "cpuid.insn", "outb.elcr", "cr8.read", "invd", "wbinvd",
                   "outb.elcr.zero")
# The emulator's guest page-table walks an op (kvmmmu:kvm_mmu_pagetable_walk
# in the same perf records, between the same marks: inl_from_kernel's and
# inb.elcr's IN, wbinvd's WBINVD, the sti_hlt ops' HLT; every op alike):
# an instruction's fetch walks once and each memory operand once more;
# the printed rows' between two calls of the case's function, their
# no-wait twins' between two calls of self_ipi_shaped
VMEXIT_WALKS = {"inl_from_kernel": 12, "wbinvd": 11,
                "self_ipi_sti_hlt": 249, "self_ipi_tpr_sti_hlt": 267,
                "x2apic_self_ipi_sti_hlt": 207,
                "x2apic_self_ipi_tpr_sti_hlt": 225,
                "self_ipi_sti_nop": 701, "self_ipi_tpr": 717,
                "self_ipi_tpr_sti_nop": 719}
TM_WALKS = {"inb.elcr": 15, "self_ipi.xapic.sti_hlt": 144,
            "self_ipi.xapic.tpr.sti_hlt": 154, "self_ipi.x2apic.sti_hlt": 137,
            "self_ipi.x2apic.tpr.sti_hlt": 147,
            "self_ipi.xapic.sti_nop.nowait": 45,
            "self_ipi.xapic.tpr.nowait": 53,
            "self_ipi.xapic.tpr.sti_nop.nowait": 55}
# the vmexit case whose figure is instructions alone on such a backend
# (WBINVD is emulated like any other instruction there: no exit of its own)
PER_INSN = "wbinvd"
# vmexit's xAPIC self-IPI rows that printed x != 1 in every iteration
# here (PVM delivers the IPI at the print's exits, not in the sti; nop
# window): their VMEXIT_INSNS count holds the printf and the interrupt
# path, and the print's port accesses exit to QEMU (lib/x86/io.c
# serial_outb: inb of the LSR, outb to the THR), which the model adds at
# trapmeter's cost of one, QEMU_EXIT_CASE less inb.elcr
PRINT_COUNTED = ("self_ipi_sti_nop", "self_ipi_tpr", "self_ipi_tpr_sti_nop")
VMEXIT_QEMU_EXITS = {name: 2 for name in PRINT_COUNTED}
QEMU_EXIT_CASE = "inl.unassigned"
# What counting and timing found for the cases vmexit puts below its
# reference (KVM on PVM, this project's host; docs/measurements.md): named
# with its figures where a session's own preemption try does not settle it.
_COUNTED_INSNS = ("counted: vmexit's op runs %d instructions against "
                  "inl_from_kernel's 9 and no port access; ")
_SHORT_OF_REF = ("over 24 vmexit boots here (-smp 1) the gap followed the "
                 "difference of the two cases' vCPU run-queue waits (slope "
                 "0.92-1.13 cycles per cycle waited, r 0.92-0.98); less the "
                 "waits its median was -2.6..-0.3 k and its sd 3.2-3.7 k "
                 "(raw: 8.0-16.5 k), near trapmeter's same loop: each vmexit "
                 "case is one span, and the host's load changes between "
                 "spans")
# pci-testdev's no-eventfd write, one byte: perf on each tool's boot
# (kvm_mmio / kvm_pio by address, kvm_userspace_exit, kvm_emulate_insn by rip)
_PCI_COUNTED = ("counted: one %s exit and one exit to QEMU a byte in both "
                "tools; emulated instructions a byte: vmexit 10 (an "
                "iteration), trapmeter's %s %s")
# the toggles' MMU work, per op on each tool's boot (perf record of
# kvmmmu:* and kvm_emulate_insn between the case's first and last op)
_TOGGLE_COUNTED = (
    "counted: %s; the emulator's guest page-table walks follow the "
    "instructions (vmexit %d walks for its %d, trapmeter's loop 1.35-1.41 "
    "a walk an instruction, vmexit's wbinvd 11 for 8); vmexit's write_cr%d "
    "goes through an exception-fixup wrapper: its longer op is the "
    "instructions model's surplus, and the same instructions try runs "
    "that wrapper")
# The ops of equal work, timed in the host (perf record of kvm_emulate_insn,
# kvmmmu:kvm_mmu_pagetable_walk, kvm_pio, kvm_msr, kvm_exit, kvm_cr on one
# boot of each tool, twice; an op is the events between two of the loop's
# call; docs/measurements.md, "eighth session"): the same instructions,
# walks and KVM events an op in both tools, and the host time of an op
# less its reference's, median over a boot's ops, per boot (microseconds,
# tracing on; Intel Xeon host, PVM backend)
_TRACED = ("counted: the same op as vmexit's (%s), the same emulated "
           "instructions, guest page-table walks and KVM events an op "
           "against its reference in both tools; host time an op less "
           "inl_from_kernel's / inb.elcr's, median over one boot's ops (us, "
           "traced, two boots each): vmexit %s, trapmeter %s")
TRACED = {
    "mov_from_cr8": _TRACED % ("mov %cr8, %rax", "-1.00, -1.05",
                               "-1.02, -0.99"),
    "mov_to_cr8": _TRACED % ("mov %rax, %cr8 of 0", "-0.29, -0.33",
                             "-0.30, -0.24"),
    "mov_dr": _TRACED % ("mov %rax, %dr7 of 0x400", "-0.28, -0.32",
                         "-0.28, -0.30"),
    "rd_tsc_adjust_msr": _TRACED % ("rdmsr 0x3b", "-0.10, -0.15",
                                    "-0.13, -0.11"),
    "outl_to_kernel": _TRACED % (
        "outb of an immediate 0 to 0x4d0: outb.elcr.zero; outb.elcr loads "
        "the byte from RAM, a walk and a read more, +1.10, +1.11",
        "+0.64, +0.61", "+0.69 (one boot)")}
COUNTED = {"cpuid": "counted: vmexit's op runs 10 emulated instructions "
           "(push, cpuid, pop in cpuid_test), CPUID emulated once an op, its "
           "leaves 0 and 0x1c alternating (kvm_cpuid: 0.50 each), no other "
           "exit; trapmeter's cpuid loop 5 (leaf 0)",
           "toggle_cr0_wp": _TOGGLE_COUNTED % (
               "both write CR0 whole (PE|PG, then PE|WP|PG; trapmeter's "
               "cr0.wp.toggle.whole) and build or find one shadow root a "
               "write (kvm_mmu_get_page 2.00 an op in both)", 45, 32, 0),
           "toggle_cr4_pge": _TOGGLE_COUNTED % (
               "no shadow page built, synced or zapped in either tool (a PGE "
               "flip flushes global TLB entries only)", 53, 36, 4),
           "pci-mem": _PCI_COUNTED % (
               "MMIO", "ptd.nofd.out8.single.64", "21.2 (20 in transfer_at's "
               "loop, 76 an op of 64 bytes around it)"),
           "pci-io": _PCI_COUNTED % (
               "port", "ptd.io.nofd.out8.single.512", "5.14 (5 in "
               "transfer's out loop, 70 an op of 512 bytes around it)"),
           "wbinvd": _COUNTED_INSNS % 8 + _SHORT_OF_REF,
           "invd": _SHORT_OF_REF,
           "mov_from_cr8": _COUNTED_INSNS % 8 + _SHORT_OF_REF,
           "mov_dr": _COUNTED_INSNS % 9 + _SHORT_OF_REF,
           # perf record -a -e kvm:kvm_emulate_insn --filter 'flags == 9'
           # on one boot of each (docs/measurements.md, "tenth session")
           "tscdeadline_immed": "counted: both ops are WRMSR(now) then "
           "CPUID with IF=1 and no wait; on PVM each write's interrupt is "
           "due at once and taken only where the instruction emulator ends "
           "a batch, so few iterations take one (a session's own rates "
           "follow where it read them: KVM's for vmexit, with the batch's "
           "model, and tscdeadline.immed.insn's own count)",
           # perf record -a -e kvm:kvm_emulate_insn -e kvm:kvm_apic_accept_irq
           # over 0.2 s of each tool's op, one boot each (docs/measurements.md,
           # "one emulator batch" and "the spin's own instructions")
           "tscdeadline": "counted on PVM (perf, 0.2 s of each tool's op, one "
           "boot each): between two interrupts KVM accepted, exactly 1024 "
           "instructions emulated in 317 of vmexit's 321 ops, 320 of "
           "tscdeadline.insn's 327 and 312 of tscdeadline's 317; vmexit's "
           "spin of three ran 306 times an op, tscdeadline.insn's (the same "
           "three) 305 in a sample's second op and 295 in its first, whose "
           "batch holds the framework's code to the timer's read"}
for _name, _text in TRACED.items():
    COUNTED[_name] = COUNTED[_name] + "; " + _text if _name in COUNTED \
        else _text

# vmexit cases whose twin repeats work a plainer trapmeter case of the
# same exits leaves out: {kut name: (the plainer case, what the twin
# adds)}.  Every row of such a case names the difference, measured boot
# by boot as the twin's gross less the plainer case's (same boot).
# Counted under KVM on PVM (perf kvm:* and sched:* on each tool's boot,
# per op; docs/measurements.md "ipi and ipi_halt"): both tools send one
# IPI, wake the halted AP once and hand the host CPU to it once; what
# differs is the guest instructions outside the wait (BSP / AP), each an
# emulation on that backend.
_ON_CPU = ("vmexit's %s is lib/x86/smp.c's on_cpu(1, nop, 0) round trip "
           "(lock, the call's state, an indirect call on the AP, a flag "
           "back)")
_ON_CPU_COUNTED = (
    "counted on PVM, per op: the same IPI, wake-up and host CPU switch in "
    "both tools (one ICR WRMSR, the AP's EOI WRMSR), and emulated "
    "instructions outside the wait (BSP/AP; trapmeter's in x2APIC mode, "
    "the framework's per-sample code left out) "
    "vmexit %d/%d, trapmeter's %s %d/%d, %s %d/%d; vmexit's figure is its "
    "last span's mean, and its own per-op median (from its IPI times) "
    "was 0.41-0.88 of it (ops over 3x the median held 4-61 %% of a span)")
ROUND_TRIP = {"ipi": ("ipi", _ON_CPU % "ipi"),
              "ipi_halt": ("ipi.halt", _ON_CPU % "ipi_halt")}
# vmexit's ipi calls on_cpu again as soon as the AP has set "done", which
# it does before its EOI, return and HLT; ipi_halt spins 2000 TSC cycles
# first, so its AP has halted again.  {kut name: its sibling}: each tool's
# name - sibling, round by round, shows what the call back to back costs
# in each (docs/measurements.md, "eighteenth session": vmexit +9-10 k,
# trapmeter's twins +0.7-1.2 k in four sessions).
BACK_TO_BACK = {"ipi": "ipi_halt"}
ROUND_TRIP_COUNTED = {
    "ipi": _ON_CPU_COUNTED % (83, 58, "ipi", 37, 55, "ipi.on_cpu", 67, 72),
    "ipi_halt": _ON_CPU_COUNTED % (77, 58, "ipi.halt", 53, 55,
                                   "ipi.halt.on_cpu", 71, 72)}

# vmexit cases whose op waits for the TSC-deadline timer's interrupt:
# {kut name: what both tools do}.  trapmeter's twin reads the TSC in its
# handler and reports how late each interrupt came after its deadline
# ("deadline_late", kernel/suites/irq.c); vmexit prints the op's mean.
TIMER_WAIT = {"tscdeadline": "both tools arm the TSC deadline 3000 cycles "
              "ahead and spin until its interrupt"}
# On PVM the instruction emulator runs the guest in batches and takes an
# interrupt that came due only when a batch ends (counted: TRACED's
# tscdeadline); its size is the host's kvm_pvm.pvm_emul_batch (the
# fingerprint's): {kut name: what that makes of the op, with the size}
BATCH_WAIT = {"tscdeadline": "on PVM the interrupt, due while the guest "
              "spins, is taken when the instruction emulator ends its batch "
              "of %d instructions (kvm_pvm.pvm_emul_batch): the op is one "
              "batch of emulated instructions, not the timer's wait"}
# vmexit cases whose interrupt is due at every batch's end (IF=1, the
# deadline already passed): one iteration in batch / (emulated
# instructions an iteration) takes it
BATCH_RATE = ("tscdeadline_immed",)

# vmexit names whose op is a hand-off between vCPUs: vmexit's round trip
# holds its first vCPU's loop once, as its reference's op does, and its
# difference cancels it; trapmeter's twin passes in a tight loop of its
# own, so its gross is tried against its reference's net (the exit alone)
LOOP_ONCE = {"ple_round_robin": (
    "loop once: vmexit's ple_round_robin round trip holds its first vCPU's "
    "call and loop once (the AP's run beside it), as its inl_from_kernel "
    "does; trapmeter's ple.round_robin passes the token in a tight loop "
    "of its own")}

# trapmeter's inb 0x4d0 (vmexit's reference instruction) in the loop its
# extended cases share (kernel/suites/exits.c, "loop": "exits.insn")
SAME_LOOP_REF = "inb.elcr"
# trapmeter cases that explain a vmexit figure: {kut name: [(case, the
# case its difference is taken to (None: the reference's twin), cause)]}
EXPLAINERS = {"cpuid": [
    ("cpuid.chain", None, "leaf: vmexit's cpuid runs the leaf and sub-leaf "
     "its previous cpuid returned (EAX, ECX are clobbered, not set); "
     "trapmeter's cpuid.chain does the same"),
    ("cpuid.insn", SAME_LOOP_REF, "same instructions: vmexit's cpuid and "
     "inl_from_kernel ops (push rbx, cpuid, pop rbx; mov, inb 0x4d0) one "
     "indirect call each in one loop; trapmeter's cpuid.insn and inb.elcr "
     "the same ops in one loop of its own")],
    "wr_tsc_adjust_msr": [
        ("wrmsr.tsc_adjust.zero", SAME_LOOP_REF, "same instructions: vmexit's "
         "wr_tsc_adjust_msr writes an immediate 0 (mov $0, mov $0x3b, wrmsr); "
         "trapmeter's wrmsr.tsc_adjust loads the value it writes back from "
         "RAM, its wrmsr.tsc_adjust.zero does not")],
    "wr_kernel_gs_base": [
        ("wrmsr.kernel_gs_base.zero", SAME_LOOP_REF, "same instructions: "
         "vmexit's wr_kernel_gs_base writes an immediate 0; trapmeter's "
         "wrmsr.kernel_gs_base loads the value it writes back from RAM, its "
         "wrmsr.kernel_gs_base.zero does not")]}


def _as_built(name, what, case):
    """Tries of a trapmeter case that runs vmexit's op as vmexit's build
    compiles it (kernel/suites/exits_vmexit.h), against inb.elcr, on this
    kernel's page tables and on user-accessible ones (".upages", as
    vmexit maps every page)."""
    cause = ("vmexit's %s as its build runs it (%s); trapmeter's %s the "
             "same instructions in inb.elcr's loop" % (name, what, case))
    return [(case, SAME_LOOP_REF, "same instructions: " + cause),
            (case + ".upages", SAME_LOOP_REF + ".upages",
             "same instructions on user pages: " + cause + ", every page "
             "user-accessible as vmexit maps them")]


_SAFE_WRITE = ("a frame, and each %s write in vmexit's exception-safe "
               "wrapper: %%gs:4 cleared, the write, a call of "
               "exception_vector() that reads %%gs:4 back")
_PCI_OP = ("the %s and the byte loaded from RAM, then one %s to "
           "pci-testdev's no-eventfd test register")
_SELF_IPI = ("a frame, %sx2apic_self_ipi: the SELF_IPI WRMSR between two "
             "RDTSC summed into tsc_ipi, %sNOP; its interrupt, when the "
             "backend delivers it, through the path of tscdeadline_immed's")
_TPR = ("apic_set_tpr(0xf) through CR8, ", "apic_set_tpr(0), ")
EXPLAINERS.update({
    "toggle_cr0_wp": _as_built("toggle_cr0_wp", _SAFE_WRITE % "CR0",
                               "cr0.wp.toggle.insn"),
    "toggle_cr4_pge": _as_built("toggle_cr4_pge", _SAFE_WRITE % "CR4",
                                "cr4.pge.toggle.insn"),
    "pci-mem": _as_built("pci_mem_testb", _PCI_OP % ("address", "store"),
                         "ptd.nofd.mem8.insn"),
    "pci-io": _as_built("pci_io_testb", _PCI_OP % ("port", "out"),
                        "ptd.nofd.io8.insn"),
    "tscdeadline_immed": _as_built(
        "tscdeadline_immed", "a frame, WRMSR of the TSC now to the deadline "
        "MSR, CPUID leaf 0, and its interrupt through kvm-unit-tests' path: "
        "a per-vector thunk, 16 registers saved, self_ipi_isr's count and "
        "two RDTSC, eoi() through the APIC ops at %gs:8 (x2APIC: a WRMSR)",
        "tscdeadline.immed.insn"),
    "tscdeadline": _as_built(
        "tscdeadline", "x cleared, WRMSR of the TSC 3000 cycles ahead to the "
        "deadline MSR, a spin of load, test and branch on x until its "
        "interrupt, through the same path as tscdeadline_immed's, counts it",
        "tscdeadline.insn"),
    "x2apic_self_ipi_sti_nop": _as_built(
        "x2apic_self_ipi_sti_nop", _SELF_IPI % ("CLI, ", "STI; "),
        "self_ipi.x2apic.sti_nop.insn"),
    "inl_from_pmtimer": _as_built(
        "inl_pmtimer", "a frame, pm_tmr_blk compared with 0 and loaded from "
        "RAM, then inl from that port: the ACPI PM timer in QEMU",
        "pmtimer.insn"),
    "x2apic_self_ipi_tpr": _as_built(
        "x2apic_self_ipi_tpr", _SELF_IPI % _TPR, "self_ipi.x2apic.tpr.insn"),
    "x2apic_self_ipi_tpr_sti_nop": _as_built(
        "x2apic_self_ipi_tpr_sti_nop",
        _SELF_IPI % ("CLI, " + _TPR[0], _TPR[1] + "STI; "),
        "self_ipi.x2apic.tpr.sti_nop.insn"),
    # its case runs only as its paired pass, whose control is vmexit's
    # inl_from_kernel op (inb 0x4d0, as inb.elcr) in vmexit's loop, not
    # suite exits' (kernel/suites/exits_ple.c: in a round trip each vCPU's
    # loop is hidden behind the other's work, so only vmexit's own loop
    # cancels): the try takes ple.round_robin.insn.paired's net
    "ple_round_robin": [(
        "ple.round_robin.insn", SAME_LOOP_REF, "same instructions: vmexit's "
        "ple_round_robin and its loop as its build runs them (smp_id() "
        "through %gs:0, a PAUSE spin on its vCPU's counter with no bound, "
        "the next vCPU's counter bumped; run_test's indirect call) on both "
        "vCPUs; trapmeter's ple.round_robin.insn the same instructions and "
        "loop on both vCPUs, against vmexit's inl_from_kernel op (inb "
        "0x4d0) in that loop")],
    # the same for ipi (kernel/suites/exits_ipi.c): the AP's interrupt
    # path and idle loop are vmexit's too, every instruction of the call
    # back to back (BACK_TO_BACK); in q12 it still read about 17 k above
    # vmexit's difference (docs/measurements.md, "eighteenth session")
    "ipi": [(
        "ipi.on_cpu.insn", SAME_LOOP_REF, "same instructions: vmexit's ipi "
        "as its build runs it (on_cpu(1, nop, 0) between two RDTSC, the ICR "
        "written through the APIC ops at %gs:8, a spin on ipi_done with no "
        "bound; the AP's ipi_entry and smp.c's ipi(), \"done\" before its "
        "EOI, and ap_online's hlt loop); trapmeter's ipi.on_cpu.insn the "
        "same instructions on both vCPUs, against vmexit's inl_from_kernel "
        "op (inb 0x4d0) in its loop")]})
