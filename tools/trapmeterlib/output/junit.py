"""JUnit XML for CI: `run --junit FILE` (checks, skips and boot statuses as
testcases) and `compare --junit FILE` (one testcase per metric)."""

import os
import xml.etree.ElementTree as ET

from .report import write_text_atomic


class Case:
    """One testcase: passed, failed (message + text) or skipped."""

    def __init__(self, classname, name, failure=None, skipped=None,
                 text=None, time_s=0.0):
        self.classname = classname
        self.name = name
        self.failure = failure
        self.skipped = skipped
        self.text = text
        self.time_s = time_s


def to_xml(suite_name, cases):
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name=suite_name,
                          tests=str(len(cases)),
                          failures=str(sum(1 for c in cases if c.failure)),
                          skipped=str(sum(1 for c in cases if c.skipped)),
                          errors="0")
    for case in cases:
        elem = ET.SubElement(suite, "testcase", classname=case.classname,
                             name=case.name, time="%.3f" % case.time_s)
        if case.failure:
            fail = ET.SubElement(elem, "failure", message=case.failure)
            fail.text = case.text or case.failure
        elif case.skipped:
            ET.SubElement(elem, "skipped", message=case.skipped)
        elif case.text:
            ET.SubElement(elem, "system-out").text = case.text
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write(path, text):
    write_text_atomic(path, text)


def run_suite(boots, config):
    """XML for one `trapmeter run`: per boot its status, checks, skips."""
    cases = []
    for boot in boots:
        prefix = "boot%d" % boot.get("index", 0) if len(boots) > 1 else ""
        cls = "trapmeter.run" + ("." + prefix if prefix else "")
        ok = boot.get("exit_code") == 0
        msg = "; ".join(boot.get("messages") or []) or boot.get("status")
        cases.append(Case(cls, "status", None if ok else
                          "status %s (exit %s): %s" % (
                              boot.get("status"), boot.get("exit_code"),
                              msg), time_s=boot.get("wall_s") or 0.0))
        for chk in boot.get("checks") or []:
            good = chk.get("ok") is True
            cases.append(Case(cls + ".check", str(chk.get("name")),
                              None if good else "check failed: %s"
                              % chk.get("detail"), text=chk.get("detail")))
        for skip in boot.get("skips") or []:
            cases.append(Case(cls + ".skip", "%s/%s" % (
                skip.get("suite"), skip.get("case")),
                skipped=str(skip.get("reason"))))
    name = "trapmeter run %s" % (config.get("cmdline") or "")
    return to_xml(name.strip(), cases)


def exists_dir(path):
    return os.path.isdir(os.path.dirname(os.path.abspath(path)))
