"""tests/boot/test_lava.py - `make lava-test`: jobs written by
`tools/trapmeter lava-job --no-kvm` run by a real lava-run (TCG) on the
built ISO, with a device rendered from lava-server's qemu.jinja2 template
(fetched once with `apt-get download lava-server` into build/lava/).

Asserts: every @tm result of the guest's own dump (rebuilt from the serial
lines in the log, count and CRC checked) is a LAVA test case with the same
measurement; a failing check is a failing case; a bad kernel key makes the
job show failing cases; import-lava writes results.json from the log.
Skipped, with the reason, without lava-dispatcher (apt-get install
--no-install-recommends lava-dispatcher)."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

from tests.boot.common import ROOT, RUNNER, need_build

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.backends import lava_results, lava_job  # noqa: E402

TEMPLATES = os.path.join(ROOT, "build", "lava", "device-types")
TEMPLATE_FILES = ("base.jinja2", "qemu.jinja2")
RENDER = os.path.join(ROOT, "tests", "boot", "lava_device.py")
DISPATCHER_DIR = "/var/lib/lava/dispatcher"
LAVA_RUN_TIMEOUT_S = 240
GOOD = ("--suite", "pio,exits", "--quick",
        "--case", "fwcfg.in8.*.4096,debugcon.out8.*.512,cpuid,pio.*")
JOBS = {"good": GOOD,
        "good_again": GOOD,
        "fail_check": ("--suite", "exits", "--quick", "--cmdline",
                       "fail_check=on"),
        "bad_key": ("--suite", "exits", "--cmdline", "bogus=1")}


def lava_python(lava_run):
    """lava-run's own interpreter (it has jinja2 and yaml)."""
    with open(lava_run, "rb") as fh:
        first = fh.readline().decode("utf-8", "replace")
    return first[2:].strip().split()[0] if first.startswith("#!") else None


def fetch_templates():
    """qemu.jinja2 + base.jinja2 from Debian's lava-server package; None
    or the reason they could not be had."""
    if all(os.path.exists(os.path.join(TEMPLATES, f)) for f in TEMPLATE_FILES):
        return None
    with tempfile.TemporaryDirectory(prefix="tm-lava-deb-") as tmp:
        got = subprocess.run(["apt-get", "download", "lava-server"], cwd=tmp,
                             capture_output=True, text=True, timeout=300)
        debs = glob.glob(os.path.join(tmp, "lava-server_*.deb"))
        if got.returncode != 0 or not debs:
            return ("cannot fetch qemu.jinja2: 'apt-get download lava-server' "
                    "failed: %s" % (got.stderr.strip()[-300:] or got.returncode))
        subprocess.run(["dpkg", "-x", debs[0], os.path.join(tmp, "x")],
                       check=True, timeout=120)
        src = os.path.join(tmp, "x", "usr", "share", "lava-server",
                           "device-types")
        os.makedirs(TEMPLATES, exist_ok=True)
        for name in TEMPLATE_FILES:
            shutil.copyfile(os.path.join(src, name),
                            os.path.join(TEMPLATES, name))
    return None


def run_job(name, args, tmp, iso, blob, python, job_id):
    """lava-job -> device -> lava-run; returns (returncode, log text)."""
    job = os.path.join(tmp, name + ".yaml")
    device = os.path.join(tmp, name + "-device.yaml")
    subprocess.run([RUNNER, "lava-job", "--no-kvm", "--iso-url",
                    "file://" + iso, "--blob-url", "file://" + blob,
                    "--timeout-min", "3", "-o", job, *args], check=True,
                   capture_output=True, timeout=60)
    subprocess.run([python, RENDER, TEMPLATES, job, device], check=True,
                   capture_output=True, timeout=60)
    proc = subprocess.run(["lava-run", "--job-id", str(job_id), "--output-dir",
                           os.path.join(tmp, name + "-out"), "--device",
                           device, job], capture_output=True, text=True,
                          timeout=LAVA_RUN_TIMEOUT_S)
    with open(os.path.join(tmp, name + ".log"), "w") as fh:
        fh.write(proc.stderr)
    return proc.returncode, proc.stderr


class LavaJobs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.iso")
        lava_run = shutil.which("lava-run")
        if lava_run is None:
            raise unittest.SkipTest(
                "lava-dispatcher not installed (apt-get install "
                "--no-install-recommends lava-dispatcher): LAVA job not run")
        if os.geteuid() != 0 and not os.access(DISPATCHER_DIR, os.W_OK):
            raise unittest.SkipTest("lava-run needs write access to %s "
                                    "(run as root)" % DISPATCHER_DIR)
        cls.python = lava_python(lava_run)
        why = fetch_templates()
        if why:
            raise unittest.SkipTest(why)
        cls.tmp = tempfile.mkdtemp(prefix="tm-lava-")
        blob = os.path.join(cls.tmp, "blob.bin")
        subprocess.run([RUNNER, "lava-job", "--write-blob", blob, "-o",
                        os.devnull], check=True, timeout=60)
        iso = os.path.join(ROOT, "build", "trapmeter.iso")
        cls.runs, threads = {}, []
        for index, (name, args) in enumerate(JOBS.items()):
            job_id = os.getpid() * 10 + index

            def work(name=name, args=args, job_id=job_id):
                cls.runs[name] = run_job(name, args, cls.tmp, iso, blob,
                                         cls.python, job_id)
            threads.append(threading.Thread(target=work))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        cls.parsed = {name: lava_results.read_log(name, log)
                      for name, (_rc, log) in cls.runs.items()}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(getattr(cls, "tmp", ""), ignore_errors=True)

    def cases(self, name):
        return {c["test_case_id"]: c for c in lava_results._guest_cases(
            self.parsed[name])}

    def dump(self, name):
        from trapmeterlib.guest.dump import parse_dump
        return parse_dump("\n".join(self.parsed[name].serial).encode())

    def describe(self, name):
        return self.runs[name][1][-3000:]

    def test_good_job_completes(self):
        rc, log = self.runs["good"]
        self.assertEqual(rc, 0, self.describe("good"))
        self.assertEqual(self.parsed["good"].job_result, "pass")
        self.assertIn("Job finished correctly", log)
        self.assertEqual(self.parsed["good"].bad_lines, [])

    def test_every_result_is_a_case_with_its_median(self):
        dump = self.dump("good")
        self.assertEqual(dump.problems, [], self.describe("good"))
        self.assertEqual(dump.end_status, "ok")
        cases = self.cases("good")
        cycles = {k: c for k, c in cases.items() if c["units"] == "cycles"}
        self.assertGreaterEqual(len(dump.results), 8)
        self.assertEqual(len(cycles), len(dump.results))
        for res in dump.results:
            case = cycles.get(res["case"])
            self.assertIsNotNone(case, res["case"])
            self.assertEqual(case["result"], "pass")
            self.assertEqual(case["measurement"], res["cycles"]["median"])
            self.assertEqual(case["case"], lava_results.mangle(res["case"]))
        self.assertEqual(lava_results.cross_check(dump, list(cases.values())), [])
        self.assertEqual(cases["check.fwcfg.blob"]["result"], "pass")
        self.assertEqual(cases[lava_job.STATUS_CASE]["result"], "pass")

    def test_boot_command_from_template(self):
        cmd = self.parsed["good"].boot_command or ""
        for part in ("-no-reboot", "-nodefaults", "isa-debug-exit",
                     "-cdrom ", "name=opt/trapmeter/blob,file=",
                     "name=opt/trapmeter/cmdline,string=suite=pio,,exits"):
            self.assertIn(part, cmd)
        self.assertNotIn("-enable-kvm", cmd)

    def test_failing_check_is_failing_case(self):
        cases = self.cases("fail_check")
        self.assertEqual(cases["check.hook.fail_check"]["result"], "fail",
                         self.describe("fail_check"))
        self.assertEqual(cases[lava_job.STATUS_CASE]["result"], "fail")
        self.assertEqual(cases[lava_job.STATUS_CASE]["measurement"], 1)
        self.assertEqual(self.dump("fail_check").end_status, "check-failed")

    def test_bad_key_fails_visibly(self):
        cases = self.cases("bad_key")
        self.assertEqual(cases["error.bad-input"]["result"], "fail",
                         self.describe("bad_key"))
        self.assertEqual(cases[lava_job.STATUS_CASE]["measurement"], 2)
        self.assertEqual([k for k, c in cases.items()
                          if c["result"] == "pass"], [])
        self.assertIn("unknown key 'bogus'", "\n".join(
            self.parsed["bad_key"].serial))

    def test_import_lava(self):
        out = os.path.join(self.tmp, "imported.json")
        logs = [os.path.join(self.tmp, n + ".log")
                for n in ("good", "fail_check", "bad_key")]
        proc = subprocess.run([RUNNER, "import-lava", *logs, "--json", out],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 2, proc.stderr)   # worst: bad key
        with open(out) as fh:
            doc = json.load(fh)
        good, fail, bad = doc["boots"]
        self.assertEqual([good["status"], fail["status"], bad["status"]],
                         ["ok", "check-failed", "bad-input"])
        cases = self.cases("good")
        self.assertEqual(len(good["results"]), good["lava"]["dump_results"])
        for res in good["results"]:
            self.assertEqual(res["cycles"]["median"],
                             cases[res["case"]]["measurement"])
        self.assertEqual(good["lava"]["mismatches"], [])
        self.assertEqual(doc["host"]["accel"], "tcg")
        self.assertEqual(doc["summary"]["boots"], 3)

    def test_compare_two_imported_runs(self):
        """Fleet results flow back into compare: two LAVA runs of the same
        job, each imported, compared case by case (A/A: both accepted,
        every case of the base compared)."""
        paths = []
        for name in ("good", "good_again"):
            out = os.path.join(self.tmp, name + ".json")
            proc = subprocess.run([RUNNER, "import-lava",
                                   os.path.join(self.tmp, name + ".log"),
                                   "--json", out], capture_output=True,
                                  text=True, timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            paths.append(out)
        verdicts = os.path.join(self.tmp, "verdicts.json")
        proc = subprocess.run([RUNNER, "compare", *paths, "--json", verdicts],
                              capture_output=True, text=True, timeout=120)
        # the inputs must be accepted; two imported runs are not one
        # interleaved session, so their timing rows get no verdict (13)
        self.assertIn(proc.returncode, (0, 10, 13), proc.stdout + proc.stderr)
        with open(verdicts) as fh:
            doc = json.load(fh)
        with open(paths[0]) as fh:
            base_cases = {r["case"] for r in json.load(fh)["boots"][0]["results"]}
        rows = doc["rows"] if isinstance(doc, dict) else doc
        self.assertEqual({r["case"] for r in rows}, base_cases)
