"""The counted models of `trapmeter kut`'s rows (stats/kuttries.py tries
them), where a backend emulates every guest instruction (PVM): a tool's
difference cancels its loop only between cases of one length, so
vmexit's difference is trapmeter's same-loop one plus vmexit's surplus
of emulator work at vmexit's cost of a unit of it (its wbinvd over
wbinvd's units, same round), and where vmexit's op also exits to QEMU
(its printed self-IPI rows: the print's serial port), those exits at
trapmeter's cost of one (QEMU_EXIT_CASE less inb.elcr, same round).  Two
units, each counted with perf on one boot of each case
(stats/kutcounts.py):
  "instructions" kvm_emulate_insn events an op (a failed attempt and its
               retry two);
  "walks"      the emulator's guest page-table walks an op
               (kvmmmu:kvm_mmu_pagetable_walk): one for an instruction's
               fetch and one for each memory operand, so a push or a pop
               weighs two where a register instruction weighs one, as the
               emulator's time does (traced: docs/measurements.md, "The
               sti_hlt rows' walks")."""

from .kutcounts import (INSNS_BACKEND, PER_INSN, PRINT_COUNTED,
                        QEMU_EXIT_CASE, SAME_LOOP_REF, TM_INSNS,
                        TM_INSNS_DISASM, TM_WALKS, VMEXIT_INSNS,
                        VMEXIT_QEMU_EXITS, VMEXIT_WALKS)
from .kutrounds import at, pick_twin, spread, twin_case

# the models' words for a printed row's count and its exits
PRINTED_TEXT = (" (its printf of x in each printed one: formatting, the "
                "serial port's LSR read and THR write, and the interrupt "
                "taken there)")
QEMU_EXITS_TEXT = (", plus %g exits to QEMU an op (the print's port "
                   "accesses) at trapmeter's %s - %s (one instruction each, "
                   "one loop)")


def _counts(boots, name, ref, flavour, vmexit, tm):
    """(vmexit's name, ref, PER_INSN; trapmeter's twin, inb.elcr) in one
    unit's tables, or None where the model does not apply (another
    backend, a case without a count)."""
    counts = (vmexit.get(name), vmexit.get(ref), vmexit.get(PER_INSN),
              tm.get(twin_case(boots, name)), tm.get(SAME_LOOP_REF))
    return None if flavour != INSNS_BACKEND or None in counts else counts


def _scaled(boots, name, surplus, per_units, exits=0):
    """trapmeter's same-loop difference of name, round by round, plus
    surplus units at vmexit's PER_INSN figure over its per_units, plus
    exits to QEMU at trapmeter's cost of one: the model's spread."""
    same = pick_twin(boots, name, "gross")
    per = [(b, b["vmexit"].get(PER_INSN), same(b, None),
            (b["cases"].get(SAME_LOOP_REF) or {}).get("gross"),
            qemu_exit_cost(b) if exits else 0) for b in boots]
    return spread([at(b, x - r + surplus * w / per_units + exits * q)
                   for b, w, x, r, q in per
                   if all(isinstance(v, (int, float)) for v in (w, x, r, q))])


# each model's unit: its label, counts (vmexit's, trapmeter's), how an
# op's count reads, and the tracepoint that counted it
INSNS = ("instructions", VMEXIT_INSNS, TM_INSNS, "runs %g instructions",
         "kvm_emulate_insn")
WALKS = ("walks", VMEXIT_WALKS, TM_WALKS, "walks the guest page tables %g "
         "times", "kvm_mmu_pagetable_walk")


def insns_try(boots, name, ref, flavour):
    """The instructions model's (cause, spread), or None."""
    return _model_try(boots, name, ref, flavour, INSNS)


def walks_try(boots, name, ref, flavour):
    """The walks model's (cause, spread), or None."""
    return _model_try(boots, name, ref, flavour, WALKS)


def _model_try(boots, name, ref, flavour, unit):
    """A model's (cause, spread), or None where it does not apply or adds
    nothing (the same surplus in both tools)."""
    label, vmexit, tm, reads, counter = unit
    disasm = TM_INSNS_DISASM if unit is INSNS else ()  # counted by hand
    counts = _counts(boots, name, ref, flavour, vmexit, tm)
    if counts is None:
        return None
    v_x, v_ref, v_per, t_x, t_ref = counts
    surplus = round((v_x - v_ref) - (t_x - t_ref), 2)
    if not surplus:                 # the same-loop reference says it all
        return None
    exits, case = VMEXIT_QEMU_EXITS.get(name, 0), twin_case(boots, name)
    return ("%s (model): vmexit's %s %s an op%s, its %s %g; trapmeter's %s "
            "%g, %s %g (counted with %s on %s%s): trapmeter's same-loop "
            "difference plus %+g %s at vmexit's %s / %g%s" % (
                label, name, reads % v_x,
                PRINTED_TEXT if name in PRINT_COUNTED else "",
                ref, v_ref, case, t_x, SAME_LOOP_REF, t_ref, counter,
                INSNS_BACKEND, "; %s's in its disassembly" % case
                if case in disasm else "", surplus, label, PER_INSN, v_per,
                QEMU_EXITS_TEXT % (exits, QEMU_EXIT_CASE, SAME_LOOP_REF)
                if exits else ""),
            _scaled(boots, name, surplus, v_per, exits))


def qemu_exit_cost(boot):
    """What one exit to QEMU adds to an op in round boot: QEMU_EXIT_CASE
    less inb.elcr (one instruction each, one loop), or None where the
    round lacks either or resolved no cost (the difference not above 0)."""
    x, r = ((boot["cases"].get(c) or {}).get("gross")
            for c in (QEMU_EXIT_CASE, SAME_LOOP_REF))
    ok = all(isinstance(v, (int, float)) for v in (x, r)) and x > r
    return x - r if ok else None


def same_surplus(boots, name, ref, flavour):
    """"instructions counted: ..." where both tools' ops are longer or
    shorter than their references by the same count (the instructions
    model then adds nothing: they are not the cause), or None."""
    case = twin_case(boots, name)
    counts = (VMEXIT_INSNS.get(name), VMEXIT_INSNS.get(ref),
              TM_INSNS.get(case), TM_INSNS.get(SAME_LOOP_REF))
    if flavour != INSNS_BACKEND or None in counts or \
            counts[0] - counts[1] != counts[2] - counts[3]:
        return None
    return ("instructions counted, not the cause: vmexit's %s %g against %s's "
            "%g, trapmeter's %s %g against %s's %g (the same %+g%s)" % (
                name, counts[0], ref, counts[1], case, counts[2],
                SAME_LOOP_REF, counts[3], counts[0] - counts[1],
                "; %s's from its disassembly" % case
                if case in TM_INSNS_DISASM else ""))
