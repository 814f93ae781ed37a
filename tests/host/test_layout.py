"""tests/host/test_layout.py - the guest's layering, read from its includes.

lib/ (freestanding helpers) sits below everything; arch/x86/ and drivers/
build on lib/ only (drivers may use arch/x86/); kernel/ is the top and may
include anything but tests/.  Drivers count what they do and know no exit
model (kernel/model.h).  docs/design.md draws the same picture.
"""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# folder -> folders its files may include
ALLOWED = {
    "lib": {"lib"},
    "arch": {"lib", "arch"},
    "drivers": {"lib", "arch", "drivers"},
    "kernel": {"lib", "arch", "drivers", "kernel"},
}


def guest_includes():
    """(file, included path) for every quoted include in the guest's C."""
    for top in ALLOWED:
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT)
                with open(path, encoding="utf-8") as f:
                    for inc in INCLUDE.findall(f.read()):
                        yield rel, inc


def layering_violations(pairs):
    bad = []
    for rel, inc in pairs:
        src, dst = rel.split(os.sep)[0], inc.split("/")[0]
        if dst not in ALLOWED[src]:
            bad.append(f"{rel} includes {inc}")
    return bad


class Layout(unittest.TestCase):
    def test_layers_include_only_below(self):
        self.assertEqual(layering_violations(guest_includes()), [])

    def test_rule_catches_an_upward_include(self):
        bad = layering_violations([("drivers/ata.c", "kernel/model.h"),
                                   ("lib/fmt.c", "arch/x86/io.h")])
        self.assertEqual(len(bad), 2)

    def test_no_driver_knows_the_exit_model(self):
        users = [rel for rel, inc in guest_includes()
                 if inc == "kernel/model.h" and rel.startswith("drivers")]
        self.assertEqual(users, [])

    def test_one_pci_enumeration(self):
        """Only drivers/pci.c walks the bus (its own config-space loop)."""
        scanners = []
        for top in ("drivers", "kernel", "arch"):
            for dirpath, _dirs, files in os.walk(os.path.join(ROOT, top)):
                for name in files:
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                    if re.search(r"for \(dev = 0; dev < PCI_MAX_DEV", text):
                        scanners.append(os.path.relpath(path, ROOT))
        self.assertEqual(scanners, [os.path.join("drivers", "pci.c")])


if __name__ == "__main__":
    unittest.main()
