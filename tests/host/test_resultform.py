#!/usr/bin/env python3
"""Schema 3's compact result lines (tools/trapmeterlib/values/resultform.py):
the host names the arrays again and derives what the guest no longer
sends, exactly as the guest's integer code printed it in schema 2; a line
of the wrong form is refused by number, so the dump is garbled."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "tools"))

from trapmeterlib.values import resultform  # noqa: E402
from trapmeterlib.guest.dump import parse_dump  # noqa: E402
from tests.host.dumpseal import crc_of_lines  # noqa: E402

RUN3 = {"type": "run", "schema": 3, "version": "0.1.0",
        "tsc": {"khz": 2445406, "source": "kvmclock", "guess": False}}
# A real schema-3 line (fwcfg.in8.single.4096 under KVM here), and what the
# schema-2 guest printed for the same figures (kernel/bench.c before).
LINE = {"type": "result", "suite": "pio", "case": "fwcfg.in8.single.4096",
        "target": "fwcfg", "port": "0x511", "handler": "user", "dir": "in",
        "width": 1, "method": "single", "bytes": 4096, "buf_offset": 0,
        "samples": 3, "iters": 1, "stop": "budget",
        "cycles": [92111253, 92182641, 92468194, 103895328, 106466433,
                   106752111, 97110519, 8351770],
        "cycles_control": [50152113, 50347471, 51128903, 51395737, 51462446],
        "exits_model": 4097, "ops": 2, "case_ms": 220.4,
        "sync": [1, 29, 1, 0, 0, 0, 200260770, 0], "string_instrs": 0}
SCHEMA2_FIGURES = {"units": 4096, "plan": "adaptive",
                   "cycles_net": {"min": 41959140, "p10": 41835170,
                                  "median": 41339291},
                   "cycles_per_unit": 22575.24, "ns_median": 37813023.3,
                   "cycles_per_exit_model": 10090.1}


def dump_bytes(records):
    texts = [json.dumps(r, separators=(",", ":")).encode() for r in records]
    end = {"type": "end", "lines": len(texts), "crc32": crc_of_lines(texts),
           "status": "ok"}
    out = [b"trapmeter 0.1.0 START"] + [b"@tm " + t for t in texts]
    out += [b"@tm " + json.dumps(end).encode(), b"trapmeter END status=ok"]
    return b"\n".join(out) + b"\n"


STATUS = {"type": "status", "status": "ok", "checks_failed": 0,
          "lines_dropped": 0}


class Expand(unittest.TestCase):
    def expanded(self, **change):
        rec = json.loads(json.dumps(LINE))
        rec.update(change)
        return resultform.expand(rec, RUN3)

    def test_schema2_figures_come_back(self):
        rec = self.expanded()
        for key, value in SCHEMA2_FIGURES.items():
            self.assertEqual(rec[key], value, key)
        self.assertEqual(rec["cycles"]["p99"], 106466433)
        self.assertEqual(rec["cycles_control"]["max"], 51462446)
        self.assertEqual(rec["sync"]["window_cycles"], 200260770)
        self.assertEqual(rec["sync"]["polls_m0"], 29)

    def test_no_control(self):
        rec = json.loads(json.dumps(LINE))
        del rec["cycles_control"]
        resultform.expand(rec, RUN3)
        self.assertNotIn("cycles_net", rec)
        self.assertEqual(rec["cycles_per_exit_model"],
                         resultform.decimal(92468194, 4097, 1))

    def test_control_none_says_why_and_never_beside_a_control(self):
        rec = json.loads(json.dumps(LINE))
        del rec["cycles_control"]
        rec["control_none"] = "only the interrupt itself does what the op does"
        resultform.expand(rec, RUN3)
        self.assertNotIn("cycles_net", rec)
        self.assertEqual(rec["control_none"],
                         "only the interrupt itself does what the op does")
        for why in ("", 5, ["x"]):
            bad = json.loads(json.dumps(LINE))
            del bad["cycles_control"]
            bad["control_none"] = why
            with self.assertRaises(resultform.FormError):
                resultform.expand(bad, RUN3)
        with self.assertRaises(resultform.FormError) as err:
            self.expanded(control_none="none declared")
        self.assertIn("not both", str(err.exception))

    def test_control_slower_gives_no_figure_and_a_reason(self):
        # the figure rule: no net at or below zero is stored, and no cost
        # per exit is divided from one (it was 0.00: never measured)
        rec = self.expanded(cycles_control=[1, 1, 99999999, 1, 1])
        self.assertIsNone(rec["cycles_net"]["median"])
        self.assertGreater(rec["cycles_net"]["min"], 0)
        self.assertEqual(rec["cycles_net_reason"], resultform.NET_REASON)
        self.assertIsNone(rec["cycles_per_exit_model"])
        self.assertEqual(rec["cycles_per_exit_model_reason"],
                         resultform.NET_REASON)
        # the measured difference stays a function of what is stored
        self.assertEqual(resultform.raw_net(rec), 92468194 - 99999999)
        again = json.loads(json.dumps(rec))
        self.assertEqual(resultform.apply_rule(again), rec)

    def test_a_stored_negative_net_is_ruled_on_reading(self):
        # a schema-2 record (the guest printed the net) as an earlier
        # runner stored it
        rec = {"cycles": {"min": 10, "p10": 12, "median": 15},
               "cycles_net": {"min": -4, "p10": 2, "median": -1},
               "exits_model": 1, "cycles_per_exit_model": 0.0}
        resultform.apply_rule(rec)
        self.assertEqual(rec["cycles_net"], {"min": None, "p10": 2,
                                             "median": None})
        self.assertIsNone(rec["cycles_per_exit_model"])
        self.assertIn("cycles_per_exit_model_reason", rec)

    def test_plan_and_units(self):
        rec = self.expanded(stop="plan", width=4, bytes=512)
        self.assertEqual(rec["plan"], "fixed")
        self.assertEqual(rec["units"], 128)
        self.assertEqual(self.expanded(width=0)["units"], 1)
        self.assertIsNone(self.expanded(exits_model=0)
                          ["cycles_per_exit_model"])

    def test_decimal_rounds_half_up(self):
        self.assertEqual(resultform.decimal(1, 8, 2), 0.13)     # 0.125
        self.assertEqual(resultform.decimal(2, 3, 3), 0.667)
        self.assertEqual(resultform.decimal(1049, 100, 1), 10.5)
        self.assertEqual(resultform.decimal(999, 1000, 2), 1.0)
        self.assertIsNone(resultform.decimal(5, 0, 2))

    def test_wrong_forms_are_refused(self):
        for change in ({"cycles": [1, 2, 3]}, {"cycles": {"min": 1}},
                       {"cycles_control": [1, 2, 3, 4, -5]},
                       {"sync": [1, 2]}, {"cycles": [1.5] * 8},
                       {"cycles": [True] * 8}):
            with self.assertRaises(resultform.FormError):
                self.expanded(**change)


class InTheDump(unittest.TestCase):
    def test_parser_expands_schema3(self):
        dump = parse_dump(dump_bytes([RUN3, LINE, STATUS]))
        self.assertTrue(dump.valid, dump.problems)
        res = dump.results[0]
        self.assertEqual(res["cycles"]["median"], 92468194)
        self.assertEqual(res["ns_median"], 37813023.3)

    def test_bad_form_garbles_the_dump(self):
        bad = dict(LINE, cycles=[1, 2])
        dump = parse_dump(dump_bytes([RUN3, bad, STATUS]))
        self.assertFalse(dump.valid)
        self.assertIn("@tm line 2 refused: cycles must be an array",
                      "\n".join(dump.problems))

    def test_schema2_lines_are_left_alone(self):
        run2 = dict(RUN3, schema=2)
        dump = parse_dump(dump_bytes([run2, LINE, STATUS]))
        self.assertTrue(dump.valid, dump.problems)
        self.assertIsInstance(dump.results[0]["cycles"], list)


if __name__ == "__main__":
    unittest.main()
