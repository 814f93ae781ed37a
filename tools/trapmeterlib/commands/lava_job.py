"""`trapmeter lava-job`: write a LAVA job definition for the 'qemu'
device type."""

import os
import sys

from ..backends import lava_job
from ..guest import qemu
from ..values import exitstatus
from .common import (OptionError, check_outputs, check_words, repo_root,
                     write_file)

NAME = "lava-job"


def add_parser(sub, fmt):
    job = sub.add_parser(
        NAME, formatter_class=fmt,
        help="write a LAVA job definition (device type qemu)",
        description="Write a LAVA job for the 'qemu' device type: deploy the "
        "ISO (and the fw_cfg test blob) to tmpfs, boot it with QEMU and turn "
        "every TM_LAVA line of the guest into a LAVA test case (results: "
        "median cycles per op; checks, skips, errors, exceptions and the "
        "final status as pass/fail/skip).")
    add = job.add_argument
    add("--iso-url", metavar="URL", default=None,
        help="http(s)://, ftp:// or file:// URL of trapmeter.iso (default: "
        "file:// URL of this tree's build/trapmeter.iso)")
    add("--blob-url", metavar="URL", help="URL of the fw_cfg test blob "
        "(write it with --write-blob); without it the fw_cfg data check "
        "is skipped")
    add("--write-blob", metavar="FILE", help="also write the fw_cfg test "
        "blob to FILE, for hosting next to the ISO")
    add("--scratch-url", metavar="URL", help="raw disk image for the ide "
        "suite's scratch disk")
    grp = job.add_mutually_exclusive_group()
    grp.add_argument("--kvm", dest="kvm", action="store_true", default=True,
                     help="KVM worker: the template adds -cpu host "
                     "-enable-kvm (default)")
    grp.add_argument("--no-kvm", dest="kvm", action="store_false",
                     help="TCG (context no_kvm: true, -cpu max)")
    add("--cpu", metavar="MODEL", help="extra -cpu MODEL (last -cpu wins), "
        "e.g. host,-arch-capabilities on a PVM host")
    add("--suite", metavar="LIST", help="kernel word suite=LIST")
    add("--case", metavar="GLOBS", help="kernel word case=GLOBS")
    add("--quick", action="store_true", help="kernel word quick")
    add("--cmdline", metavar="WORDS", default="",
        help="extra kernel words (lava=on is always added)")
    add("--extra-option", metavar="OPT", action="append", default=[],
        help="append OPT to the QEMU command line (repeatable)")
    add("--timeout-min", metavar="N", type=int,
        default=lava_job.DEFAULT_TEST_MINUTES,
        help="test action timeout in minutes (default %d)"
        % lava_job.DEFAULT_TEST_MINUTES)
    add("--name", metavar="TEXT", help="job_name")
    add("-o", "--output", metavar="FILE", help="write the job to FILE "
        "(default stdout)")


def command(args):
    check_words(args)
    iso_url = args.iso_url or "file://" + os.path.join(repo_root(),
                                                        qemu.ISO_REL)
    # the output rule: neither output may be the ISO the job deploys (a
    # file:// URL names a local one) nor the other output
    local = [("--iso-url", iso_url[len("file://"):])] \
        if iso_url.startswith("file://") else []
    check_outputs(local, [("-o", args.output),
                          ("--write-blob", args.write_blob)])
    try:
        job = lava_job.build_job(iso_url, kvm=args.kvm, suite=args.suite,
                             case=args.case, quick=args.quick,
                             cmdline=args.cmdline, blob_url=args.blob_url,
                             cpu=args.cpu, test_minutes=args.timeout_min,
                             job_name=args.name, extra=args.extra_option,
                             urls={"scratch_url": args.scratch_url})
    except lava_job.LavaError as exc:
        raise OptionError(str(exc))
    text = lava_job.job_yaml(job)
    if args.write_blob:
        write_file(args.write_blob, qemu.make_blob())
    if args.output:
        write_file(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return exitstatus.OK
