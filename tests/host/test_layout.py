"""tests/host/test_layout.py - the guest's layering, read from its includes.

From the bottom: lib/ (freestanding helpers and pure logic: strings,
formatting, JSON, CRC, statistics, globs) and model/ (the exit models)
include only lib/ and never touch hardware; arch/x86/ builds on lib/;
drivers/ on arch/x86/; platform/ (what machine booted us: multiboot
info, SMBIOS, firmware, the TSC cross-check) on drivers/.  kernel/ is the
framework (bench, plan, dump, console, command line, main) and knows no
suite beyond their table, kernel/suites/suites.h; kernel/suites/ holds the
cases and the helpers only they use, and may include anything but tests/.
Drivers count what they do and know no exit model (model/model.h).
docs/design.md draws the same picture.
"""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

PURE = {"lib", "model"}
# layer -> layers its files may include
ALLOWED = {
    "lib": {"lib"},
    "model": {"lib", "model"},
    "arch": {"lib", "arch"},
    "drivers": {"lib", "arch", "drivers"},
    "platform": {"lib", "arch", "drivers", "platform"},
    "kernel": {"lib", "model", "arch", "drivers", "platform", "kernel"},
    "suites": {"lib", "model", "arch", "drivers", "platform", "kernel", "suites"},
}
FOLDERS = ("lib", "model", "arch", "drivers", "platform", "kernel")
# the one file of kernel/suites/ the framework may include
SUITE_TABLE = "kernel/suites/suites.h"


def layer(path):
    """The layer of a repo path: its top folder, kernel/suites/ its own."""
    parts = path.replace(os.sep, "/").split("/")
    if parts[:2] == ["kernel", "suites"]:
        return "suites"
    return parts[0]


def guest_files():
    for top in FOLDERS:
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, ROOT).replace(os.sep, "/")


def guest_includes():
    """(file, included path) for every quoted include in the guest's C."""
    for rel in guest_files():
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            for inc in INCLUDE.findall(f.read()):
                yield rel, inc


def borrowed_names(files):
    """Headers whose base name is that of a source in another folder
    while no source of that name sits beside them: such a header reads as
    that source's API (arch/x86/mmio.h, the MMIO accessors, beside the
    suite kernel/suites/mmio.c)."""
    sources = {}
    for rel in files:
        if rel.endswith(".c"):
            sources.setdefault(os.path.basename(rel)[:-2], set()).add(
                os.path.dirname(rel))
    bad = []
    for rel in files:
        if not rel.endswith(".h"):
            continue
        folders = sources.get(os.path.basename(rel)[:-2], set())
        if folders and os.path.dirname(rel) not in folders:
            bad.append("%s reads as the header of %s" % (
                rel, ", ".join("%s/%s.c" % (f, os.path.basename(rel)[:-2])
                               for f in sorted(folders))))
    return bad


def layering_violations(pairs):
    bad = []
    for rel, inc in pairs:
        src, dst = layer(rel), layer(inc)
        if src == "kernel" and inc == SUITE_TABLE:
            continue
        if dst not in ALLOWED.get(src, set()):
            bad.append(f"{rel} includes {inc}")
    return bad


def placement_violations(pairs):
    """A framework header that only suites include is a suite helper."""
    users = {}
    for rel, inc in pairs:
        if os.path.splitext(rel)[0] != os.path.splitext(inc)[0]:
            users.setdefault(inc, set()).add(layer(rel))
    return [f"{inc} is included by suites only: it belongs in kernel/suites/"
            for inc, layers in sorted(users.items())
            if layer(inc) == "kernel" and layers == {"suites"}]


# The tree before kernel/ was split by role: pure logic, platform
# discovery and suite helpers all sat in kernel/.
OLD_TREE = [
    ("kernel/suites/pio.c", "kernel/edk2_fifo.h"),
    ("kernel/suites/ide.c", "kernel/edk2_fifo.h"),
    ("kernel/suites/ide.c", "kernel/idepat.h"),
    ("kernel/suites/virtio.c", "kernel/netframe.h"),
    ("kernel/edk2_fifo.c", "kernel/edk2_fifo.h"),
    ("kernel/bench.h", "kernel/stats.h"),
    ("kernel/bench.c", "kernel/model.h"),
    ("kernel/model_mmio.c", "kernel/model.h"),
    ("kernel/main.c", "kernel/tsc_check.h"),
    ("kernel/main.c", "kernel/suites/suites.h"),
    ("kernel/tsc_check.c", "kernel/console.h"),
    ("drivers/ata.h", "lib/types.h"),
]


CASES = os.path.join(ROOT, "tests", "fixtures", "cases.txt")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def committed_cases():
    """(suite, name) of tests/fixtures/cases.txt, in its order."""
    with open(CASES, encoding="utf-8") as f:
        return [tuple(line.split()) for line in f
                if line.strip() and not line.startswith("#")]


def kernel_code():
    """The C of kernel/, comments left out (a name in a comment is no case)."""
    text = []
    for rel in guest_files():
        if layer(rel) in ("kernel", "suites"):
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                text.append(COMMENT.sub("", f.read()))
    return "\n".join(text)


def names_not_written_out(names, code):
    return [n for n in names if f'"{n}"' not in code]


class CaseNames(unittest.TestCase):
    """A case can be found by grepping kernel/ for its name."""

    def test_every_committed_case_is_written_out(self):
        names = [name for _suite, name in committed_cases()]
        self.assertGreater(len(names), 250)
        self.assertEqual(len(names), len(set(names)), "a name twice in the list")
        self.assertEqual(names_not_written_out(names, kernel_code()), [])

    def test_a_name_built_at_run_time_is_caught(self):
        code = 'fmt_snprintf(name, n, "%s.%s%u", target, dir, bits);'
        self.assertEqual(names_not_written_out(["fwcfg.in8.rep.4096"], code),
                         ["fwcfg.in8.rep.4096"])
        self.assertEqual(names_not_written_out(["x.y"], COMMENT.sub("", '/* "x.y" */')),
                         ["x.y"])

    def test_pio_table_is_the_list(self):
        """suite=all runs every row of kernel/suites/pio_table.c, in order."""
        with open(os.path.join(ROOT, "kernel", "suites", "pio_table.c"), encoding="utf-8") as f:
            rows = re.findall(r'^\t[A-Z]+\("([^"]+)"', f.read(), re.M)
        listed = [name for suite, name in committed_cases() if suite == "pio"]
        self.assertEqual(rows, listed)


class Layout(unittest.TestCase):
    def test_layers_include_only_below(self):
        self.assertEqual(layering_violations(guest_includes()), [])

    def test_every_include_names_a_file(self):
        """An include must name a repo file (no path resolved by -I luck)."""
        missing = [f"{rel} includes {inc}" for rel, inc in guest_includes()
                   if not os.path.exists(os.path.join(ROOT, inc))]
        self.assertEqual(missing, [])

    def test_suite_helpers_live_with_the_suites(self):
        self.assertEqual(placement_violations(list(guest_includes())), [])

    def test_rule_catches_an_upward_include(self):
        bad = layering_violations([("drivers/ata.c", "model/model.h"),
                                   ("lib/fmt.c", "arch/x86/io.h"),
                                   ("model/model.c", "drivers/ata.h"),
                                   ("lib/stats.c", "model/model.h"),
                                   ("platform/smbios.c", "kernel/console.h"),
                                   ("arch/x86/tsc.c", "platform/tsc_check.h")])
        self.assertEqual(len(bad), 6)

    def test_framework_knows_only_the_suite_table(self):
        bad = layering_violations([("kernel/main.c", "kernel/suites/suites.h"),
                                   ("kernel/bench.c", "kernel/suites/netframe.h"),
                                   ("kernel/main.c", "kernel/suites/pio.h")])
        self.assertEqual(bad, ["kernel/bench.c includes kernel/suites/netframe.h",
                               "kernel/main.c includes kernel/suites/pio.h"])

    def test_suites_sit_above_the_framework(self):
        ok = [("kernel/suites/ide.c", "kernel/bench.h"),
              ("kernel/suites/ide.c", "platform/firmware.h"),
              ("kernel/suites/ide.c", "kernel/suites/idepat.h")]
        self.assertEqual(layering_violations(ok), [])

    def test_no_header_borrows_a_sources_name(self):
        self.assertEqual(borrowed_names(list(guest_files())), [])

    def test_a_borrowed_name_is_seen(self):
        self.assertEqual(borrowed_names(["arch/x86/mmio.h", "arch/x86/irq.h",
                                         "arch/x86/irq.c",
                                         "kernel/suites/irq.c",
                                         "kernel/suites/mmio.c"]),
                         ["arch/x86/mmio.h reads as the header of "
                          "kernel/suites/mmio.c"])

    def test_old_tree_fails(self):
        bad = placement_violations(OLD_TREE)
        self.assertEqual(bad, [
            f"kernel/{h}.h is included by suites only: it belongs in kernel/suites/"
            for h in ("edk2_fifo", "idepat", "netframe")])

    def test_pure_folders_touch_no_hardware(self):
        """lib/ and model/: no asm, no port or MMIO access, each host-tested."""
        for rel in guest_files():
            if layer(rel) not in PURE:
                continue
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                code = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
            self.assertNotRegex(code, r"\basm\b|__asm__|\b(in|out)[bwl]\(",
                                f"{rel} touches hardware")
            name = os.path.splitext(os.path.basename(rel))[0]
            if rel.endswith(".c"):
                test = os.path.join(ROOT, "tests", "host", "c", f"test_{name}.c")
                self.assertTrue(os.path.exists(test), f"{rel} has no {test}")

    def test_no_driver_knows_the_exit_model(self):
        users = [rel for rel, inc in guest_includes()
                 if layer(inc) == "model" and layer(rel) in ("drivers", "arch", "platform")]
        self.assertEqual(users, [])

    def test_one_pci_enumeration(self):
        """Only drivers/pci.c walks the bus (its own config-space loop)."""
        scanners = []
        for rel in guest_files():
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                text = f.read()
            if re.search(r"for \(dev = 0; dev < PCI_MAX_DEV", text):
                scanners.append(rel)
        self.assertEqual(scanners, ["drivers/pci.c"])


if __name__ == "__main__":
    unittest.main()
