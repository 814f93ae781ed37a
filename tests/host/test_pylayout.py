"""tests/host/test_pylayout.py - the host library's layers: no module of
tools/trapmeterlib imports the CLI (cli.py) or a command (commands/),
except cli.py and commands/ themselves, and no module is longer than
MAX_LINES unless its docstring has a line starting "Size:" that says why,
and no module but system/children.py starts a child process itself
(subprocess.run/Popen/..., os.system/popen): children.py gives every
child a timeout, its own process group and death with the runner.
The imports are read from each module's syntax tree, so an import inside
a function counts too."""
import ast
import os
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "tools", "trapmeterlib")
MAX_LINES = 500
UPPER = ("trapmeterlib.cli", "trapmeterlib.commands")
CHILDREN = "trapmeterlib.system.children"
# what starts a process, by module: only CHILDREN may name these
STARTERS = {"subprocess": ("run", "Popen", "call", "check_call",
                           "check_output", "getoutput", "getstatusoutput"),
            "os": ("system", "popen")}


def modules():
    """{dotted name: path} of every module of the library."""
    out = {}
    for folder, _dirs, files in os.walk(LIB):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.dirname(LIB))[:-3]
                dotted = rel.replace(os.sep, ".")
                out[dotted[:-len(".__init__")] if dotted.endswith(".__init__")
                    else dotted] = path
    return out


def imported(dotted, path, tree):
    """The dotted names a module imports (relative imports resolved)."""
    package = dotted if path.endswith("__init__.py") else dotted.rpartition(".")[0]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names.append(mod)
            names += [mod + "." + a.name for a in node.names]
    return names


def process_starts(tree):
    """"subprocess.run" (line N) for each STARTERS name a module uses, as
    an attribute or imported by name."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.attr in STARTERS.get(node.value.id, ()):
            out.append("%s.%s (line %d)" % (node.value.id, node.attr, node.lineno))
        elif isinstance(node, ast.ImportFrom) and node.module in STARTERS:
            out += ["%s.%s (line %d)" % (node.module, a.name, node.lineno)
                    for a in node.names if a.name in STARTERS[node.module]]
    return out


def is_upper(dotted):
    return any(dotted == u or dotted.startswith(u + ".") for u in UPPER)


class HostLibraryLayout(unittest.TestCase):
    def test_no_library_module_imports_the_cli_or_a_command(self):
        bad = []
        for dotted, path in sorted(modules().items()):
            if is_upper(dotted):
                continue
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            bad += ["%s imports %s" % (dotted, name)
                    for name in imported(dotted, path, tree) if is_upper(name)]
        self.assertEqual(bad, [])

    def test_no_long_module_without_a_reason(self):
        bad = []
        for dotted, path in sorted(modules().items()):
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            lines = text.count("\n")
            doc = ast.get_docstring(ast.parse(text, path)) or ""
            why = any(line.startswith("Size:") for line in doc.splitlines())
            if lines > MAX_LINES and not why:
                bad.append("%s: %d lines" % (dotted, lines))
        self.assertEqual(bad, [], "split it, or say why in a 'Size:' line")

    def test_children_start_only_through_children_py(self):
        bad = []
        for dotted, path in sorted(modules().items()):
            if dotted == CHILDREN:
                continue
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            bad += ["%s: %s" % (dotted, s) for s in process_starts(tree)]
        self.assertEqual(bad, [], "run children through system/children.py")

    def test_process_starts_are_seen(self):
        tree = ast.parse("import subprocess, os\nfrom subprocess import Popen\n"
                         "subprocess.run(['x'])\nos.system('x')\n"
                         "subprocess.DEVNULL\n")
        self.assertEqual(process_starts(tree), [
            "subprocess.Popen (line 2)", "subprocess.run (line 3)",
            "os.system (line 4)"])

    def test_the_checks_see_the_library(self):
        found = modules()
        self.assertIn("trapmeterlib.system.forkrun", found)
        self.assertIn("trapmeterlib.cli", found)


if __name__ == "__main__":
    unittest.main()
