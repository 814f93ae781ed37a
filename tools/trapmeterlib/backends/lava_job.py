"""LAVA jobs: a job definition for LAVA's `qemu` device type that boots
the trapmeter ISO, whose monitor turns the guest's TM_LAVA lines into
LAVA test cases (lava_results.py reads them back).

Facts this relies on (lava-dispatcher 2023.01, see docs/ci.md "A LAVA
lab"): the qemu device template builds the QEMU command from its own options,
then the job context's `extra_options`, then one `image_arg` per deployed
image; pexpect splits that command line like a shell (quotes group words);
the monitor pattern runs with `.` matching newlines and serial lines end in
`\\r\\r\\n`; a pattern with a `result` group needs a result on every line; ids
are lowercased with runs of non-word characters turned into `_` (the original
id is kept in the result's `extra.test_case_id`); the log is one YAML flow
mapping per line with every scalar double-quoted, and target (serial) lines
have `\\r` and ESC removed and `"` written as `\\"`.

Standard library only: no PyYAML (the job is written as block YAML whose
scalars are JSON strings, which YAML reads as double-quoted scalars)."""

import json
import re

from ..guest import qemu
from ..values.errors import InputError

MONITOR_NAME = "trapmeter"
MONITOR_START = r"trapmeter \S+ START"
MONITOR_END = r"trapmeter END status=\w+"
# Every TM_LAVA line has all four fields (kernel/lava.h); the line end
# anchors the match so a measurement is never cut while still arriving.
MONITOR_PATTERN = (r"TM_LAVA case=(?P<test_case_id>\S+) "
                   r"result=(?P<result>pass|fail|skip) "
                   r"measurement=(?P<measurement>\d+) "
                   r"units=(?P<units>\w+)\r*\n")
LAVA_WORD = "lava=on"
DEFAULT_TEST_MINUTES = 30
DEPLOY_MINUTES = 10
BOOT_MINUTES = 2
JOB_SLACK_MINUTES = 15
MEMORY_MB = 256
# The template always adds "-net nic,<model>,..."; e1000 keeps virtio-net
# devices for the virtio suite's own NICs, and without its option ROM
# SeaBIOS does not spend time in iPXE (~22 s on a software KVM).
TEMPLATE_NIC_MODEL = "model=e1000"
NO_NIC_ROM = "-global e1000.romfile="
DEBUG_EXIT = "-device isa-debug-exit,iobase=0xf4,iosize=0x04"
DEBUGCON = "-chardev null,id=dbgcon -device isa-debugcon,iobase=0x402,chardev=dbgcon"
STATUS_CASE = "trapmeter.status"

# Devices a suite needs beyond the base machine, as LAVA sees them: images
# to deploy (name, option giving its URL, image_arg) and extra options.
# Keep in step with the runner's QEMU arguments for these suites.
SUITE_DEVICES = {
    "ide": {"images": [("scratch", "scratch_url",
                        "-drive format=raw,if=ide,index=0,media=disk,"
                        "file={scratch}")],
            "extra": []},
    # Hub 1, not 0: the template's "-net nic ... -net user" sit on hub 0.
    "virtio": {"images": [],
               "extra": ["-netdev hubport,id=n0,hubid=1 "
                         "-device virtio-net-pci,netdev=n0",
                         "-netdev hubport,id=n1,hubid=1 "
                         "-device virtio-net-pci,netdev=n1"]},
}


class LavaError(InputError):
    """Bad option or unreadable input: one line, exit status BAD_INPUT."""


PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _scalar(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))


def _key(key):
    return key if PLAIN_KEY.match(key) else json.dumps(key)


def _yaml_lines(obj, indent):
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return [pad + "{}"]
        lines = []
        for key, value in obj.items():
            if isinstance(value, (dict, list)) and value:
                lines.append("%s%s:" % (pad, _key(key)))
                sub = indent + (2 if isinstance(value, dict) else 0)
                lines.extend(_yaml_lines(value, sub))
            else:
                lines.append("%s%s: %s" % (pad, _key(key), _flow(value)))
        return lines
    if isinstance(obj, list):
        if not obj:
            return [pad + "[]"]
        lines = []
        for item in obj:
            sub = _yaml_lines(item, indent + 2)
            lines.append(pad + "- " + sub[0][indent + 2:])
            lines.extend(sub[1:])
        return lines
    return [pad + _scalar(obj)]


def _flow(value):
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def yaml_text(obj):
    """Block YAML for dicts, lists and scalars; strings are JSON strings
    (valid YAML double-quoted scalars)."""
    return "\n".join(_yaml_lines(obj, 0)) + "\n"


def _quote_fwcfg_string(name, value):
    """-fw_cfg name=N,string=V for the template's command line: commas
    doubled for QEMU, single quotes so pexpect keeps the spaces."""
    for bad in ("'", '"', "\\"):
        if bad in value:
            raise LavaError("kernel command line %r: quotes and backslashes "
                            "cannot pass through the LAVA QEMU command line"
                            % value)
    return "-fw_cfg 'name=%s,string=%s'" % (name, qemu.qemu_opt_escape(value))


def _check_url(what, url):
    if not re.match(r"^(https?|file|ftp)://\S+$", url or ""):
        raise LavaError("%s %r is not an http(s)://, ftp:// or file:// URL"
                        % (what, url))


def job_words(suite=None, case=None, quick=False, cmdline=""):
    """Kernel words for a LAVA job: the runner's words plus lava=on, by
    the runner's one rule (qemu.words_problem: each word given once, none
    beside the option that sets it); lava= is the job's own word, on
    (its test cases come from the guest's TM_LAVA lines)."""
    user = (cmdline or "").split()
    why = qemu.words_problem(user, {"suite": bool(suite), "case": bool(case),
                                    "quick": bool(quick)})
    if why:
        raise LavaError(why)
    given = [w for w in user if qemu.word_key(w) == "lava" and w != LAVA_WORD]
    if given:
        raise LavaError("kernel word %r in --cmdline: lava-job always adds %s "
                        "(the job's test cases are the guest's TM_LAVA "
                        "lines); drop it" % (given[0], LAVA_WORD))
    words, _notes = qemu.kernel_words(suite, case, quick, cmdline, None)
    if LAVA_WORD not in words:
        words.append(LAVA_WORD)
    why = qemu.cmdline_problem(words)
    if why:
        raise LavaError(why)
    return words


def suite_names(suite):
    names = [s for s in (suite or "").split(",") if s]
    if "all" in names:
        names = list(SUITE_DEVICES) + names
    return names


def extra_options(words, kvm, cpu=None, suites=(), extra=()):
    opts = ["-machine pc", "-nodefaults", "-serial stdio", "-no-reboot",
            "-boot d", NO_NIC_ROM, DEBUG_EXIT, DEBUGCON]
    if cpu:
        opts.append("-cpu " + cpu)
    elif not kvm:
        opts.append("-cpu max")
    for name in suites:
        opts.extend(SUITE_DEVICES.get(name, {}).get("extra", []))
    opts.append(_quote_fwcfg_string(qemu.FWCFG_CMDLINE, " ".join(words)))
    opts.extend(extra)
    return opts


def _images(iso_url, blob_url, suites, urls):
    images = {"cdrom": {"image_arg": "-cdrom {cdrom}", "url": iso_url}}
    if blob_url:
        _check_url("--blob-url", blob_url)
        images["blob"] = {"image_arg": "-fw_cfg name=%s,file={blob}"
                          % qemu.FWCFG_BLOB, "url": blob_url}
    for name in suites:
        for label, option, arg in SUITE_DEVICES.get(name, {}).get("images",
                                                                  []):
            url = urls.get(option)
            if not url:
                raise LavaError("suite %s needs --%s URL (image deployed as "
                                "'%s')" % (name, option.replace("_", "-"),
                                           label))
            _check_url("--" + option.replace("_", "-"), url)
            images[label] = {"image_arg": arg, "url": url}
    return images


def build_job(iso_url, kvm=True, suite=None, case=None, quick=False,
              cmdline="", blob_url=None, cpu=None, test_minutes=None,
              job_name=None, extra=(), urls=None):
    """The job definition as a dict (see yaml_text)."""
    _check_url("--iso-url", iso_url)
    minutes = DEFAULT_TEST_MINUTES if test_minutes is None else test_minutes
    if minutes < 1:
        raise LavaError("--timeout-min must be at least 1")
    suites = suite_names(suite)
    words = job_words(suite, case, quick, cmdline)
    context = {"arch": "amd64", "memory": MEMORY_MB,
               "model": TEMPLATE_NIC_MODEL,
               "extra_options": extra_options(words, kvm, cpu, suites,
                                              list(extra))}
    if not kvm:
        context["no_kvm"] = True
    return {
        "device_type": "qemu",
        "job_name": job_name or "trapmeter %s %s" % (
            "kvm" if kvm else "tcg", " ".join(words)),
        "timeouts": {"job": {"minutes": minutes + DEPLOY_MINUTES
                             + BOOT_MINUTES + JOB_SLACK_MINUTES},
                     "action": {"minutes": DEPLOY_MINUTES},
                     # the monitor waits for START, and then for each
                     # next line, with the connection timeout
                     "connection": {"minutes": minutes}},
        "priority": "medium",
        "visibility": "public",
        "metadata": {"trapmeter.cmdline": " ".join(words),
                     "trapmeter.accel": "kvm" if kvm else "tcg"},
        "context": context,
        "actions": [
            {"deploy": {"timeout": {"minutes": DEPLOY_MINUTES},
                        "to": "tmpfs",
                        "images": _images(iso_url, blob_url, suites,
                                          urls or {})}},
            {"boot": {"timeout": {"minutes": BOOT_MINUTES},
                      "method": "qemu", "media": "tmpfs"}},
            {"test": {"timeout": {"minutes": minutes},
                      "monitors": [{"name": MONITOR_NAME,
                                    "start": MONITOR_START,
                                    "end": MONITOR_END,
                                    "pattern": MONITOR_PATTERN}]}},
        ],
    }


def job_yaml(job):
    head = ("# trapmeter LAVA job (tools/trapmeter lava-job). Results: one "
            "test case per\n# TM_LAVA line of the guest; feed the log to "
            "`tools/trapmeter import-lava`.\n")
    return head + yaml_text(job)
