"""tests/host/test_deps.py - `make test` names (or, as root, installs)
everything its tests need, so that a fresh Debian machine skips nothing:
tools/deps is run with a PATH that hides some tools and an `id` that says
"not root", and must name their packages and the exact command."""

import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPS = os.path.join(ROOT, "tools", "deps")
# tools the tests would otherwise skip or fail without -> Debian package
TEST_TOOLS = {"gnuplot": "gnuplot-nox", "lava-run": "lava-dispatcher",
              "chromium": "chromium",
              "objdump": "binutils", "pgrep": "procps"}
BASE_TOOLS = ("qemu-system-x86_64", "grub-mkrescue", "xorriso", "mformat",
              "nasm", "gcc", "make", "python3", "sh", "tr", "sort", "echo",
              "cat", "dpdk-testpmd", "rm")
ISO_TOOLS = ("grub-mkrescue", "xorriso", "mformat")


class MakeTestDeps(unittest.TestCase):

    def run_deps(self, hide, *args, root=None, apt=None, env=None):
        """tools/deps ARGS with the tools in hide missing; as "not root",
        or with root=DIR as root with an apt-get that appends its
        arguments to DIR/apt-get.log, then runs the shell text apt (if
        any), and installs nothing."""
        with tempfile.TemporaryDirectory(prefix="tm-deps-") as tmp:
            for tool in BASE_TOOLS + tuple(TEST_TOOLS):
                found = shutil.which(tool)
                if found and tool not in hide:
                    os.symlink(found, os.path.join(tmp, tool))
            fakes = {"id": "echo %d" % (0 if root else 1000)}
            if root:
                fakes["apt-get"] = 'echo "$*" >>%s/apt-get.log\n%s' % (
                    root, apt or "")
            for name, body in fakes.items():
                with open(os.path.join(tmp, name), "w") as fh:
                    fh.write("#!/bin/sh\n%s\n" % body)
                os.chmod(os.path.join(tmp, name), 0o755)
            return subprocess.run(["sh", DEPS, *args], capture_output=True,
                                  text=True, env={"PATH": tmp, **(env or {})},
                                  timeout=60)

    def test_test_mode_names_what_the_tests_need(self):
        proc = self.run_deps(tuple(TEST_TOOLS), "test")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        for package in TEST_TOOLS.values():
            self.assertIn(package, proc.stderr)
        self.assertIn("sudo apt-get install --no-install-recommends",
                      proc.stderr)

    def test_run_mode_does_not_need_them(self):
        proc = self.run_deps(tuple(TEST_TOOLS))
        self.assertNotIn("lava-dispatcher", proc.stderr)

    def test_default_run_needs_no_iso_tools_nor_dpdk(self):
        """`make run` on a bare machine: the direct boot under qboot needs
        the compiler, NASM and QEMU, not GRUB, xorriso, OVMF or DPDK."""
        proc = self.run_deps(ISO_TOOLS + ("dpdk-testpmd",), "run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = self.run_deps(("nasm", "qemu-system-x86_64"), "run")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("nasm (the kernel's assembly)", proc.stderr)
        self.assertIn("qemu-system-x86 (the VM)", proc.stderr)

    def test_run_mode_follows_the_options(self):
        for args, package, why in (
                (("--boot", "iso"), "xorriso", "the ISO: --boot iso"),
                (("--boot=iso",), "grub-common", "the ISO: --boot iso"),
                (("--suite", "pio,ide"), "mtools", "the ISO: suite ide's CD"),
                (("--suite=all",), "xorriso", "the ISO: suite ide's CD"),
                (("--virtio-backend", "vhost-user"), "dpdk-dev",
                 "--virtio-backend vhost-user")):
            proc = self.run_deps(ISO_TOOLS + ("dpdk-testpmd",), "run", *args)
            self.assertEqual(proc.returncode, 1, args)
            self.assertIn("%s (%s)" % (package, why), proc.stderr, args)
        proc = self.run_deps(ISO_TOOLS, "run", "--suite", "ide", "--no-ide-cd")
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_build_first_installs_the_build_not_qemu(self):
        """`make run` on a bare machine installs the build's packages
        first and builds while QEMU's install: build-first must install
        nasm and leave qemu-system-x86 to `tools/deps run`; without root
        it installs and names nothing (`run` names it all at once)."""
        hide = ("nasm", "qemu-system-x86_64")
        proc = self.run_deps(hide, "build-first")
        self.assertEqual((proc.returncode, proc.stderr), (0, ""))
        with tempfile.TemporaryDirectory(prefix="tm-apt-") as log:
            proc = self.run_deps(hide, "build-first", root=log)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(os.path.join(log, "apt-get.log")) as fh:
                calls = fh.read()
        self.assertIn("install", calls)
        self.assertIn(" nasm", calls)
        self.assertNotIn("qemu", calls)

    def test_lists_fetched_when_missing_or_stale_only(self):
        """The package lists are fetched in a fresh container (none there),
        not again by make run's second install (`tools/deps run` after
        build-first), and again when an install with them fails (stale: a
        version the mirror no longer has), then the install is retried."""
        with tempfile.TemporaryDirectory(prefix="tm-apt-") as log:
            lists, stale = os.path.join(log, "lists"), os.path.join(log, "stale")
            os.mkdir(lists)
            fake = ('case " $* " in *" install "*) [ -e %s ] && '
                    '{ rm %s; exit 100; } ;; esac\nexit 0' % (stale, stale))
            calls = []
            for state in ("fresh container", "lists", "stale lists"):
                if state == "lists":
                    open(os.path.join(lists, "deb.debian.org_debian_dists_"
                                      "bookworm_main_binary-amd64_Packages.lz4"),
                         "w").close()
                if state == "stale lists":
                    open(stale, "w").close()
                proc = self.run_deps(("qemu-system-x86_64",), "run", root=log,
                                     apt=fake, env={"DEPS_APT_LISTS": lists})
                self.assertEqual(proc.returncode, 0, proc.stderr)
                with open(os.path.join(log, "apt-get.log")) as fh:
                    calls.append([c.split()[0] for c in fh])
                os.unlink(os.path.join(log, "apt-get.log"))
        self.assertEqual(calls, [["update", "install"], ["install"],
                                 ["install", "update", "install"]])

    def test_make_run_uses_run_mode(self):
        out = subprocess.run(["make", "-n", "run"], cwd=ROOT,
                             capture_output=True, text=True).stdout
        self.assertIn("tools/deps run", out)

    def test_make_test_uses_test_mode(self):
        out = subprocess.run(["make", "-n", "test"], cwd=ROOT,
                             capture_output=True, text=True).stdout
        self.assertIn("tools/deps test", out)


class StaleBuild(unittest.TestCase):
    """A build/ from before the host tests' C files moved to tests/host/c
    keeps .d files naming tests/host/fake_io.c: make must rebuild, not
    stop with "No rule to make target"."""

    def test_old_dependency_paths_do_not_stop_make(self):
        with tempfile.TemporaryDirectory(prefix="tm-stale-") as build:
            os.makedirs(os.path.join(build, "host"))
            binary = os.path.join(build, "host", "test_virtio_pci")
            with open(binary + ".d", "w") as fh:
                fh.write("%s: tests/host/test_virtio_pci.c tests/host/fake_io.c "
                         "tests/host/shadow/arch/x86/io.h\n" % binary)
            proc = subprocess.run(["make", "-n", "BUILD=" + build, binary],
                                  cwd=ROOT, capture_output=True, text=True,
                                  timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("tests/host/c/test_virtio_pci.c", proc.stdout)
