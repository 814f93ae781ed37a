#!/usr/bin/env python3
"""Unit tests for the trapmeter host runner (tools/trapmeter).

They need no QEMU: dumps are synthesised here (with the CRC computed
independently via zlib), and the process-level behaviour (timeout, QEMU
failing to start, a good run) uses small fake QEMU scripts written to a
temporary directory and passed with --qemu.

Run from the repo root:  python3 -m unittest tests/host/test_runner.py
                    or:  python3 tests/host/test_runner.py
"""

import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from contextlib import redirect_stderr
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(REPO, "tools")
TOOL = os.path.join(TOOLS, "trapmeter")
sys.path.insert(0, TOOLS)

from trapmeterlib import cli  # noqa: E402
from trapmeterlib.guest import qemu  # noqa: E402
from trapmeterlib.output import report  # noqa: E402
from trapmeterlib.system import hostinfo  # noqa: E402
from trapmeterlib.values import exitstatus
from trapmeterlib.commands import common  # noqa: E402
from trapmeterlib.session import record as run_record, runner  # noqa: E402
from trapmeterlib.guest.dump import DumpParser, parse_dump  # noqa: E402
from tests.host import incli  # noqa: E402
from tests.host.dumpseal import crc_of_lines  # noqa: E402


# ---------------------------------------------------------------- dump builder

RUN = {"type": "run", "schema": 1, "version": "0.1.0",
       "cpu": {"vendor": "GenuineIntel", "family": 6, "model": 85,
               "stepping": 4, "brand": "Test CPU"},
       "hypervisor": "KVMKVMKVM", "firmware": "bios", "boot": "multiboot2",
       "tsc": {"khz": 2100000, "source": "kvmclock", "invariant": True},
       "timer_overhead_cycles": 40, "cmdline": "suite=pio quick",
       "cmdline_source": "fw_cfg", "samples": 31, "quick": True}


def result(case, method, median, nbytes=4096, width=1, target="fwcfg",
           direction="in", buf_offset=0, suite="pio", exits=None):
    """A result record as the guest prints it."""
    units = nbytes // width
    return {"type": "result", "suite": suite, "case": case,
            "target": target, "port": "0x511", "handler": "user",
            "dir": direction, "width": width, "method": method,
            "bytes": nbytes, "units": units, "buf_offset": buf_offset,
            "samples": 31, "iters": 1,
            "cycles": {"min": median, "p10": median, "median": median,
                       "p90": median, "p99": median, "max": median,
                       "mean": median, "stddev": 0},
            "cycles_per_unit": median / units if units else None,
            "ns_median": median / 2.1,
            "exits_model": exits if exits is not None else units + 1,
            "cycles_per_exit_model": median / (units + 1)}


SINGLE = result("fwcfg.in8.single.4096", "single", 1093000)
REP = result("fwcfg.in8.rep.4096", "rep", 10000)
DMA = result("fwcfg.in8.dma.4096", "dma", 5000, exits=1)
CHECK = {"type": "check", "name": "fwcfg.verify", "ok": True,
         "detail": "65536 bytes, 0 mismatches"}
SKIP = {"type": "skip", "suite": "exits", "case": "vmcall",
        "reason": "vmcall raised #UD (no hypervisor handles it: TCG)"}


def good_records():
    return [RUN, {"type": "suite", "suite": "pio"},
            {"type": "case", "suite": "pio", "case": SINGLE["case"]}, SINGLE,
            {"type": "case", "suite": "pio", "case": REP["case"]}, REP,
            {"type": "case", "suite": "pio", "case": DMA["case"]}, DMA,
            CHECK, {"type": "suite", "suite": "exits"}, SKIP]


def tm_texts(records):
    return [json.dumps(r, separators=(",", ":")).encode() for r in records]


def make_dump(records=None, end_status="ok", eol=b"\n", texts=None,
              lines=None, crc=None, with_end=True, with_status=True,
              prefix=b""):
    """Serial bytes of a dump; lines/crc override the end line's fields."""
    texts = tm_texts(good_records() if records is None else records) \
        if texts is None else texts
    out = [prefix + b"trapmeter 0.1.0 START", b"cpu: human line"]
    out += [b"@tm " + t for t in texts]
    if with_end:
        end = {"type": "end",
               "lines": len(texts) if lines is None else lines,
               "crc32": crc_of_lines(texts) if crc is None else crc}
        out.append(b"@tm " + json.dumps(end).encode())
    if with_status:
        out.append(b"trapmeter END status=" + end_status.encode())
    return eol.join(out) + eol


# ---------------------------------------------------------------- dump parsing

class DumpParsingTest(unittest.TestCase):

    def test_good_dump_is_valid(self):
        dump = parse_dump(make_dump())
        self.assertEqual(dump.problems, [])
        self.assertEqual(dump.end_status, "ok")
        self.assertEqual(dump.tm_count, len(good_records()))
        self.assertEqual(dump.run["version"], "0.1.0")
        self.assertEqual([r["case"] for r in dump.results],
                         [SINGLE["case"], REP["case"], DMA["case"]])
        self.assertEqual(len(dump.checks), 1)
        self.assertEqual(len(dump.skips), 1)
        self.assertEqual(exitstatus.decide_from_dump(dump).code, exitstatus.OK)

    def test_crlf_line_endings(self):
        dump = parse_dump(make_dump(eol=b"\r\n"))
        self.assertEqual(dump.problems, [])
        self.assertEqual(dump.end_status, "ok")
        self.assertNotIn("\r", "".join(dump.human_lines))

    def test_fed_byte_by_byte_same_as_whole(self):
        data = make_dump(eol=b"\r\n")
        parser = DumpParser()
        seen = []
        for i in range(len(data)):
            seen += parser.feed(data[i:i + 1])
        dump = parser.finish()
        self.assertEqual(dump.problems, [])
        self.assertEqual(dump.crc_hex, parse_dump(data).crc_hex)
        self.assertEqual([r["type"] for r in seen][:3],
                         ["run", "suite", "case"])

    def test_firmware_noise_before_start_is_ignored(self):
        noise = b"BdsDxe: loading Boot0001\r\n@tm {\"type\":\"junk\"}\n"
        dump = parse_dump(noise + make_dump(prefix=b"\x1b[2J\x1b[01;01H"))
        self.assertEqual(dump.problems, [])
        self.assertEqual(dump.other, [])

    def test_truncated_dump(self):
        data = make_dump()
        cut = data[:data.index(b'"type":"check"')]
        dump = parse_dump(cut)
        joined = " ".join(dump.problems)
        self.assertIn("missing end line", joined)
        self.assertIn("missing 'trapmeter END status=...' line", joined)
        self.assertIn("pio/" + DMA["case"], joined)
        self.assertEqual(exitstatus.decide_from_dump(dump).code, exitstatus.GARBLED)

    def test_crc_mismatch(self):
        dump = parse_dump(make_dump(crc="deadbeef"))
        self.assertEqual(len(dump.problems), 1)
        self.assertIn("CRC32 mismatch: end line says deadbeef",
                      dump.problems[0])
        outcome = exitstatus.decide_from_dump(dump)
        self.assertEqual(outcome.code, exitstatus.GARBLED)
        self.assertTrue(outcome.messages[0].startswith(
            "dump cut or garbled: "))

    def test_corrupted_byte_breaks_crc(self):
        data = make_dump().replace(b'"median":10000', b'"median":10001')
        dump = parse_dump(data)
        self.assertTrue(any("CRC32 mismatch" in p for p in dump.problems))

    def test_count_mismatch(self):
        dump = parse_dump(make_dump(lines=len(good_records()) + 1))
        self.assertEqual(len(dump.problems), 1)
        self.assertIn("end line counts %d @tm lines but %d were received"
                      % (len(good_records()) + 1, len(good_records())),
                      dump.problems[0])

    def test_non_json_tm_line(self):
        texts = tm_texts(good_records())
        texts.insert(2, b'{"type":"case","suite":"pio",')
        dump = parse_dump(make_dump(texts=texts))
        self.assertEqual(len(dump.problems), 1)
        self.assertIn("@tm line 3 is not a JSON object", dump.problems[0])

    def test_json_array_is_not_an_object(self):
        texts = tm_texts(good_records()) + [b"[1,2,3]"]
        dump = parse_dump(make_dump(texts=texts))
        self.assertIn("is not a JSON object", " ".join(dump.problems))

    def test_missing_start(self):
        data = make_dump().replace(b"trapmeter 0.1.0 START", b"hello")
        dump = parse_dump(data)
        self.assertIn("missing START", " ".join(dump.problems))

    def test_missing_end_status_line(self):
        dump = parse_dump(make_dump(with_status=False))
        self.assertEqual(dump.problems,
                         ["missing 'trapmeter END status=...' line"])

    def test_unknown_end_status(self):
        dump = parse_dump(make_dump(end_status="weird"))
        self.assertIn("unknown END status 'weird'", dump.problems)

    def test_unknown_type_kept_in_other(self):
        extra = {"type": "histogram", "bins": [1, 2]}
        dump = parse_dump(make_dump(records=good_records() + [extra]))
        self.assertEqual(dump.problems, [])
        self.assertEqual(dump.other, [extra])

    def test_exception_keeps_register_lines(self):
        texts = tm_texts([RUN, {"type": "exception", "vector": 14,
                                "name": "#PF", "error_code": "0x2",
                                "rip": "0x1000", "cr2": "0xdead"}])
        data = make_dump(texts=texts, end_status="exception").replace(
            b"@tm " + texts[1], b"rax=1 rbx=2\n@tm " + texts[1])
        dump = parse_dump(data)
        self.assertEqual(dump.problems, [])
        self.assertEqual(dump.exceptions[0]["console_before"],
                         ["rax=1 rbx=2"])
        lines = report.guest_problem_lines(dump.errors, dump.exceptions)
        self.assertIn("vector 14 #PF", lines[0])
        self.assertIn("cr2=0xdead", lines[0])
        self.assertIn("rax=1 rbx=2", lines[1])


# ---------------------------------------------------------------- status rules

class StatusDecisionTest(unittest.TestCase):

    def test_guest_code_from_qemu(self):
        self.assertEqual([exitstatus.guest_code_from_qemu(rc)
                          for rc in (1, 3, 5, 7, 0, 2, 9, None, -9)],
                         [0, 1, 2, 3, None, None, None, None, None])

    def test_agreeing_statuses(self):
        for word, rc, code in (("ok", 1, 0), ("check-failed", 3, 1),
                               ("bad-input", 5, 2), ("exception", 7, 3)):
            dump = parse_dump(make_dump(end_status=word))
            self.assertEqual(exitstatus.decide_boot(dump, rc, False).code, code)

    def test_end_and_qemu_disagree_uses_worse_and_reports_both(self):
        dump = parse_dump(make_dump(end_status="ok"))
        outcome = exitstatus.decide_boot(dump, 3, False)
        self.assertEqual(outcome.code, exitstatus.CHECK_FAILED)
        self.assertIn("status=ok", outcome.messages[0])
        self.assertIn("QEMU exit status 3", outcome.messages[0])
        dump = parse_dump(make_dump(end_status="exception"))
        self.assertEqual(exitstatus.decide_boot(dump, 1, False).code,
                         exitstatus.EXCEPTION)

    def test_garbled_with_guest_code_is_6(self):
        dump = parse_dump(make_dump(crc="00000000"))
        outcome = exitstatus.decide_boot(dump, 1, False)
        self.assertEqual(outcome.code, exitstatus.GARBLED)

    def test_qemu_exit_0_is_no_guest_status(self):
        dump = parse_dump(make_dump(with_end=False, with_status=False))
        self.assertEqual(exitstatus.decide_boot(dump, 0, False).code,
                         exitstatus.QEMU_ERROR)
        dump = parse_dump(make_dump())
        self.assertEqual(exitstatus.decide_boot(dump, 0, False).code,
                         exitstatus.QEMU_ERROR)

    def test_no_output_and_qemu_error(self):
        dump = parse_dump(b"")
        outcome = exitstatus.decide_boot(dump, 1, False)
        self.assertEqual(outcome.code, exitstatus.QEMU_ERROR)
        self.assertIn("before any serial output", outcome.messages[0])

    def test_timeout_names_last_case(self):
        dump = parse_dump(make_dump()[:200 + len(json.dumps(RUN))])
        outcome = exitstatus.decide_boot(dump, -15, True, 300)
        self.assertEqual(outcome.code, exitstatus.TIMEOUT)
        self.assertEqual(outcome.messages[0],
                         "timeout after 300 s; last case started: pio/"
                         + SINGLE["case"])


# ---------------------------------------------------------------- report

class SpeedupTest(unittest.TestCase):

    def test_rep_and_dma_pair_with_single(self):
        results = report.add_speedups(json.loads(json.dumps(
            [SINGLE, REP, DMA])))
        self.assertIsNone(results[0]["speedup"])
        self.assertAlmostEqual(results[1]["speedup"], 109.3)
        self.assertAlmostEqual(results[2]["speedup"], 218.6)
        for res in results:
            self.assertIsNone(res["exits_measured"])
            self.assertIn("cycles_per_exit", res)

    def test_pairing_respects_width_offset_and_target(self):
        rep_w2 = result("x.rep.w2", "rep", 100, width=2)
        rep_off = result("x.rep.off", "rep", 100, buf_offset=1)
        rep_other = result("x.rep.t", "rep", 100, target="debugcon")
        single_off = result("x.single.off", "single", 5000, buf_offset=1)
        results = report.add_speedups([dict(SINGLE), rep_w2, rep_off,
                                       rep_other, single_off])
        self.assertIsNone(results[1]["speedup"])
        self.assertAlmostEqual(results[2]["speedup"], 50.0)
        self.assertIsNone(results[3]["speedup"])

    def test_null_or_zero_median_gives_no_speedup(self):
        rep = result("r", "rep", 0)
        rep2 = result("r2", "rep", 10, nbytes=16)
        single2 = result("s2", "single", 100, nbytes=16)
        single2["cycles"]["median"] = None
        results = report.add_speedups([dict(SINGLE), rep, single2, rep2])
        self.assertIsNone(results[1]["speedup"])
        self.assertIsNone(results[3]["speedup"])

    def test_repeat_aggregate_is_median_of_medians(self):
        boots = [[result("s", "single", m), result("r", "rep", r)]
                 for m, r in ((1000, 10), (3000, 30), (2000, 19))]
        merged = report.aggregate_results(boots)
        self.assertEqual(len(merged), 2)
        self.assertEqual(merged[0]["cycles"]["median"], 2000)
        self.assertEqual(merged[1]["cycles"]["median"], 19)
        self.assertEqual(merged[0]["boots"], 3)
        # the speed-up over boots: the mean of the boots' ratios, with its
        # 95 % t interval (what the summary shows), not a ratio of medians
        ratios = [100.0, 100.0, 2000 / 19]
        mean = sum(ratios) / 3
        half = 4.302653 * statistics.stdev(ratios) / 3 ** 0.5
        self.assertAlmostEqual(merged[1]["speedup"], mean)
        self.assertAlmostEqual(merged[1]["speedup_ci"][0], mean - half,
                               places=3)
        self.assertAlmostEqual(merged[1]["speedup_ci"][1], mean + half,
                               places=3)
        self.assertEqual(merged[1]["speedup_boots"], 3)
        self.assertIsNone(merged[0]["speedup"])


class TableTest(unittest.TestCase):

    def render(self, checks=(CHECK,)):
        results = report.add_speedups(json.loads(json.dumps(
            [SINGLE, REP, DMA])))
        info = {"accel": "kvm", "kvm_flavour": "pvm", "boot": "direct",
                "firmware": "bios", "wall_s": 1.25}
        return report.render_report(RUN, info, results, list(checks),
                                    [SKIP])

    def test_rows_and_sections(self):
        text = self.render()
        rows = {line.split()[0]: line for line in text.splitlines()
                if line.strip().startswith("fwcfg.in8")}
        self.assertEqual(set(rows), {SINGLE["case"], REP["case"],
                                     DMA["case"]})
        self.assertIn("109x (109-109)", rows[REP["case"]])
        self.assertIn("219x (219-219)", rows[DMA["case"]])
        self.assertNotIn("x ", rows[SINGLE["case"]].split("single")[1])
        self.assertIn("[suite pio]", text)
        self.assertIn("ok      fwcfg.verify  65536 bytes, 0 mismatches", text)
        self.assertIn("exits/vmcall: vmcall raised #UD", text)

    def test_header_line(self):
        header = self.render().splitlines()[0]
        for part in ("accel kvm (pvm)", "boot direct/multiboot2",
                     "firmware bios", "GenuineIntel 6/85/4", "KVMKVMKVM",
                     "tsc kvmclock 2100000 kHz", "timer overhead 40 cycles",
                     "wall 1.2 s"):
            self.assertIn(part, header)

    def test_failed_check_shown(self):
        bad = dict(CHECK, ok=False, detail="3 mismatches")
        self.assertIn("FAILED  fwcfg.verify  3 mismatches",
                      self.render([bad]))

    def test_columns_aligned(self):
        lines = self.render().splitlines()
        head = next(l for l in lines if "cycles/op" in l)
        rows = [l for l in lines if l.strip().startswith("fwcfg.in8")]
        end_bytes = head.index("bytes") + len("bytes")
        end_ns = len(head)
        for row in rows:
            self.assertEqual(row[end_bytes - 4:end_bytes], "4096")
            self.assertEqual(len(row), end_ns)

    def test_number_formatting(self):
        self.assertEqual([report.fmt_num(v) for v in
                          (None, 7, 1234567, 12345678, 3.14159, 42.42,
                           123.6)],
                         ["-", "7", "1234567", "12.35M", "3.14", "42.4",
                          "124"])
        self.assertEqual(report.fmt_speedup(
            {"speedup": 109.33, "speedup_ci": [98.2, 123.4]}),
            "109x (98.2-123)")
        self.assertEqual(report.fmt_speedup({"speedup": None}), "")


class ResultsJsonTest(unittest.TestCase):

    def test_shape(self):
        dump = parse_dump(make_dump())
        outcome = exitstatus.decide_boot(dump, 1, False)
        boot = report.boot_entry(0, outcome, dump, 1.23456, 1)
        hostobj = {"qemu_version": "7.2.0", "accel": "tcg",
                   "kvm_flavour": None, "host_cpu": "x", "kernel": "y",
                   "hostname_hash": None}
        config = {"accel": "tcg", "boot": "direct", "firmware": "bios",
                  "machine": "pc", "cmdline": "", "qemu_argv": ["q"]}
        doc = report.results_document(hostobj, config, [boot], outcome.code)
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        path = os.path.join(tmp, "results.json")
        report.write_json_atomic(path, doc)
        with open(path, encoding="utf-8") as fh:
            back = json.load(fh)
        self.assertEqual(os.listdir(tmp), ["results.json"])
        self.assertEqual((back["schema"], back["tool"], back["version"]),
                         (report.RESULTS_SCHEMA, "trapmeter", "0.1.0"))
        self.assertEqual((back["status"], back["exit_code"]), ("ok", 0))
        self.assertEqual(set(back["host"]), set(hostobj))
        b0 = back["boots"][0]
        self.assertEqual((b0["index"], b0["status"], b0["exit_code"],
                          b0["wall_s"]), (0, "ok", 0, 1.235))
        for key in ("run", "results", "checks", "skips", "errors",
                    "exceptions", "other"):
            self.assertIn(key, b0)
        self.assertAlmostEqual(b0["results"][1]["speedup"], 109.3)
        self.assertEqual(b0["results"][1]["speedup_ci"], [109.3, 109.3])
        self.assertIsNone(b0["results"][1]["exits_measured"])
        self.assertIsNone(b0["results"][1]["cycles_per_exit"])


# ---------------------------------------------------------------- argv

class BreakdownMemoTest(unittest.TestCase):
    """The table and results.json share one breakdown per set of result
    lists (computing it twice cost a third of a second a run)."""

    def test_computed_once_per_set_of_lists(self):
        calls = []

        def fake(boots_results, fits=()):
            calls.append(boots_results)
            return [{"class": "x", "n": len(calls)}]
        memo = run_record.BreakdownMemo()
        a, b = [{"case": "a"}], [{"case": "b"}]
        with mock.patch.object(run_record.breakdown, "breakdown", fake):
            first = memo([a])
            self.assertIs(memo([a]), first)
            doc = {"boots": [{"results": a}, {"results": b}]}
            with mock.patch.object(run_record.breakdown, "has_exits", lambda r, fits=(): True):
                run_record.add_breakdown(doc, memo)
            self.assertIs(doc["boots"][0]["breakdown"], first)
            self.assertEqual(doc["breakdown"], [{"class": "x", "n": 3}])
            # an equal but new list is another set: computed again
            self.assertIsNot(memo([[{"case": "a"}]]), first)
        self.assertEqual(len(calls), 4)


class ArgvTest(unittest.TestCase):
    TMP = os.path.join(os.sep, "tmpdir")

    def argv(self, **kw):
        cfg = qemu.RunConfig(repo_root=os.path.join(os.sep, "repo"), **kw)
        return qemu.build_argv(cfg, self.TMP)

    @staticmethod
    def pairs(argv):
        return list(zip(argv, argv[1:]))

    def test_common_prefix_and_devices(self):
        argv = self.argv()
        self.assertEqual(argv[:11], ["qemu-system-x86_64", "-nodefaults",
                                     "-no-reboot", "-display", "none", "-M",
                                     "pc", "-m", "256", "-smp", "1"])
        pairs = self.pairs(argv)
        for pair in (("-chardev", "stdio,id=ser0,signal=off"),
                     ("-serial", "chardev:ser0"),
                     ("-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"),
                     ("-chardev", "null,id=dbgcon"),
                     ("-device", "isa-debugcon,iobase=0x402,chardev=dbgcon"),
                     ("-fw_cfg", "name=opt/trapmeter/blob,file="
                      + os.path.join(self.TMP, "blob.bin"))):
            self.assertIn(pair, pairs)

    def test_every_combination(self):
        for accel in ("tcg", "kvm"):
            for boot, firmware in (("direct", "bios"), ("iso", "bios"),
                                   ("iso", "uefi")):
                with self.subTest(accel=accel, boot=boot, fw=firmware):
                    self.check_combo(accel, boot, firmware)

    def check_combo(self, accel, boot, firmware):
        argv = self.argv(accel=accel, boot=boot, firmware=firmware,
                         words=["suite=pio", "quick"], extra=["-s", "-S"])
        pairs = self.pairs(argv)
        if accel == "kvm":
            self.assertIn(("-accel", "kvm,kernel-irqchip=on"), pairs)
            self.assertIn(("-cpu", "host,-arch-capabilities"), pairs)
        else:
            self.assertIn(("-accel", "tcg"), pairs)
            self.assertIn(("-cpu", "max"), pairs)
        self.assertIn(("-fw_cfg", "name=opt/trapmeter/cmdline,"
                       "string=suite=pio quick"), pairs)
        elf = os.path.join(os.sep, "repo", "build", "trapmeter.elf")
        iso = os.path.join(os.sep, "repo", "build", "trapmeter.iso")
        if boot == "direct":
            self.assertIn(("-kernel", elf), pairs)
            self.assertIn(("-append", "suite=pio quick"), pairs)
            self.assertNotIn("-cdrom", argv)
        else:
            self.assertIn(("-cdrom", iso), pairs)
            self.assertIn(("-boot", "d"), pairs)
            self.assertNotIn("-kernel", argv)
            self.assertNotIn("-append", argv)
        flash = [a for a in argv if a.startswith("if=pflash")]
        if firmware == "uefi":
            self.assertEqual(flash, [
                "if=pflash,format=raw,unit=0,readonly=on,file="
                + qemu.OVMF_CODE,
                "if=pflash,format=raw,unit=1,file="
                + os.path.join(self.TMP, "OVMF_VARS.fd")])
        else:
            self.assertEqual(flash, [])
        self.assertEqual(argv[-2:], ["-s", "-S"])

    def test_empty_cmdline(self):
        argv = self.argv()
        self.assertIn(("-append", ""), self.pairs(argv))
        self.assertFalse(any("opt/trapmeter/cmdline" in a for a in argv))

    def test_comma_escaped_in_fw_cfg_string(self):
        argv = self.argv(words=["suite=pio,exits"])
        self.assertIn("name=opt/trapmeter/cmdline,string=suite=pio,,exits",
                      argv)
        self.assertIn(("-append", "suite=pio,exits"), self.pairs(argv))

    def test_kernel_words_and_hypercall_off_for_pvm(self):
        words, notes = qemu.kernel_words("pio", "fwcfg.*", True, "x=1 y=2",
                                         "pvm")
        self.assertEqual(words, ["suite=pio", "case=fwcfg.*", "quick",
                                 "hypercall=off", "pvm=on", "x=1", "y=2"])
        self.assertIn("hypercall=off", notes[0])
        words, notes = qemu.kernel_words(None, None, False, "hypercall=on",
                                         "pvm")
        self.assertEqual((words, notes), (["pvm=on", "hypercall=on"], []))
        for flavour in ("vt-x", "amd-v", None):
            self.assertEqual(qemu.kernel_words(flavour=flavour), ([], []))

    def test_runner_turns_the_guest_table_off(self):
        self.assertEqual(qemu.runner_table_off(["sync=on"]),
                         ["sync=on", "table=off"])
        for words in (["table=on"], ["x=1", "table=off"]):
            self.assertEqual(qemu.runner_table_off(words), words)

    def test_blob_pattern(self):
        blob = qemu.make_blob()
        self.assertEqual(len(blob), 65536)
        self.assertEqual(blob[:3], bytes([0x5a, 0x61, 0x68]))
        self.assertEqual(blob[256], (256 * 7 + 1 + 0x5a) & 0xff)
        self.assertEqual(blob[65535], (65535 * 7 + 255 + 0x5a) & 0xff)


class HostDetectionTest(unittest.TestCase):

    def test_kvm_flavour(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        missing = os.path.join(tmp, "absent")
        self.assertEqual(hostinfo.kvm_flavour("flags\t: fpu vmx sse\n", tmp),
                         "vt-x")
        self.assertEqual(hostinfo.kvm_flavour("flags\t: fpu svm\n", missing),
                         "amd-v")
        self.assertEqual(hostinfo.kvm_flavour("flags\t: fpu sse\n", tmp), "pvm")
        self.assertEqual(hostinfo.kvm_flavour("flags\t: fpu sse\n", missing),
                         "unknown")

    def test_host_cpu(self):
        self.assertEqual(hostinfo.host_cpu("processor: 0\nmodel name\t: Foo X\n"),
                         "Foo X")

    def test_accel_kvm_unusable_is_status_5(self):
        with mock.patch.object(hostinfo, "kvm_usable",
                               return_value=(False, "no /dev/kvm")):
            with self.assertRaises(common.TrapmeterError) as ctx:
                runner.choose_accel("kvm")
            self.assertEqual(ctx.exception.code, exitstatus.QEMU_ERROR)
            self.assertIn("no /dev/kvm", ctx.exception.message)
            self.assertEqual(runner.choose_accel("auto")[0], "tcg")

    def test_internal_error_is_70_without_traceback(self):
        err = io.StringIO()
        with mock.patch.object(cli, "dispatch", side_effect=ValueError("x")), \
                redirect_stderr(err):
            self.assertEqual(cli.main([]), exitstatus.INTERNAL)
        self.assertIn("trapmeter: internal error: ValueError: x",
                      err.getvalue())
        self.assertNotIn("Traceback", err.getvalue())


# ---------------------------------------------------------------- CLI

class CommandTable(unittest.TestCase):
    """cli.COMMANDS names each command's module; a start of the tool for
    one command imports that command's module only."""

    def test_names_are_the_modules_names(self):
        for name, _module in cli.COMMANDS:
            self.assertEqual(cli.command_module(name).NAME, name)
        names = [n for n, _m in cli.COMMANDS]
        self.assertEqual(len(set(names)), len(names))
        self.assertLessEqual(set(cli.PASSTHROUGH), set(names))

    def test_one_command_imports_one_module(self):
        code = ("import sys\n"
                "from trapmeterlib import cli\n"
                "cli.build_parser(['compare', 'a', 'b'])\n"
                "print(sorted(m for m in sys.modules\n"
                "             if m.startswith('trapmeterlib.commands.')))\n")
        proc = subprocess.run([sys.executable, "-c", code], cwd=TOOLS,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("trapmeterlib.commands.compare", proc.stdout)
        for other in ("run", "ab", "bisect", "history", "kut"):
            self.assertNotIn("'trapmeterlib.commands.%s'" % other,
                             proc.stdout)

    def test_help_lists_every_command(self):
        text = cli.build_parser().format_help()
        for name, _module in cli.COMMANDS:
            self.assertIn(name, text)


class CliCase(unittest.TestCase):
    """Runs tools/trapmeter in a private directory: cli.main in this
    process (tests/host/incli.py), or as a process with spawn=True."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tm-test-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def cli(self, *args, env=None, timeout=60, spawn=False):
        full_env = dict(os.environ)
        full_env.update(env or {})
        if not spawn:
            return incli.run(args, cwd=self.tmp, env=full_env,
                             timeout=timeout)
        return subprocess.run([sys.executable, TOOL] + list(args),
                              cwd=self.tmp, capture_output=True, text=True,
                              timeout=timeout, env=full_env, check=False)

    def write(self, name, data, mode=0o644):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as fh:
            fh.write(data if isinstance(data, bytes) else data.encode())
        os.chmod(path, mode)
        return path

    def results_json(self, name="results.json"):
        with open(os.path.join(self.tmp, name), encoding="utf-8") as fh:
            return json.load(fh)


class OptionErrorTest(CliCase):
    BAD = [["run", "--repeat", "0"],
           ["run", "--firmware", "uefi", "--boot", "direct"],
           ["run", "--firmware", "coreboot"],
           ["run", "--accel", "hvf"],
           ["run", "--boot", "floppy"],
           ["run", "--timeout", "-1"],
           ["run", "--repeat", "many"],
           ["run", "--suite", "a b"],
           ["run", "--bogus"],
           ["frobnicate"],
           [],
           ["parse"],
           ["parse", "does-not-exist.log"]]

    def test_bad_options_exit_2_with_one_line(self):
        for args in self.BAD:
            with self.subTest(args=args):
                extra = ["--no-build"] if args[:1] == ["run"] else []
                proc = self.cli(*(args + extra))
                self.assert_one_error_line(proc)

    def test_missing_ovmf_is_option_error(self):
        proc = self.cli("run", "--no-build", "--firmware", "uefi", "--boot",
                        "iso", env={"TRAPMETER_OVMF_CODE":
                                    os.path.join(self.tmp, "nope.fd")},
                        spawn=True)     # read when the library is imported
        self.assert_one_error_line(proc)
        self.assertIn("OVMF", proc.stderr)
        # an option error before any boot has nothing to write (issue 27)
        self.assertFalse(os.path.exists(os.path.join(self.tmp,
                                                     "results.json")))

    def assert_one_error_line(self, proc):
        self.assertEqual(proc.returncode, 2, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("trapmeter: error: "), lines[0])
        self.assertNotIn("Traceback", proc.stderr)

    def test_help(self):
        for args in (["--help"], ["run", "--help"], ["parse", "--help"]):
            proc = self.cli(*args)
            self.assertEqual(proc.returncode, 0)
            self.assertIn("dump cut or garbled", proc.stdout)
        self.assertIn("--accel", self.cli("run", "--help").stdout)


class ParseCommandTest(CliCase):

    def test_good_log(self):
        log = self.write("serial.log", make_dump(eol=b"\r\n"))
        proc = self.cli("parse", log, "--json", "out.json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(REP["case"], proc.stdout)
        self.assertIn("109x (109-109)", proc.stdout)
        doc = self.results_json("out.json")
        self.assertEqual(doc["status"], "ok")
        self.assertEqual(len(doc["boots"][0]["results"]), 3)

    def test_garbled_log(self):
        log = self.write("serial.log", make_dump(crc="12345678"))
        proc = self.cli("parse", log)
        self.assertEqual(proc.returncode, 6)
        self.assertIn("dump cut or garbled: CRC32 mismatch", proc.stderr)

    def test_bad_input_log(self):
        err = {"type": "error", "kind": "bad-input",
               "message": "unknown key 'foo'"}
        log = self.write("serial.log", make_dump(records=[err],
                                                 end_status="bad-input"))
        proc = self.cli("parse", log)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("guest: error: unknown key 'foo'", proc.stderr)

    def test_exception_log(self):
        exc = {"type": "exception", "vector": 13, "name": "#GP",
               "error_code": "0x0", "rip": "0x204704", "cr2": "0x0"}
        log = self.write("serial.log", make_dump(records=[RUN, exc],
                                                 end_status="exception"))
        proc = self.cli("parse", log)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("vector 13 #GP", proc.stderr)
        self.assertIn("rip=0x204704", proc.stderr)


FAKE_HEADER = """\
import os, sys, time
if "--version" in sys.argv:
    print("QEMU emulator version 7.2.99 (fake)")
    sys.exit(0)
out = sys.stdout.buffer
"""


class FakeQemuTest(CliCase):
    """The runner driving small fake QEMU scripts."""

    def fake(self, name, body):
        text = "#!%s\n%s%s" % (sys.executable, FAKE_HEADER,
                               textwrap.dedent(body))
        return self.write(name, text, 0o755)

    def run_fake(self, fake, *args, timeout=60):
        """A run against a fake QEMU, printing the full table (what these
        tests read; the summary has its own tests)."""
        return self.cli("run", "--no-build", "--accel", "tcg", "--qemu", fake,
                        "--table", "full", *args, timeout=timeout)

    def test_sleeping_qemu_times_out(self):
        fake = self.fake("sleepy", """
            out.write(b"trapmeter 0.1.0 START\\r\\n")
            out.write(b'@tm {"type":"suite","suite":"pio"}\\r\\n')
            out.write(b'@tm {"type":"case","suite":"pio",'
                      b'"case":"fwcfg.in8.rep.4096"}\\r\\n')
            out.flush()
            while True:
                time.sleep(3600)
            """)
        started = time.monotonic()
        proc = self.run_fake(fake, "--timeout", "1", timeout=30)
        self.assertLess(time.monotonic() - started, 15)
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertIn("timeout after 1 s; last case started: "
                      "pio/fwcfg.in8.rep.4096", proc.stderr)
        doc = self.results_json()
        self.assertEqual((doc["status"], doc["exit_code"]), ("timeout", 4))

    def test_kvm_internal_error_stops_early(self):
        fake = self.fake("stuck", """
            out.write(b"trapmeter 0.1.0 START\\n")
            out.flush()
            sys.stderr.write("KVM internal error. Suberror: 1\\n")
            sys.stderr.flush()
            while True:
                time.sleep(3600)
            """)
        started = time.monotonic()
        proc = self.run_fake(fake, "--timeout", "60", timeout=50)
        self.assertLess(time.monotonic() - started, 20)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertIn("KVM internal error", proc.stderr)

    def test_qemu_failing_at_start(self):
        fake = self.fake("broken", """
            sys.stderr.write("qemu-system-x86_64: -kernel x: could not load "
                             "kernel\\n")
            sys.exit(1)
            """)
        proc = self.run_fake(fake)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertIn("could not load kernel", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(self.results_json()["exit_code"], 5)

    def test_missing_qemu_binary(self):
        proc = self.run_fake(os.path.join(self.tmp, "no-such-qemu"))
        self.assertEqual(proc.returncode, 5)
        self.assertIn("trapmeter: error: QEMU binary not found", proc.stderr)

    def good_fake(self, exit_code=1, dump=None):
        """Checks its argv and the blob, then prints a full dump."""
        self.write("dump.bin", make_dump(eol=b"\r\n") if dump is None
                   else dump)
        return self.fake("goodqemu", """
            import json
            argv = sys.argv[1:]
            blob = [a for a in argv if a.startswith("name=opt/trapmeter/blob")]
            path = blob[0].split("file=", 1)[1]
            data = open(path, "rb").read()
            ok = data == bytes(((i * 7) + (i >> 8) + 0x5a) & 0xff
                               for i in range(65536))
            here = os.path.dirname(os.path.abspath(__file__))
            with open(os.path.join(here, "argv.json"), "w") as fh:
                json.dump({"argv": argv, "blob_ok": ok}, fh)
            out.write(open(os.path.join(here, "dump.bin"), "rb").read())
            out.flush()
            sys.exit(%d)
            """ % exit_code)

    def test_good_run(self):
        fake = self.good_fake()
        proc = self.run_fake(fake, "--suite", "pio", "--quick", "--log",
                             "serial.log", "--", "-s")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(REP["case"], proc.stdout)
        self.assertIn("109x (109-109)", proc.stdout)
        self.assertIn("suite pio", proc.stderr)
        seen = self.results_json("argv.json")
        self.assertTrue(seen["blob_ok"])
        self.assertIn("name=opt/trapmeter/cmdline,string=suite=pio quick "
                      "table=off", seen["argv"])
        self.assertEqual(seen["argv"][-1], "-s")
        blob_arg = next(a for a in seen["argv"] if "trapmeter/blob" in a)
        self.assertFalse(os.path.exists(blob_arg.split("file=", 1)[1]),
                         "private temp dir not removed")
        doc = self.results_json()
        self.assertEqual((doc["status"], doc["exit_code"]), ("ok", 0))
        self.assertEqual(doc["host"]["qemu_version"], "7.2.99")
        self.assertEqual(doc["config"]["cmdline"], "suite=pio quick table=off")
        self.assertEqual(doc["boots"][0]["qemu_exit"], 1)
        with open(os.path.join(self.tmp, "serial.log"), "rb") as fh:
            self.assertEqual(fh.read(), make_dump(eol=b"\r\n"))
        again = self.cli("parse", "serial.log")
        self.assertEqual(again.returncode, 0, again.stderr)

    def test_exit_code_disagreeing_with_end(self):
        proc = self.run_fake(self.good_fake(exit_code=3))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("guest status mismatch", proc.stderr)
        self.assertIn("QEMU exit status 3", proc.stderr)

    def test_triple_fault_exit_0(self):
        cut = make_dump(with_end=False, with_status=False)
        proc = self.run_fake(self.good_fake(exit_code=0, dump=cut))
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertIn("without a guest status", proc.stderr)

    def test_cut_dump_with_guest_code(self):
        cut = make_dump(with_end=False)
        proc = self.run_fake(self.good_fake(exit_code=1, dump=cut))
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn("dump cut or garbled: missing end line", proc.stderr)

    def test_repeat_prints_median_table(self):
        proc = self.run_fake(self.good_fake(), "--repeat", "3")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("median over 3 boots", proc.stdout)
        self.assertEqual(proc.stdout.count(REP["case"]), 1)
        self.assertEqual(len(self.results_json()["boots"]), 3)

    def test_repeat_stops_early_on_bad_status(self):
        proc = self.run_fake(self.good_fake(exit_code=0), "--repeat", "3")
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertEqual(len(self.results_json()["boots"]), 1)


if __name__ == "__main__":
    unittest.main()
