"""tests/host/test_elf_rep.py - the REP cases really contain REP string
instructions, read from the built kernel (holds without KVM: under TCG a
loop in their place would time alike and stay green everywhere else).

The functions suite pio's cases call (op_port, op_fwcfg) are disassembled
with objdump and followed through their calls inside the ELF; the string
instructions each needs must be there.  That the guest also *executes*
them (and not under rep=off) is checked from its own count in
tests/boot/test_hardening.py."""

import os
import re
import shutil
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ELF = os.path.join(ROOT, "build", "trapmeter.elf")
FUNC_RE = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
CALL_RE = re.compile(r"\bcall\s+[0-9a-f]+ <([^>+]+)>")
REP_RE = re.compile(r"\brep[a-z]*\s+(ins|outs)([bwl])\b")

# case op -> the string instructions its cases need (kernel/suites/pio.c)
NEEDED = {
    "op_port": {"insb", "insw", "insl", "outsb", "outsw", "outsl"},
    "op_fwcfg": {"insb"},
}


def disassemble(path):
    """{function: [instruction lines]} of the ELF's text."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True, check=True).stdout
    funcs, current = {}, None
    for line in out.splitlines():
        match = FUNC_RE.match(line)
        if match:
            current = funcs.setdefault(match.group(1), [])
        elif current is not None and line.strip():
            current.append(line)
    return funcs


def reachable_string_ops(funcs, root, depth=4):
    """String instructions in root and the functions it calls."""
    seen, todo, ops = set(), [(root, 0)], set()
    while todo:
        name, level = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen.add(name)
        for line in funcs[name]:
            rep = REP_RE.search(line)
            if rep:
                ops.add(rep.group(1) + rep.group(2))
            call = CALL_RE.search(line)
            if call and level < depth:
                todo.append((call.group(1), level + 1))
    return ops


class RepInstructionsInElf(unittest.TestCase):

    def setUp(self):
        if not shutil.which("objdump"):
            self.fail("objdump not found (install binutils)")
        if not os.path.exists(ELF):
            self.fail("%s missing: run make" % ELF)
        self.funcs = disassemble(ELF)

    def test_rep_cases_run_string_instructions(self):
        for op, needed in NEEDED.items():
            self.assertIn(op, self.funcs, "no function %s in the ELF" % op)
            found = reachable_string_ops(self.funcs, op)
            self.assertEqual(needed - found, set(),
                             "%s (suite pio's REP cases) reaches no %s: "
                             "the REP cases would not run REP instructions"
                             % (op, ", ".join(sorted(needed - found))))

    def test_checker_sees_a_loop(self):
        """The checker itself: a loop of single outs has no string op."""
        funcs = {"f": ["  1: out %al,(%dx)", "  2: jne 1 <f>"]}
        self.assertEqual(reachable_string_ops(funcs, "f"), set())
        funcs = {"f": ["  1: call 9 <g>"], "g": ["  9: rep insw (%dx),%es:(%rdi)"]}
        self.assertEqual(reachable_string_ops(funcs, "f"), {"insw"})
