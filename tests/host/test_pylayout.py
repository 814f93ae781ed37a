"""tests/host/test_pylayout.py - the host library's floors: a package of
tools/trapmeterlib imports only packages below it in FLOORS (docs/design.md,
"Layout", says why this order), the package graph has no cycle, every
exception class of the library derives from values/errors.TrapmeterError
(one base, one exit status each), no module of
tools/trapmeterlib imports the CLI (cli.py) or a command (commands/),
except cli.py and commands/ themselves, and no module is longer than
MAX_LINES unless its docstring has a line starting "Size:" that says why,
and no module but system/children.py starts a child process itself
(subprocess.run/Popen/..., os.system/popen): children.py gives every
child a timeout, its own process group and death with the runner.
The imports are read from each module's syntax tree, so an import inside
a function counts too."""
import ast
import importlib
import inspect
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "tools", "trapmeterlib")
MAX_LINES = 500
# bottom first: a package may import its own modules and those of the
# packages below it, never one above (the top-level cli.py is "cli")
FLOORS = ("values", "system", "stats", "guest", "counters", "output",
          "backends", "session", "commands", "cli")
ERROR_BASE = "trapmeterlib.values.errors"
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


def package(dotted):
    """The floor a module or package name is on: trapmeterlib.stats.tdist
    -> "stats", trapmeterlib.cli -> "cli" (None: not the library's)."""
    parts = dotted.split(".")
    if parts[0] != "trapmeterlib" or len(parts) < 2:
        return None
    return parts[1]


def package_edges(found=None):
    """{(importer package, imported package): ["a imports b", ...]} over
    every import of the library that crosses packages."""
    found = modules() if found is None else found
    edges = {}
    for dotted, path in sorted(found.items()):
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        for name in imported(dotted, path, tree):
            a, b = package(dotted), package(name)
            if a and b and a != b:
                edges.setdefault((a, b), []).append(
                    "%s imports %s" % (dotted, name))
    return edges


def climbing(edges):
    """The imports of `edges` that go to a package above the importer's,
    or from or to a package FLOORS does not place."""
    bad = []
    for (a, b), why in sorted(edges.items()):
        if a not in FLOORS or b not in FLOORS:
            bad += ["%s (place %s in FLOORS)" % (w, a if a not in FLOORS
                                                 else b) for w in why]
        elif FLOORS.index(b) > FLOORS.index(a):
            bad += ["%s (%s is above %s)" % (w, b, a) for w in why]
    return bad


def cycles(edges):
    """Every package that lies on a cycle of the package graph, as
    "a -> b -> ... -> a" (one per start, found by depth-first search)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    out = []

    def walk(start, node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                out.append(" -> ".join(path + [nxt]))
                return True
            if nxt not in path and walk(start, nxt, path + [nxt]):
                return True
        return False
    for start in sorted(graph):
        walk(start, start, [start])
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

    def test_no_package_imports_one_above_it(self):
        self.assertEqual(climbing(package_edges()), [],
                         "an import climbs the floors (FLOORS)")

    def test_the_package_graph_has_no_cycle(self):
        self.assertEqual(cycles(package_edges()), [])

    def test_a_climbing_import_and_a_cycle_are_seen(self):
        edges = {("stats", "output"): ["trapmeterlib.stats.x imports "
                                       "trapmeterlib.output.report"],
                 ("output", "stats"): ["trapmeterlib.output.report imports "
                                       "trapmeterlib.stats.x"],
                 ("guest", "values"): ["trapmeterlib.guest.y imports "
                                       "trapmeterlib.values.figure"],
                 ("stats", "extra"): ["trapmeterlib.stats.x imports "
                                      "trapmeterlib.extra.z"]}
        self.assertEqual(climbing(edges), [
            "trapmeterlib.stats.x imports trapmeterlib.extra.z (place extra "
            "in FLOORS)",
            "trapmeterlib.stats.x imports trapmeterlib.output.report "
            "(output is above stats)"])
        self.assertEqual(cycles(edges), ["output -> stats -> output",
                                         "stats -> output -> stats"])

    def test_every_package_is_on_a_floor(self):
        packages = {package(d) for d in modules()} - {None}
        self.assertEqual(sorted(packages - set(FLOORS)), [])

    def test_every_exception_derives_from_the_one_base(self):
        sys.path.insert(0, os.path.dirname(LIB))
        try:
            base = importlib.import_module(ERROR_BASE).TrapmeterError
            bad, seen = [], 0
            for dotted in sorted(modules()):
                module = importlib.import_module(dotted)
                for name, cls in inspect.getmembers(module, inspect.isclass):
                    if cls.__module__ != dotted or \
                            not issubclass(cls, BaseException):
                        continue
                    seen += 1
                    if not issubclass(cls, base):
                        bad.append("%s.%s" % (dotted, name))
        finally:
            sys.path.remove(os.path.dirname(LIB))
        self.assertGreater(seen, 10)
        self.assertEqual(bad, [], "derive from values/errors.TrapmeterError")

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
        self.assertIn("trapmeterlib.session.runner", found)
        self.assertIn("trapmeterlib.cli", found)


if __name__ == "__main__":
    unittest.main()
