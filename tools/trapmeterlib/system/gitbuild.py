"""The repository side of `trapmeter bisect` and `bisect-step`: resolve
revisions, list the first-parent line between two commits, check commits
out in worktrees of their own, and build one with the user's command
(its output to a log file, bounded by a timeout)."""

import os
import shutil
import subprocess

from . import children

GIT_TIMEOUT = 120           # seconds for one git command
DEFAULT_BUILD_TIMEOUT = 1800


class GitError(Exception):
    """A git command failed or the repository does not fit."""


def git(repo, *words, timeout=GIT_TIMEOUT):
    """stdout of `git -C repo WORDS`, stripped; GitError on failure."""
    try:
        proc = children.run(["git", "-C", repo] + list(words),
                            stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError("git %s: %s" % (words[0], exc))
    if proc.returncode != 0:
        raise GitError("git %s: %s" % (" ".join(words[:3]),
                                       proc.stderr.strip().splitlines()[-1]
                                       if proc.stderr.strip() else
                                       "exit status %d" % proc.returncode))
    return proc.stdout.strip()


def commit_of(repo, rev):
    """The full hash of REV (a commit), or GitError naming it."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet",
                   rev + "^{commit}")
    except GitError:
        raise GitError("%s: not a commit in %s" % (rev, repo))


def first_parent_line(repo, good, bad):
    """[(hash, subject)] from good (first) to bad (last) along bad's
    first parents; GitError when good is not on that line."""
    line = git(repo, "rev-list", "--first-parent", bad).split()
    if good not in line:
        raise GitError("the good commit %s is not on the first-parent line "
                       "of the bad one %s" % (good[:12], bad[:12]))
    if good == bad:
        raise GitError("--good and --bad are the same commit %s" % good[:12])
    text = git(repo, "log", "--first-parent", "--reverse",
               "--format=%H%x09%s", "%s..%s" % (good, bad))
    steps = [tuple(ln.split("\t", 1)) if "\t" in ln else (ln, "")
             for ln in text.splitlines() if ln]
    return [(good, subject(repo, good))] + steps


def subject(repo, rev):
    return git(repo, "log", "-1", "--format=%s", rev)


def common_dir(repo):
    """The repository's git directory shared by all its worktrees."""
    path = git(repo, "rev-parse", "--git-common-dir")
    return path if os.path.isabs(path) else os.path.join(repo, path)


def add_worktree(repo, path, rev):
    """A detached worktree of `repo` at `path` on `rev` (a stale one at
    the same path is removed first)."""
    remove_worktree(repo, path)
    git(repo, "worktree", "add", "--detach", "--force", path, rev)


def checkout(path, rev):
    """Move worktree `path` to `rev`; untracked build products stay, so
    that an incremental build only redoes what the step changed."""
    git(path, "checkout", "--detach", "--force", "--quiet", rev)


def remove_worktree(repo, path):
    if os.path.exists(path):
        try:
            git(repo, "worktree", "remove", "--force", path)
        except GitError:
            shutil.rmtree(path, ignore_errors=True)
    try:
        git(repo, "worktree", "prune")
    except GitError:
        pass


def build(tree, command, binary, log_path, timeout=DEFAULT_BUILD_TIMEOUT):
    """Run the build `command` (a shell line) in `tree`; (path of the
    binary, None) or (None, why it failed).  The binary is removed first,
    so that a build that fails to write it is not judged on the last
    step's."""
    target = os.path.join(tree, binary)
    if os.path.lexists(target):
        os.unlink(target)
    try:
        with open(log_path, "wb") as log:
            code = _run_bounded(command, tree, log, timeout)
    except OSError as exc:
        return None, "cannot run the build: %s" % (exc.strerror or exc)
    if code is None:
        return None, "build timed out after %g s (log %s)" % (timeout,
                                                              log_path)
    if code != 0:
        return None, "build exited with status %d (log %s)" % (code,
                                                               log_path)
    if not os.path.isfile(target):
        return None, "the build wrote no %s (log %s)" % (binary, log_path)
    return target, None


def _run_bounded(command, cwd, log, timeout):
    """Exit status of the shell line, or None after `timeout` seconds
    (children.run then stops its whole process group)."""
    try:
        return children.run(command, shell=True, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT,
                            timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return None
