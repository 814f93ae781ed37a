"""What `trapmeter bisect` and `bisect-step` check before the first
build: where they write (--out: beside the repository by default, taken
only when empty or an earlier bisection's, written and synced so that a
full or read-only disk is named at once), --json (none of the files a
bisection writes), the worktrees an earlier run left (removed when git
confirms them as ours, else refused by name), and numbers of seconds."""

import fnmatch
import math
import os

from ..system import gitbuild
from .common import OptionError, check_outputs

# what a bisection writes into --out (no --json may land on one)
OUT_MARK = ".trapmeter-bisect"
OUT_FILES = ("endpoints-*", "step-*", "build-*.log", "steps.json", OUT_MARK,
             "trees")
# the default --out: beside the repository, never inside it
DEFAULT_OUT_SUFFIX = "-bisect"
# --budget beyond this (a year) is a typo, not a plan
MAX_BUDGET_S = 366 * 86400.0
# bytes written (and synced) to --out before the first build: a full disk
# is named there, not after the endpoint builds
PROBE_BYTES = 1 << 16


def check_seconds(option, value):
    """A positive, finite number of seconds (inf, nan or 1e308 refused)."""
    if value is not None and not (math.isfinite(value) and
                                  0 < value <= MAX_BUDGET_S):
        raise OptionError("%s must be a positive number of seconds, at most "
                          "%d" % (option, MAX_BUDGET_S))


def default_out(top):
    """REPO-bisect beside the repository's top directory."""
    return os.path.join(os.path.dirname(top),
                        os.path.basename(top) + DEFAULT_OUT_SUFFIX)


def prepare_out(out, what="--out"):
    """Make `out` (absolute) ready before the first build: a directory,
    empty or marked as a bisection's (OUT_MARK), into which a file can be
    written and synced (read-only or full is named here).  True when
    this call made the directory (undo_out removes it again)."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise OptionError("%s %s: not a directory" % (what, out))
    made = not os.path.lexists(out)
    try:
        os.makedirs(out, exist_ok=True)
        names = set(os.listdir(out))
    except OSError as exc:
        raise OptionError("%s %s: %s" % (what, out, exc.strerror or exc))
    if names and OUT_MARK not in names:
        raise OptionError("%s %s: not empty and no earlier bisection's "
                          "(no %s): choose another directory"
                          % (what, out, OUT_MARK))
    probe = os.path.join(out, ".probe-%d" % os.getpid())
    try:
        with open(probe, "wb") as fh:
            fh.write(b"\0" * PROBE_BYTES)
            fh.flush()
            os.fsync(fh.fileno())
        os.unlink(probe)
        with open(os.path.join(out, OUT_MARK), "w") as fh:
            fh.write("trapmeter bisect writes here\n")
    except OSError as exc:
        if os.path.lexists(probe):
            os.unlink(probe)
        raise OptionError("%s %s: cannot write there: %s"
                          % (what, out, exc.strerror or exc))
    return made


def undo_out(out, made):
    """After a refusal: the --out prepare_out made is removed again (an
    option error leaves nothing behind)."""
    if made:
        try:
            os.unlink(os.path.join(out, OUT_MARK))
            os.rmdir(out)
        except OSError:
            pass


def check_json(option, path, out):
    """--json: a file that can be written, and none of the files the
    bisection writes into `out` (a session's results are its inputs)."""
    check_outputs([], [(option, path)])
    real, home = os.path.realpath(path), os.path.realpath(out)
    if os.path.dirname(real) == home and any(
            fnmatch.fnmatch(os.path.basename(real), pat) for pat in OUT_FILES):
        raise OptionError("%s %s: the bisection writes that file itself "
                          "(choose another name)" % (option, path))
    if real.startswith(os.path.join(home, "trees") + os.sep):
        raise OptionError("%s %s: inside the bisection's worktrees"
                          % (option, path))
    where = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(where):
        raise OptionError("%s %s: directory does not exist" % (option, path))
    if not os.access(path if os.path.exists(path) else where, os.W_OK):
        raise OptionError("%s %s: not writable" % (option, path))


def clear_trees(repo, trees):
    """Remove the worktrees an earlier bisection left in `trees`; refuse
    anything there git does not confirm as a worktree of `repo`."""
    for name in ("good", "step"):
        path = os.path.join(trees, name)
        if not os.path.lexists(path):
            continue
        if not gitbuild.worktree_of(repo, path):
            raise OptionError("bisect: %s exists but git does not know it "
                              "as a worktree of %s (a leftover? remove it, or "
                              "choose another --out)" % (path, repo))
        why = gitbuild.remove_worktree(repo, path)
        if why:
            raise OptionError("bisect: %s" % why)
