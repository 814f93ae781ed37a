"""tests/host/test_runplan.py - a run is a value (session/plan.py): the
options are checked once into a frozen RunPlan, the matrix and the sweep
are new plans, and no module of the library writes into the argparse
namespace (`args.X = ...`, `setattr(args, ...)`): what varies between
boots is a plan made with dataclasses.replace, not an edited namespace."""
import argparse
import ast
import copy
import dataclasses
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from tests.host.test_pylayout import LIB, modules  # noqa: E402
from trapmeterlib.commands import common, run as run_cmd  # noqa: E402
from trapmeterlib.session import plan as run_plan  # noqa: E402
from trapmeterlib.values.errors import OptionError  # noqa: E402

# the parsed options' names a command receives
NAMESPACES = ("args",)
# writes into the namespace, at most this many a module: a new one
# fails; none is left (bisect, bisect-step and sensitivity build frozen
# values of their own: commands/bisect_plan.py, sensitivity.Study;
# history passes its default alpha on: commands/history.alpha_of)
LEFT = {}


def namespace_writes(tree):
    """"args.X = ... (line N)" for each write into a namespace a module
    makes: an assignment to an attribute of `args`, or setattr(args, ...)."""
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute) and \
                        isinstance(sub.value, ast.Name) and \
                        sub.value.id in NAMESPACES and \
                        isinstance(sub.ctx, ast.Store):
                    out.append("%s.%s = ... (line %d)" % (
                        sub.value.id, sub.attr, node.lineno))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "setattr" and node.args and \
                isinstance(node.args[0], ast.Name) and \
                node.args[0].id in NAMESPACES:
            out.append("setattr(%s, ...) (line %d)" % (node.args[0].id,
                                                       node.lineno))
    return out


def words(*more):
    return ["--accel", "tcg", "--no-build", "--json", os.devnull] + list(more)


def plan_of(*more, **overrides):
    """The plan of run words `more` (QEMU arguments after a '--')."""
    more, extra = common.split_extra(list(more))
    return run_cmd.plan_from_words(words(*more), extra, say=lambda _t: None,
                                   **overrides)


class NoNamespaceWrites(unittest.TestCase):
    def test_the_walk_sees_a_write(self):
        tree = ast.parse("args.suite = 'x'\nargs.n += 1\n"
                         "setattr(args, 'y', 2)\nx = args.suite\n"
                         "args.viommu, args.log = (1,), 2\n")
        self.assertCountEqual(namespace_writes(tree), [
            "args.suite = ... (line 1)", "args.n = ... (line 2)",
            "setattr(args, ...) (line 3)", "args.viommu = ... (line 5)",
            "args.log = ... (line 5)"])

    def test_no_module_writes_into_the_parsed_options(self):
        bad = []
        for dotted, path in sorted(modules().items()):
            with open(path, encoding="utf-8") as fh:
                found = namespace_writes(ast.parse(fh.read(), path))
            if len(found) > LEFT.get(dotted, 0):
                bad += ["%s: %s" % (dotted, w) for w in found]
        self.assertEqual(bad, [], "build a plan (session/plan.py) or a "
                         "new value instead of editing the namespace")
        self.assertTrue(os.path.isdir(LIB))


class Plan(unittest.TestCase):
    def test_a_plan_is_frozen(self):
        plan = plan_of()
        with self.assertRaises(dataclasses.FrozenInstanceError):
            plan.suite = "pio"
        with self.assertRaises(dataclasses.FrozenInstanceError):
            plan.virtio_nics = 1
        with self.assertRaises(TypeError):
            plan.suite_options["virtio_nics"] = 1

    def test_building_leaves_the_namespace_as_parsed(self):
        top = run_cmd.Parser(prog="t")
        run_cmd.add_parser(top.add_subparsers(dest="command"),
                           argparse.RawDescriptionHelpFormatter)
        args = top.parse_args(["run"] + words("--firmware", "ovmf", "--boot",
                                              "iso", "--log", ROOT + os.sep,
                                              "--virtio-matrix", "--suite",
                                              "pio"))
        before = copy.deepcopy(vars(args))
        try:
            run_plan.build_plan(args)
        except OptionError:
            pass                    # no OVMF here: the namespace still counts
        self.assertEqual(vars(args), before)

    def test_derived_values(self):
        plan = plan_of("--ide-disk-size", "1M", "--cmdline", "a=1",
                       "--cmdline", "b=2", "--", "-m", "64")
        self.assertEqual(plan.ide_disk_bytes, 1 << 20)
        self.assertEqual(run_plan.user_words(plan), ["a=1", "b=2"])
        self.assertEqual(plan.extra, ("-m", "64"))
        self.assertEqual(plan.viommu, ("off",))
        self.assertIsNone(plan.virtio_transport)   # a suite's option

    def test_the_matrix_is_six_plans_of_one(self):
        plan = plan_of("--virtio-matrix", "--suite", "pio")
        self.assertEqual(plan.suite, "pio,virtio")
        paths = run_plan.matrix_plans(plan)
        self.assertEqual([(t, i) for t, i, _p in paths], list(
            run_plan.virtio.MATRIX))
        for transport, ioeventfd, one in paths:
            self.assertEqual((one.virtio_transport, one.ioeventfd),
                             (transport, ioeventfd))
            self.assertEqual(one.suite, "pio,virtio")
        self.assertIsNone(plan.virtio_transport)   # the first is unchanged
        self.assertEqual([p.no_build for _t, _i, p in paths],
                         [True] * 6)               # --no-build given
        built = plan_of("--virtio-matrix", no_build=False)
        self.assertEqual([p.no_build for _t, _i, p in
                          run_plan.matrix_plans(built)], [False] + [True] * 5)

    def test_the_sweep_is_a_plan_per_setting(self):
        plan = plan_of("--viommu", "off,intel", "--machine", "q35",
                       "--log", "r.log")
        self.assertEqual(plan.suite, "dma")
        self.assertEqual([(s, p.viommu, p.log) for s, p in
                          run_plan.sweep_plans(plan)],
                         [("off", ("off",), "r.off.log"),
                          ("intel", ("intel",), "r.intel.log")])

    def test_bad_options_are_named(self):
        for more, text in ((("--repeat", "0"), "--repeat must be at least 1"),
                           (("--rounds", "0"), "--rounds must be"),
                           (("--suite", ""), "--suite must be a non-empty"),
                           (("--cmdline", "sync=on"), "sync="),
                           (("--virtio-matrix", "--repeat", "2"), "--repeat"),
                           (("--firmware", "qboot", "--boot", "iso"),
                            "--firmware qboot needs --boot direct")):
            with self.assertRaises(OptionError) as ctx:
                plan_of(*more)
            self.assertIn(text, ctx.exception.message, more)


if __name__ == "__main__":
    unittest.main()
