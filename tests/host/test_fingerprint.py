"""tests/host/test_fingerprint.py - the host fingerprint of results.json
(tools/trapmeterlib/system/fingerprint.py) read from a fake /sys and
/proc tree, the ELF build-id note, the judgement of two fingerprints
(system/envdiff.py), and `compare` refusing, or with --allow-env-diff
warning about, files whose mitigations differ."""
import copy
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.values import exitstatus as status  # noqa: E402
from trapmeterlib.commands import ab_sides  # noqa: E402
from trapmeterlib.system import envdiff, fingerprint  # noqa: E402

RUNNER = os.path.join(ROOT, "tools", "trapmeter")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC 9654 96-Core Processor
stepping\t: 1
microcode\t: 0xa101148
flags\t\t: fpu svm lm

processor\t: 1
vendor_id\t: AuthenticAMD
microcode\t: 0xdeadbeef
"""


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text + "\n")


def fake_host(root, governor="performance", boost="0"):
    cpu = "sys/devices/system/cpu"
    write(root, "proc/cpuinfo", CPUINFO)
    write(root, "proc/sys/kernel/osrelease", "6.8.0-test")
    write(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz mitigations=auto")
    write(root, "sys/module/kvm/parameters/halt_poll_ns", "200000")
    write(root, "sys/module/kvm_amd/parameters/avic", "Y")
    for n in (0, 1):
        write(root, f"{cpu}/cpu{n}/cpufreq/scaling_driver", "acpi-cpufreq")
        write(root, f"{cpu}/cpu{n}/cpufreq/scaling_governor",
              governor if n == 0 else "performance")
        for s, (name, off) in enumerate((("POLL", "0"), ("C1", "0"), ("C2", "1"))):
            write(root, f"{cpu}/cpu{n}/cpuidle/state{s}/name", name)
            write(root, f"{cpu}/cpu{n}/cpuidle/state{s}/disable", off)
    write(root, f"{cpu}/cpufreq/boost", boost)
    write(root, f"{cpu}/cpuidle/current_driver", "acpi_idle")
    write(root, f"{cpu}/smt/control", "on")
    write(root, f"{cpu}/smt/active", "1")
    write(root, f"{cpu}/vulnerabilities/retbleed", "Mitigation: untrained return thunk")
    write(root, f"{cpu}/vulnerabilities/meltdown", "Not affected")
    write(root, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never")
    # /proc: this process, a busy other one, a sleeping one
    write(root, "proc/loadavg", "1.50 0.80 0.40 3/200 999")
    stat = "%d (%s) %s" + " 0" * 35 + " %d 0 0"
    write(root, "proc/4242/stat", stat % (4242, "stress (ng) x", "R", 1))
    write(root, "proc/4243/stat", stat % (4243, "sleepy", "S", 0))
    write(root, "proc/%d/stat" % os.getpid(), stat % (os.getpid(), "python3", "R", 0))


class Facts(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="tm-fp-")
        self.addCleanup(shutil.rmtree, self.root, True)

    def test_fake_host_read(self):
        fake_host(self.root)
        fp = fingerprint.host_facts(fingerprint.Host(self.root))
        self.assertEqual(fp["kernel"]["release"], "6.8.0-test")
        self.assertEqual(fp["backend"], "amd-v")
        self.assertEqual(fp["cpu"]["microcode"], "0xa101148")   # first block
        self.assertEqual(fp["cpu"]["stepping"], "1")
        self.assertEqual(fp["kvm"], {"kvm": {"halt_poll_ns": "200000"},
                                     "kvm_amd": {"avic": "Y"}})
        self.assertEqual(fp["cpufreq"], {"driver": "acpi-cpufreq",
                                         "governor": "performance", "boost": False})
        self.assertEqual(fp["idle"]["enabled"], "POLL,C1")
        self.assertEqual(fp["smt"], {"control": "on", "active": True})
        self.assertEqual(fp["vulnerabilities"]["retbleed"],
                         "Mitigation: untrained return thunk")
        self.assertEqual(fp["thp"]["enabled"], "madvise")
        self.assertEqual(envdiff.noise(fp), [])

    def test_noisy_host_named(self):
        fake_host(self.root, governor="powersave", boost="1")
        hst = fingerprint.Host(self.root)
        fp = fingerprint.host_facts(hst)
        self.assertEqual(fp["cpufreq"]["governor"],
                         {"performance": [1], "powersave": [0]})
        load = fingerprint.load_at_start(hst)
        self.assertEqual(load, {"loadavg_1m": 1.5,
                                "running_others": ["stress (ng) x"]})
        said = envdiff.noise(fp, load)
        self.assertEqual(len(said), 3, said)
        self.assertIn("powersave on CPUs 0", said[0])
        self.assertIn("turbo", said[1])
        self.assertIn("stress (ng) x", said[2])

    def test_cpus_of_qemu_below_a_wrapper(self):
        # runner 100 -> sh 200 (a wrapper that did not exec) -> qemu 300
        # with two threads on CPUs 2 and 3; testpmd 400 is left out
        stat = "%d (%s) S" + " 0" * 35 + " %d 0 0"
        write(self.root, "proc/100/task/100/children", "200 400")
        write(self.root, "proc/200/task/200/children", "300")
        write(self.root, "proc/200/task/200/stat", stat % (200, "sh", 1))
        write(self.root, "proc/300/task/300/stat", stat % (300, "qemu-system-x86", 2))
        write(self.root, "proc/300/task/301/stat", stat % (301, "CPU 0/KVM", 3))
        write(self.root, "proc/400/task/400/stat", stat % (400, "dpdk-testpmd", 1))
        hst = fingerprint.Host(self.root)
        self.assertEqual(fingerprint.descendants(100, hst, skip={400}), [200, 300])
        self.assertEqual(fingerprint.thread_cpus(300, hst),
                         {"qemu-system-x86": {2}, "CPU 0/KVM": {3}})

    def test_no_cpufreq_is_not_noise(self):
        fp = fingerprint.host_facts(fingerprint.Host(self.root))  # empty tree
        self.assertIsNone(fp["cpufreq"]["driver"])
        self.assertEqual(envdiff.noise(fp), [])


def elf_with_note(build_id):
    """A minimal ELF64 (little endian): header, one PT_LOAD, one PT_NOTE
    holding a GNU property note before the build id."""
    prop = struct.pack("<III", 4, 4, 5) + b"GNU\0" + b"\1\2\3\4"
    bid = struct.pack("<III", 4, len(build_id), 3) + b"GNU\0" + build_id
    notes = prop + bid
    phoff, phnum = 64, 2
    note_off = phoff + 56 * phnum
    head = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    head += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, phoff, 0, 0, 64, 56,
                        phnum, 64, 0, 0)
    load = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, 0, 0, 0x1000)
    note = struct.pack("<IIQQQQQQ", 4, 4, note_off, 0, 0, len(notes),
                       len(notes), 4)
    return head + load + note + notes


class BuildId(unittest.TestCase):
    def test_synthetic_note(self):
        data = elf_with_note(bytes(range(20)))
        read = lambda off, size: data[off:off + size]  # noqa: E731
        self.assertEqual(fingerprint.elf_build_id(read), bytes(range(20)).hex())

    def test_not_elf(self):
        self.assertIsNone(fingerprint.elf_build_id(lambda o, s: b"#!/bin/sh\n"[o:o + s]))

    def test_matches_readelf(self):
        readelf, true = shutil.which("readelf"), shutil.which("true")
        if not readelf or not true:
            self.skipTest("readelf or true not installed")
        out = subprocess.run([readelf, "-n", true], capture_output=True,
                             text=True).stdout
        ids = [ln.split(":")[1].strip() for ln in out.splitlines()
               if "Build ID" in ln]
        if not ids:
            self.skipTest("%s has no build id" % true)
        self.assertEqual(fingerprint.binary_facts(true)["build_id"], ids[0])

    def test_script_is_hashed(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as fh:
            fh.write("#!/bin/sh\nexec qemu-system-x86_64 \"$@\"\n")
        self.addCleanup(os.unlink, fh.name)
        facts = fingerprint.binary_facts(fh.name)
        self.assertEqual(facts["kind"], "script")
        self.assertEqual(len(facts["sha256"]), 64)


def fp(**changes):
    base = {"kernel": {"release": "6.8.0", "cmdline": "x"}, "backend": "vt-x",
            "cpu": {"microcode": "0x1"}, "vulnerabilities": {"retbleed": "Vulnerable"},
            "cpufreq": {"governor": "performance"},
            "qemu": {"path": "/a/qemu", "build_id": "aa", "version": "8.2"}}
    out = copy.deepcopy(base)
    for dotted, value in changes.items():
        node = out
        keys = dotted.split("__")
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return out


def doc(fpr):
    return {"host": {"fingerprint": fpr}} if fpr is not None else {"host": {}}


class Judge(unittest.TestCase):
    def test_same_host_nothing(self):
        self.assertEqual(envdiff.check(doc(fp()), doc(fp())), ([], []))

    def test_mitigations_refused_unless_allowed(self):
        b = doc(fp(vulnerabilities__retbleed="Mitigation: IBRS"))
        lines, refused = envdiff.check(doc(fp()), b)
        self.assertEqual(refused, ["vulnerabilities.retbleed"])
        self.assertIn("refused", lines[0])
        lines, refused = envdiff.check(doc(fp()), b, allowed=["vulnerabilities"])
        self.assertEqual(refused, [])
        self.assertIn("warning", lines[0])

    def test_qemu_differs_is_a_note_and_on_purpose_is_silent(self):
        b = doc(fp(qemu__build_id="bb", qemu__path="/b/qemu"))
        lines, refused = envdiff.check(doc(fp()), b)
        self.assertEqual(refused, [])
        self.assertEqual(len(lines), 1)          # the path is not a difference
        self.assertIn("qemu.build_id", lines[0])
        self.assertEqual(envdiff.check(doc(fp()), b, on_purpose=("qemu",)), ([], []))

    def test_microcode_backend_kernel_refused(self):
        for change in ({"cpu__microcode": "0x2"}, {"backend": "pvm"},
                       {"kernel__release": "6.9.0"}):
            self.assertTrue(envdiff.check(doc(fp()), doc(fp(**change)))[1], change)

    def test_transparent_huge_pages_refused(self):
        """THP changes what a guest's page walks and exits cost: refused."""
        a = doc(fp(thp={"enabled": "madvise", "defrag": "madvise"}))
        b = doc(fp(thp={"enabled": "always", "defrag": "madvise"}))
        lines, refused = envdiff.check(a, b)
        self.assertEqual(refused, ["thp.enabled"])
        self.assertIn("refused", lines[0])
        self.assertEqual(envdiff.check(a, b, allowed=["thp"])[1], [])

    def test_governor_is_a_note(self):
        lines, refused = envdiff.check(doc(fp()), doc(fp(cpufreq__governor="powersave")))
        self.assertEqual(refused, [])
        self.assertTrue(lines[0].startswith("note:"))

    def test_old_file_accepted_with_a_note(self):
        lines, refused = envdiff.check(doc(None), doc(fp()))
        self.assertEqual(refused, [])
        self.assertIn("base has no host fingerprint", lines[0])

    def test_ab_sides_with_other_qemus_set_qemu_on_purpose(self):
        self.assertEqual(ab_sides.side_binary(["--case", "x", "--qemu", "/b"]), "/b")
        self.assertEqual(ab_sides.side_binary(["--qemu=/c"]), "/c")
        self.assertIsNone(ab_sides.side_binary(["--case", "x"]))


class CompareCommand(unittest.TestCase):
    """`trapmeter compare` of two real fixtures given fingerprints."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tm-fp-cmp-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def files(self, retbleed_b):
        paths = []
        for name, retbleed in (("kvm-base.json", "Vulnerable"),
                               ("kvm-aa.json", retbleed_b)):
            with open(os.path.join(FIXTURES, name)) as fh:
                d = json.load(fh)
            d["host"]["fingerprint"] = fp(vulnerabilities__retbleed=retbleed)
            paths.append(os.path.join(self.dir, name))
            with open(paths[-1], "w") as fh:
                json.dump(d, fh)
        return paths

    def compare(self, *args):
        return subprocess.run([RUNNER, "compare", *args], capture_output=True,
                              text=True, timeout=120)

    def test_mitigations_differ_refused(self):
        proc = self.compare(*self.files("Mitigation: IBRS"))
        self.assertEqual(proc.returncode, status.ENV_DIFFERS, proc.stderr)
        self.assertIn("vulnerabilities.retbleed", proc.stderr)
        self.assertIn("--allow-env-diff", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)

    def test_allow_env_diff_warns_and_judges(self):
        proc = self.compare(*self.files("Mitigation: IBRS"),
                            "--allow-env-diff", "vulnerabilities.retbleed")
        # judged (not refused, 14); two run files: timing not interleaved
        self.assertIn(proc.returncode, (status.OK, status.REGRESSION,
                                        status.NOT_COMPARABLE), proc.stderr)
        self.assertIn("warning: host vulnerabilities.retbleed differs",
                      proc.stdout + proc.stderr)

    def test_fixtures_without_fingerprint_get_a_note(self):
        proc = self.compare(os.path.join(FIXTURES, "kvm-base.json"),
                            os.path.join(FIXTURES, "kvm-aa.json"))
        self.assertIn(proc.returncode, (status.OK, status.REGRESSION,
                                        status.NOT_COMPARABLE), proc.stderr)
        self.assertIn("no host fingerprint", proc.stdout + proc.stderr)


if __name__ == "__main__":
    unittest.main()
