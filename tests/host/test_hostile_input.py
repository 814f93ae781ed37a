"""tests/host/test_hostile_input.py - hostile input, round two (issue 27):
what the tools accept.

- Every record of a sealed dump is checked against its schema after the
  seal (types, ranges, required fields); the status record's counts agree
  with its status; results.json's checks are covered by its integrity data.
- LAVA inputs: YAML aliases, nesting and numbers capped, CSV fields capped,
  nan/inf never written.
- Options: unknown metrics refused; duplicate or conflicting kernel words
  refused by one rule; command lines the guest cannot carry refused.
- Strings from host files are escaped like guest strings, bidi controls
  included.

Forged logs are resealed (tests/host/test_hostile.py forge) so that only the
property under test is wrong."""

import json
import os
import unittest

from tests.host.test_hostile import (FAILED_LOG, FIXTURES, OK_LOG, Cli,
                                     forge, read_log, replace_tm)

SCHEMA2 = os.path.join(FIXTURES, "tcg-schema2.json")
BASE = os.path.join(FIXTURES, "tcg-base.json")
BIDI = ("\u202e", "\u2066")


def first_result(lines, fn):
    """fn applied to the first result record only."""
    done = []

    def once(rec):
        if done:
            return rec
        done.append(1)
        return fn(rec)
    return replace_tm(lines, "result", once)


def strict_json(text):
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(
        ValueError("bare " + c)))


class RecordSchema(Cli):
    """A resealed log whose records have the wrong shape is garbled (6)."""

    def assert_garbled(self, lines, needle):
        proc = self.parse(forge(lines), "--json", self.path("r.json"))
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn(needle, proc.stderr)

    def test_result_without_case(self):
        lines = first_result(read_log(OK_LOG),
                             lambda r: {k: v for k, v in r.items()
                                        if k != "case"})
        self.assert_garbled(lines, "'case'")

    def test_result_without_suite(self):
        lines = first_result(read_log(OK_LOG),
                             lambda r: {k: v for k, v in r.items()
                                        if k != "suite"})
        self.assert_garbled(lines, "'suite'")

    def test_samples_not_a_number(self):
        lines = first_result(read_log(OK_LOG),
                             lambda r: dict(r, samples="eight"))
        self.assert_garbled(lines, "'samples'")

    def test_negative_bytes(self):
        lines = first_result(read_log(OK_LOG), lambda r: dict(r, bytes=-4096))
        self.assert_garbled(lines, "'bytes'")

    def test_cycles_not_an_object(self):
        lines = first_result(read_log(OK_LOG), lambda r: dict(r, cycles=5))
        self.assert_garbled(lines, "'cycles'")

    def test_check_ok_not_a_bool(self):
        lines = replace_tm(read_log(OK_LOG), "check",
                           lambda r: dict(r, ok="yes"))
        self.assert_garbled(lines, "'ok'")

    def test_status_ok_with_lines_dropped(self):
        lines = replace_tm(read_log(OK_LOG), "status",
                           lambda r: dict(r, lines_dropped=3))
        self.assert_garbled(lines, "lines_dropped")

    def test_status_ok_with_a_failed_check_count(self):
        lines = replace_tm(read_log(OK_LOG), "status",
                           lambda r: dict(r, checks_failed=1))
        self.assert_garbled(lines, "checks_failed")

    def test_status_failed_with_no_failed_check(self):
        lines = replace_tm(read_log(FAILED_LOG), "status",
                           lambda r: dict(r, checks_failed=0))
        self.assert_garbled(lines, "checks_failed")

    def test_the_real_logs_pass(self):
        for log in (OK_LOG, FAILED_LOG,
                    os.path.join(FIXTURES, "serial-tcg-rounds4.log")):
            proc = self.cli("parse", log)
            self.assertIn(proc.returncode, (0, 1), proc.stderr)
            self.assertNotIn("schema", proc.stderr)


class ResultsIntegrity(Cli):
    """compare re-verifies the checks too: an edited ok is refused."""

    def test_edited_failed_check_is_refused(self):
        with open(os.path.join(FIXTURES, "tcg-schema2.json"),
                  encoding="utf-8") as fh:
            doc = json.load(fh)
        boot = doc["boots"][0]
        self.assertTrue(boot["checks"])
        boot["checks"][0]["ok"] = not boot["checks"][0]["ok"]
        path = self.write("edited.json", json.dumps(doc))
        proc = self.cli("compare", SCHEMA2, path)
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("check", proc.stderr)

    def test_dropped_check_is_refused(self):
        with open(SCHEMA2, encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["boots"][0]["checks"].pop()
        path = self.write("edited.json", json.dumps(doc))
        proc = self.cli("compare", SCHEMA2, path)
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("check", proc.stderr)


def lava_log(measurement):
    """A minimal lava-run log: one trapmeter test case, no serial dump."""
    return ("{dt: x, lvl: results, msg: {case: cpuid, definition: "
            "0_trapmeter, result: pass, measurement: %s, units: cycles}}\n"
            % measurement)


class LavaInputs(Cli):
    """import-lava: named errors (2) for absurd inputs, never 70, never a
    bare NaN/Infinity in results.json."""

    def imp(self, name, text):
        path = self.write(name, text)
        return self.cli("import-lava", "--json", self.path("out.json"), path,
                        timeout=30)

    def assert_bad(self, proc, needle):
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(needle, proc.stderr)
        self.assertFalse(os.path.exists(self.path("out.json")))

    def test_billion_laughs(self):
        text = ['- &a ["lol","lol","lol","lol","lol","lol","lol","lol"]']
        for prev, name in zip("abcdefgh", "bcdefghi"):
            text.append("- &%s [%s]" % (name, ",".join(["*" + prev] * 9)))
        text.append("- name: x\n  suite: 0_trapmeter\n  result: pass\n"
                    "  measurement: 1\n  unit: cycles\n  metadata: *i")
        self.assert_bad(self.imp("laughs.yaml", "\n".join(text) + "\n"),
                        "alias")

    def test_deep_block_yaml(self):
        text = "- x:\n" + "".join("%s- y:\n" % ("  " * (i + 1))
                                  for i in range(3000))
        self.assert_bad(self.imp("deep.yaml", text), "nest")

    def test_deep_flow_yaml(self):
        self.assert_bad(self.imp("deepf.yaml",
                                 "- " + "[" * 50000 + "]" * 50000 + "\n"),
                        "nest")

    def test_csv_field_over_the_cap(self):
        text = ("job,suite,result,measurement,unit,name,metadata\n"
                "7,0_trapmeter,pass,55,cycles,cpuid," + "m" * 200000 + "\n")
        self.assert_bad(self.imp("big.csv", text), "field")

    def test_huge_integers(self):
        for digits in (4000, 100000):
            rows = '[{"name":"cpuid","suite":"0_trapmeter","result":"pass",' \
                   '"unit":"cycles","measurement":%s}]' % ("9" * digits)
            proc = self.imp("big%d.json" % digits, rows)
            self.assertNotEqual(proc.returncode, 70, proc.stderr)
            self.assertIn(proc.returncode, (2, 6), proc.stderr)
            self.assertIn("out of range", proc.stderr)

    def test_non_finite_measurements_are_never_written(self):
        for value in ("nan", "inf", "-inf", "1e999", ".nan"):
            proc = self.imp("nf.log", lava_log(value))
            self.assertNotEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("out of range", proc.stderr)
            if os.path.exists(self.path("out.json")):
                with open(self.path("out.json"), encoding="utf-8") as fh:
                    strict_json(fh.read())

    def test_json_export_with_nan(self):
        rows = '[{"name":"cpuid","suite":"0_trapmeter","result":"pass",' \
               '"unit":"cycles","measurement":NaN}]'
        proc = self.imp("nan.json", rows)
        self.assert_bad(proc, "NaN")


class Thresholds(Cli):

    def test_unknown_metric_is_refused(self):
        proc = self.cli("compare", BASE, SCHEMA2, "--threshold", "bogus=5")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("bogus", proc.stderr)
        self.assertIn("cycles_per_op", proc.stderr)

    def test_empty_metric_is_refused(self):
        proc = self.cli("compare", BASE, SCHEMA2, "--threshold", "=5")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--threshold", proc.stderr)

    def test_known_metrics_pass(self):
        proc = self.cli("compare", BASE, SCHEMA2, "--threshold",
                        "cycles_per_op=5", "--threshold", "rx_mib_s=3",
                        "--threshold", "2")
        self.assertIn(proc.returncode, (0, 10, 13), proc.stderr)

    def test_ab_unknown_metric_is_refused(self):
        proc = self.cli("ab", "--no-build", "--metrics", "cycles_per_op,bogus",
                        "--accel", "tcg", "--qemu", self.good_fake())
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("bogus", proc.stderr)
        self.assertNotIn("planning boot", proc.stderr)


class KernelWords(Cli):
    """One rule: a kernel word is given once; a runner option and a
    --cmdline word for the same key are refused, before any boot."""

    def refused(self, *args, needle):
        proc = self.run_fake(self.good_fake(), *args)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(needle, proc.stderr)
        self.assertNotIn("suite pio", proc.stderr, "the run booted")

    def test_duplicate_word_in_cmdline(self):
        self.refused("--cmdline", "samples=5 samples=7", needle="samples=")

    def test_suite_option_and_suite_word(self):
        self.refused("--suite", "pio", "--cmdline", "suite=exits",
                     needle="--suite")

    def test_rounds_option_and_rounds_word(self):
        self.refused("--rounds", "2", "--cmdline", "rounds=3",
                     needle="--rounds")

    def test_cmdline_twice_keeps_both(self):
        proc = self.run_fake(self.good_fake(), "--cmdline", "samples=3",
                             "--cmdline", "quick", "-v")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("samples=3 quick", proc.stderr)

    def test_sync_word_without_the_runners_sync(self):
        self.refused("--cmdline", "sync=on", needle="sync")

    def test_line_the_guest_cannot_carry_is_refused(self):
        # printable ASCII up to the guest's 511 bytes fits its run record;
        # JSON escapes (a quote takes 2) can overflow it below that
        for size in (330, 413, 500):     # + " table=off": 340..510
            word = "case=" + "a" * (size - 5)
            proc = self.run_fake(self.good_fake(), "--cmdline", word)
            self.assertNotIn("run record", proc.stderr)
        for size in (420, 500):
            word = "case=" + '"' * (size - 5)
            proc = self.run_fake(self.good_fake(), "--cmdline", word)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("run record", proc.stderr)


class HostStrings(Cli):
    """Strings from results files and LAVA exports reach the terminal
    escaped, as guest strings do; bidi controls too."""

    def test_compare_escapes_host_strings(self):
        with open(SCHEMA2, encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["host"]["accel"] = "\x1b]0;pwned\x07kvm\u202e"
        path = self.write("evil.json", json.dumps(doc))
        proc = self.cli("compare", SCHEMA2, path)
        out = proc.stdout + proc.stderr
        for bad in ("\x1b", "\x07") + BIDI:
            self.assertNotIn(bad, out)

    def test_guest_bidi_is_escaped(self):
        lines = replace_tm(read_log(OK_LOG), "check",
                           lambda r: dict(r, detail="abc\u202edef\u2066"))
        proc = self.parse(forge(lines))
        out = proc.stdout + proc.stderr
        for bad in BIDI:
            self.assertNotIn(bad, out)
        self.assertIn("\\u202e", out)

    def test_lava_test_case_id_is_escaped(self):
        rows = json.dumps([{"name": "x", "suite": "0_trapmeter",
                            "result": "pass", "measurement": "5",
                            "unit": "cycles", "metadata": {"extra": [
                                {"test_case_id": "ev\x1b[2Jil\u2066"}]}}])
        path = self.write("e.json", rows)
        proc = self.cli("import-lava", "--json", self.path("o.json"), path)
        out = proc.stdout + proc.stderr
        for bad in ("\x1b",) + BIDI:
            self.assertNotIn(bad, out)

    def test_guest_error_text_is_not_mojibake(self):
        """The guest escapes each byte of UTF-8 text as \\u00XX."""
        lines = read_log(OK_LOG)
        at = next(i for i, l in enumerate(lines)
                  if l.startswith('@tm {"type":"status"'))
        lines.insert(at, "@tm " + json.dumps(
            {"type": "error", "kind": "bad-input",
             "message": "unknown key 's\u00c3\u00a4mples'"}))
        proc = self.parse(forge(lines))
        self.assertIn("s\u00e4mples", proc.stderr)
        self.assertNotIn("s\u00c3\u00a4mples", proc.stderr)


if __name__ == "__main__":
    unittest.main()
