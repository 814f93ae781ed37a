"""tests/boot/bisect_repo.py - a git repository made by a test for
`trapmeter bisect`: every commit's "build" writes a QEMU wrapper that
LD_PRELOADs the project's delay shim (build/kvm_delay.so, the one
`trapmeter sensitivity` uses) with the delay the commit's `delay` file
names; the delay grows at one commit.  One commit may break its build.

The delay is a share of one exit to QEMU, measured by a calibration boot
of pio.user (its ns per op: one port read answered by QEMU)."""
import json
import os
import subprocess
import tempfile

from tests.boot.common import ROOT, RUNNER

SHIM = os.path.join(ROOT, "build", "kvm_delay.so")
BUILD = "sh build.sh"
BINARY = "out/qemu"

BUILD_SH = """#!/bin/sh
# writes out/qemu: QEMU with the delay shim at the ns in ./delay
set -e
d=$(cat delay)
mkdir -p out
cat > out/qemu.tmp <<EOF
#!/bin/sh
LD_PRELOAD='%(shim)s'\\${LD_PRELOAD:+:\\$LD_PRELOAD}
TRAPMETER_DELAY_NS=$d
export LD_PRELOAD TRAPMETER_DELAY_NS
exec '%(qemu)s' "\\$@"
EOF
chmod +x out/qemu.tmp
mv out/qemu.tmp out/qemu
"""

# a phantom: the commit's build carries the delay only the first time it
# is built (the marker, outside the repository, remembers it); built again
# it is as fast as good -- what the endpoint session saw was not the commit
PHANTOM_BUILD_SH = BUILD_SH.replace("d=$(cat delay)\n", """d=$(cat delay)
if [ "$d" != 0 ]; then
    if [ -e '%(marker)s' ]; then d=0; else : > '%(marker)s'; fi
fi
""")


# under TCG the shim cannot act (no KVM_RUN): from the change on, the
# wrapper has QEMU trace every fw_cfg data read (to /dev/null), which makes
# fwcfg.in8.single.512 several times slower
TRACE_BUILD_SH = """#!/bin/sh
set -e
d=$(cat delay)
mkdir -p out
opt=""
[ "$d" = 0 ] || opt="-trace fw_cfg_read,file=/dev/null"
printf '#!/bin/sh\\nexec %%s %%s "$@"\\n' '%(qemu)s' "$opt" > out/qemu.tmp
chmod +x out/qemu.tmp
mv out/qemu.tmp out/qemu
"""


def git(repo, *words):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", "-C", repo, *words], check=True, env=env,
                          capture_output=True, text=True).stdout.strip()


def exit_ns(qemu="qemu-system-x86_64"):
    """ns of one pio.user op (a port read answered by QEMU): one KVM boot,
    median of its samples."""
    with tempfile.TemporaryDirectory(prefix="tm-bisect-cal-") as tmp:
        out = os.path.join(tmp, "r.json")
        subprocess.run([RUNNER, "run", "--no-build", "--accel", "kvm",
                        "--qemu", qemu, "--suite", "exits", "--case",
                        "pio.user", "--cmdline", "controls=off", "--json",
                        out], capture_output=True, timeout=300, cwd=ROOT)
        with open(out) as fh:
            doc = json.load(fh)
    boot = doc["boots"][0]
    res = next(r for r in boot["results"] if r["case"] == "pio.user")
    khz = boot["run"]["tsc"]["khz"]
    return res["cycles"]["median"] * 1e6 / khz


def make(repo, commits, change_at, delay_ns, broken=(), qemu=None,
         template=BUILD_SH, marker=None):
    """Commits 0 .. commits-1 (0 is good); from `change_at` on the delay is
    `delay_ns`, before it 0 (the shim loaded on both); the commits in
    `broken` fail to build; `marker`: the file PHANTOM_BUILD_SH keeps.
    Returns the hashes, oldest first."""
    import shutil
    qemu = qemu or shutil.which("qemu-system-x86_64")
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q")
    with open(os.path.join(repo, "build.sh"), "w") as fh:
        fh.write(template % {"shim": SHIM, "qemu": qemu, "marker": marker})
    with open(os.path.join(repo, ".gitignore"), "w") as fh:
        fh.write("out/\n")
    hashes = []
    for i in range(commits):
        with open(os.path.join(repo, "delay"), "w") as fh:
            fh.write("%d\n" % (delay_ns if i >= change_at else 0))
        if i in broken:
            os.unlink(os.path.join(repo, "delay"))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m",
            "step %d%s%s" % (i, ": delay %d ns" % delay_ns if i == change_at
                             else "", " (breaks the build)" if i in broken
                             else ""))
        hashes.append(git(repo, "rev-parse", "HEAD"))
    return hashes
