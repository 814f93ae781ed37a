#!/usr/bin/env python3
"""Unit tests for tools/trapmeterlib/backends/lava_*.py (no LAVA, no QEMU): the job's
YAML and QEMU options, the monitor pattern against serial text as LAVA sees
it, the reader for lava-run's YAML flow lines, and import from a log and
from JSON/CSV results exports.  The end-to-end run is tests/boot/test_lava.py.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(REPO, "tools", "trapmeter")
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.backends import lava_flow, lava_results, lava_job  # noqa: E402
from tests.host.dumpseal import crc_of_lines  # noqa: E402
from trapmeterlib.values import exitstatus  # noqa: E402

ISO = "https://example.org/trapmeter.iso"


def pexpect_like(pattern):
    """The monitor compiles patterns like pexpect: DOTALL."""
    return re.compile(pattern, re.DOTALL)


class JobTests(unittest.TestCase):
    def job(self, **kw):
        return lava_job.build_job(ISO, **kw)

    def test_kvm_and_tcg_context(self):
        kvm = self.job(kvm=True)["context"]
        tcg = self.job(kvm=False)["context"]
        self.assertNotIn("no_kvm", kvm)
        self.assertTrue(tcg["no_kvm"])
        self.assertIn("-cpu max", tcg["extra_options"])
        self.assertNotIn("-cpu max", kvm["extra_options"])
        self.assertFalse(any("-accel" in o for o in kvm["extra_options"]
                             + tcg["extra_options"]))
        opts = kvm["extra_options"]
        for need in ("-no-reboot", "-nodefaults", "-serial stdio",
                     lava_job.DEBUG_EXIT):
            self.assertIn(need, opts)

    def test_timeouts(self):
        job = self.job(test_minutes=40)
        # the monitor waits for START and for each next line with the
        # connection timeout: it must not be shorter than the test's
        self.assertEqual(job["timeouts"]["connection"]["minutes"], 40)
        self.assertEqual(job["actions"][2]["test"]["timeout"]["minutes"], 40)
        self.assertGreater(job["timeouts"]["job"]["minutes"], 40)
        with self.assertRaises(lava_job.LavaError):
            self.job(test_minutes=0)

    def test_cmdline_in_fw_cfg(self):
        opts = self.job(suite="pio,exits", quick=True,
                        cmdline="samples=7")["context"]["extra_options"]
        fw = [o for o in opts if "opt/trapmeter/cmdline" in o]
        self.assertEqual(fw, ["-fw_cfg 'name=opt/trapmeter/cmdline,"
                              "string=suite=pio,,exits quick samples=7 "
                              "lava=on'"])
        with self.assertRaises(lava_job.LavaError):
            self.job(cmdline="x='y'")

    def test_the_one_rule_of_kernel_words(self):
        """lava=on is always there (lava=off would leave the job without
        test cases); a word beside the option that sets it, or given
        twice, is refused as the runner refuses it."""
        fw = [o for o in self.job(cmdline="lava=on")["context"]
              ["extra_options"] if "fw_cfg" in o]
        self.assertEqual(fw[0].count("lava=on"), 1)
        for kw in ({"cmdline": "lava=off"}, {"cmdline": "lava=1"},
                   {"suite": "pio", "cmdline": "suite=exits"},
                   {"case": "cpuid", "cmdline": "case=pio.*"},
                   {"quick": True, "cmdline": "quick"},
                   {"cmdline": "samples=3 samples=5"},
                   {"cmdline": "x" * 600}):
            with self.assertRaises(lava_job.LavaError, msg=kw):
                self.job(**kw)

    def test_images(self):
        job = self.job(blob_url="http://h/blob.bin")
        images = job["actions"][0]["deploy"]["images"]
        self.assertEqual(images["cdrom"], {"image_arg": "-cdrom {cdrom}",
                                           "url": ISO})
        self.assertIn("{blob}", images["blob"]["image_arg"])
        with self.assertRaises(lava_job.LavaError):
            lava_job.build_job("/local/path.iso")
        with self.assertRaises(lava_job.LavaError) as ctx:
            self.job(suite="ide")
        self.assertIn("--scratch-url", str(ctx.exception))
        ide = self.job(suite="ide", urls={"scratch_url": "http://h/d.img"})
        self.assertIn("scratch", ide["actions"][0]["deploy"]["images"])
        virtio = self.job(suite="virtio")["context"]["extra_options"]
        self.assertTrue(any("virtio-net-pci" in o for o in virtio))

    def test_yaml_reads_back(self):
        job = self.job(suite="exits", blob_url="file:///tmp/b")
        text = lava_job.yaml_text(job)
        try:
            import yaml
        except ImportError:
            self.skipTest("python3-yaml not importable here")
        self.assertEqual(yaml.safe_load(text), json.loads(json.dumps(job)))

    def test_monitor_pattern(self):
        mon = self.job()["actions"][2]["test"]["monitors"][0]
        serial = ("trapmeter 0.1.0 START\r\r\n"
                  "@tm {\"type\":\"result\"}\r\r\n"
                  "TM_LAVA case=fwcfg.in8.rep.4096 result=pass "
                  "measurement=1250535 units=cycles\r\r\n"
                  "TM_LAVA case=check.fwcfg.blob result=fail measurement=0 "
                  "units=none\r\r\n"
                  "trapmeter END status=check-failed\r\r\n")
        pat = pexpect_like(mon["pattern"])
        found = [m.groupdict() for m in pat.finditer(serial)]
        self.assertEqual(found[0], {"test_case_id": "fwcfg.in8.rep.4096",
                                    "result": "pass",
                                    "measurement": "1250535",
                                    "units": "cycles"})
        self.assertEqual(found[1]["result"], "fail")
        self.assertEqual(len(found), 2)
        # a line still arriving must not match with a cut number
        self.assertIsNone(pat.search("TM_LAVA case=a result=pass "
                                     "measurement=12"))
        self.assertTrue(pexpect_like(mon["end"]).search(serial))
        self.assertTrue(pexpect_like(mon["end"]).search(
            "trapmeter END status=bad-input"))
        self.assertTrue(pexpect_like(mon["start"]).search(serial))

    def test_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "job.yaml")
            blob = os.path.join(tmp, "blob.bin")
            proc = subprocess.run([TOOL, "lava-job", "--iso-url", ISO,
                                   "--write-blob", blob, "-o", out],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(out) as fh:
                self.assertIn('device_type: "qemu"', fh.read())
            self.assertEqual(os.path.getsize(blob), 65536)
            bad = subprocess.run([TOOL, "lava-job", "--iso-url", "nope"],
                                 capture_output=True, text=True)
            self.assertEqual(bad.returncode, exitstatus.BAD_INPUT)
            self.assertIn("not an http(s)://", bad.stderr)
            self.assertNotIn("Traceback", bad.stderr)


class FlowTests(unittest.TestCase):
    def test_lava_lines(self):
        line = ('{"dt": "2026-11-30T04:32:20.811552", "lvl": "results", '
                '"msg": {"case": "cpuid", "definition": "trapmeter", '
                '"extra": {"test_case_id": "cpuid"}, "level": "3.1", '
                '"measurement": ! "50.0", "result": "pass"}}')
        rec = lava_flow.parse_flow_line(line)
        self.assertEqual(rec["msg"]["measurement"], "50.0")
        self.assertEqual(rec["msg"]["extra"]["test_case_id"], "cpuid")
        self.assertEqual(lava_flow.parse_flow_line("- " + line), rec)

    def test_scalars_and_escapes(self):
        rec = lava_flow.parse_flow_line(
            '{"a": "q\\\\\\"x\\ty\\u00e9\\x41\\e", b: plain text, '
            "c: 'it''s', d: !!int \"42\", e: !!float \"1.5\", "
            'f: !!bool "true", g: null, h: [1, "two", {i: ~}], j: 7}')
        self.assertEqual(rec["a"], 'q\\"x\ty\u00e9A\x1b')
        self.assertEqual(rec["b"], "plain text")
        self.assertEqual(rec["c"], "it's")
        self.assertEqual((rec["d"], rec["e"], rec["f"], rec["g"]),
                         (42, 1.5, True, None))
        self.assertEqual(rec["h"], [1, "two", {"i": None}])
        self.assertEqual(rec["j"], 7)

    def test_bad_lines(self):
        for text in ("plain", '{"a": "unterminated}', '{"a" "b"}',
                     '{"a": "\\q"}', '{"a": 1} tail', '{"a": 1'):
            with self.assertRaises(lava_flow.FlowError, msg=text):
                lava_flow.parse_flow_line(text)

    def test_target_unquoting_round_trip(self):
        for raw in ('@tm {"a":"b\\"c"}', 'x\\"', '""', "\\\\\""):
            logged = raw.replace('"', '\\"')        # lava's ShellLogger
            self.assertEqual(lava_results.target_text(logged), raw)


def _tm(objs):
    lines = [json.dumps(o, separators=(",", ":")) for o in objs]
    end = {"type": "end", "lines": len(lines), "crc32": crc_of_lines(lines)}
    return ["@tm " + t for t in lines] + ["@tm " + json.dumps(
        end, separators=(",", ":"))]


def _log_line(lvl, msg):
    return json.dumps({"dt": "2026-01-01T00:00:00", "lvl": lvl, "msg": msg})


class ImportTests(unittest.TestCase):
    RESULT = {"type": "result", "suite": "pio", "case": "fwcfg.in8.rep.4096",
              "method": "rep", "bytes": 4096, "cycles": {"median": 1234}}

    def log(self, measurement=1234):
        serial = (["trapmeter 0.1.0 START"]
                  + _tm([{"type": "run", "schema": 1, "version": "0.1.0"},
                         self.RESULT])
                  + ["trapmeter END status=ok"])
        lines = [_log_line("target", s.replace('"', '\\"')) for s in serial]
        lines.append(_log_line("results", {
            "case": "fwcfg_in8_rep_4096", "definition": "trapmeter",
            "extra": {"test_case_id": "fwcfg.in8.rep.4096"}, "level": "3.1",
            "measurement": str(measurement), "result": "pass",
            "units": "cycles"}))
        lines.append(_log_line("results", {"case": "job",
                                           "definition": "lava",
                                           "result": "pass"}))
        return "\n".join(lines) + "\n"

    def load(self, text, suffix=".log"):
        with tempfile.NamedTemporaryFile("w", suffix=suffix,
                                         delete=False) as fh:
            fh.write(text)
        self.addCleanup(os.unlink, fh.name)
        return lava_results.load(fh.name)

    def test_log(self):
        entry, outcome = lava_results.boot_from_run(0, self.load(self.log()))
        self.assertEqual(outcome.code, exitstatus.OK, outcome.messages)
        self.assertEqual(entry["results"][0]["cycles"]["median"], 1234)
        self.assertEqual(entry["lava"]["mismatches"], [])
        self.assertEqual(entry["lava"]["job_result"], "pass")

    def test_log_disagreeing_with_dump(self):
        _entry, outcome = lava_results.boot_from_run(0, self.load(self.log(999)))
        self.assertEqual(outcome.code, exitstatus.GARBLED)
        self.assertIn("999", " ".join(outcome.messages))

    def test_json_export(self):
        rows = [{"name": "fwcfg_in8_rep_4096", "suite": "0_trapmeter",
                 "result": "pass", "measurement": "1234.0000000000",
                 "unit": "cycles", "metadata": {"extra": [
                     {"test_case_id": "fwcfg.in8.rep.4096"}]}},
                {"name": "trapmeter_status", "suite": "0_trapmeter",
                 "result": "fail", "measurement": "1.0000000000",
                 "unit": "status", "metadata": {}},
                {"name": "check_fwcfg_blob", "suite": "0_trapmeter",
                 "result": "fail", "measurement": "0", "unit": "none",
                 "metadata": "{'extra': [{'test_case_id': 'check.fwcfg.blob'}]}"},
                {"name": "job", "suite": "lava", "result": "pass"}]
        entry, outcome = lava_results.boot_from_run(0, self.load(json.dumps(rows),
                                                         ".json"))
        self.assertEqual(outcome.code, exitstatus.CHECK_FAILED)
        self.assertEqual(entry["results"][0]["case"], "fwcfg.in8.rep.4096")
        self.assertEqual(entry["results"][0]["cycles"]["median"], 1234)
        self.assertEqual(entry["checks"][0]["name"], "fwcfg.blob")
        self.assertFalse(entry["checks"][0]["ok"])

    def test_csv_export(self):
        text = ("job,suite,result,measurement,unit,name,metadata\n"
                "7,0_trapmeter,pass,55.0000000000,cycles,cpuid,{}\n"
                "7,0_trapmeter,pass,0E-10,status,trapmeter_status,{}\n")
        entry, outcome = lava_results.boot_from_run(0, self.load(text, ".csv"))
        self.assertEqual(outcome.code, exitstatus.OK, outcome.messages)
        self.assertEqual(entry["results"][0]["cycles"]["median"], 55)

    def test_cli_errors(self):
        proc = subprocess.run([TOOL, "import-lava", "/nonexistent/log"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, exitstatus.BAD_INPUT)
        self.assertIn("cannot read", proc.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            junk = os.path.join(tmp, "junk.log")
            with open(junk, "w") as fh:
                fh.write("hello\nworld\n")
            proc = subprocess.run([TOOL, "import-lava", junk, "--json",
                                   os.path.join(tmp, "r.json")],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, exitstatus.BAD_INPUT, proc.stderr)
            self.assertIn("not a lava-run log", proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)

    def test_absurd_nesting_is_bad_input(self):
        # a fuzz of import-lava found both: status 70 (RecursionError)
        with tempfile.TemporaryDirectory() as tmp:
            inputs = {"deep.json": "[" * 5000 + "]" * 5000,
                      "deep.log": '{"dt": "x", "lvl": "results", "msg": '
                                  + '{"a": ' * 3000 + "1" + "}" * 3001 + "\n"}
            for name, text in inputs.items():
                path = os.path.join(tmp, name)
                with open(path, "w") as fh:
                    fh.write(text)
                proc = subprocess.run([TOOL, "import-lava", path, "--json",
                                       os.path.join(tmp, "r.json")],
                                      capture_output=True, text=True)
                self.assertEqual(proc.returncode, exitstatus.BAD_INPUT, proc.stderr)
                self.assertIn("nest", proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
