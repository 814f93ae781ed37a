#!/usr/bin/python3
"""tests/boot/lava_device.py - render a local LAVA qemu device the way
lava-server does (a device dictionary extending qemu.jinja2, rendered with
the job's context by a sandboxed Jinja2 environment with trim_blocks), for
`make lava-test`.  Run with the interpreter of lava-run (it has jinja2 and
yaml: both are lava-dispatcher dependencies).

usage: lava_device.py DEVICE_TYPES_DIR JOB.yaml OUT_DEVICE.yaml
"""
import os
import sys
import tempfile

import jinja2
import jinja2.sandbox
import yaml

DEVICE_DICT = "{% extends 'qemu.jinja2' %}\n"


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    types_dir, job_path, out_path = argv[1:]
    with open(job_path) as fh:
        job = yaml.safe_load(fh)
    with tempfile.TemporaryDirectory(prefix="tm-lava-dev-") as devices:
        with open(os.path.join(devices, "trapmeter-qemu.jinja2"), "w") as fh:
            fh.write(DEVICE_DICT)
        env = jinja2.sandbox.SandboxedEnvironment(
            loader=jinja2.FileSystemLoader([devices, types_dir]),
            autoescape=False, trim_blocks=True)
        text = env.get_template("trapmeter-qemu.jinja2").render(
            **(job.get("context") or {}))
    yaml.safe_load(text)        # must be valid YAML, as lava-server checks
    with open(out_path, "w") as fh:
        fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
