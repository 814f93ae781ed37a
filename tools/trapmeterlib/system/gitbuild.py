"""The repository side of `trapmeter bisect` and `bisect-step`: resolve
revisions, list the first-parent line between two commits, check commits
out in worktrees of their own, and build one with the user's command
(its output to a log file, bounded by a timeout).

Nothing here touches a directory git does not confirm as a linked
worktree of the repository (worktree_of): a plain directory where a
worktree was expected would make `git -C DIR checkout` walk up to the
enclosing checkout, the user's own."""

import os
import shutil
import subprocess

from ..values import exitstatus
from ..values.errors import TrapmeterError
from . import children

GIT_TIMEOUT = 120           # seconds for one git command
DEFAULT_BUILD_TIMEOUT = 1800


class GitError(TrapmeterError):
    """A git command failed or the repository does not fit."""

    code = exitstatus.BAD_INPUT


class NotOwned(GitError):
    """A path where a worktree of ours belongs holds something else."""


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


def readable_commit(repo, rev, name):
    """The full hash of REV once git has read its whole tree: a commit
    whose tree or a subtree is missing (a corrupt or shallow repository)
    is a GitError naming it, before anything is built."""
    full = commit_of(repo, rev)
    try:
        git(repo, "ls-tree", "-r", "-z", "--name-only", full)
    except GitError as exc:
        raise GitError("%s %s (%s): git cannot read its tree: %s"
                       % (name, rev, full[:12], exc))
    return full


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


# ---------------------------------------------------------------- worktrees

def linked_worktrees(repo):
    """Real paths of the repository's linked worktrees (git worktree
    list, less the main one: that is the user's checkout)."""
    text = git(repo, "worktree", "list", "--porcelain")
    paths = [ln[len("worktree "):] for ln in text.splitlines()
             if ln.startswith("worktree ")]
    return [os.path.realpath(p) for p in paths[1:]]


def worktree_of(repo, path):
    """Does git confirm `path` as a linked worktree of `repo`: listed by
    `git worktree list`, and `git -C path` finds its top there (not in
    an enclosing checkout)?"""
    real = os.path.realpath(path)
    if not os.path.isdir(real) or real not in linked_worktrees(repo):
        return False
    try:
        top = git(real, "rev-parse", "--show-toplevel")
    except GitError:
        return False
    return os.path.realpath(top) == real


def refuse_unowned(repo, path):
    raise NotOwned("%s exists but git does not know it as a worktree of %s "
                   "(a leftover? remove it, or choose another --out)"
                   % (path, repo))


def add_worktree(repo, path, rev):
    """A fresh detached worktree of `repo` at `path` on `rev`: a worktree
    of ours left there is removed first; anything else there is
    NotOwned."""
    if os.path.lexists(path):
        if not worktree_of(repo, path):
            refuse_unowned(repo, path)
        why = remove_worktree(repo, path)
        if why:
            raise GitError(why)
    prune(repo)
    git(repo, "worktree", "add", "--detach", path, rev)


def worktree_at(repo, path, rev):
    """Worktree `path` of `repo` on `rev`: the one there moved (its
    untracked build products kept), else a new one; NotOwned when
    something else is there."""
    if not os.path.lexists(path):
        add_worktree(repo, path, rev)
    else:
        checkout(repo, path, rev)


def checkout(repo, path, rev):
    """Move worktree `path` of `repo` to `rev` once git confirms it is
    one; untracked build products stay, so that an incremental build
    only redoes what the step changed."""
    if not worktree_of(repo, path):
        refuse_unowned(repo, path)
    git(path, "checkout", "--detach", "--force", "--quiet", rev)


def remove_worktree(repo, path):
    """Remove our worktree at `path`: None when it is gone (or was never
    there), else why not.  Something git does not confirm as a worktree
    of `repo` is left alone."""
    if os.path.lexists(path):
        if not worktree_of(repo, path):
            return ("%s left in place: git does not know it as a worktree "
                    "of %s" % (path, repo))
        try:
            git(repo, "worktree", "remove", "--force", "--force", path)
        except GitError:
            # git refuses a worktree with submodules; it is ours (checked)
            try:
                shutil.rmtree(path)
            except OSError as exc:
                return "cannot remove the worktree %s: %s" % (
                    path, exc.strerror or exc)
    prune(repo)
    return None


def prune(repo):
    try:
        git(repo, "worktree", "prune")
    except GitError:
        pass


# ---------------------------------------------------------------- builds

def binary_error(binary):
    """Why `binary` (--binary) is no path inside a checkout, or None: a
    relative path of a file, without '..', '.' or '.git' parts."""
    if not binary or binary.endswith("/"):
        return "--binary %r: the path of a file inside the checkout" % binary
    if os.path.isabs(binary):
        return "--binary %s: a path inside the checkout, not an absolute " \
            "one" % binary
    parts = binary.split("/")
    if any(p in ("..", ".", ".git") for p in parts):
        return "--binary %s: a path inside the checkout without '..', '.' " \
            "or '.git' parts" % binary
    return None


def inside(tree, path):
    """Is `path`, symlinks resolved, within `tree`?"""
    top = os.path.realpath(tree)
    return os.path.realpath(path).startswith(top + os.sep)


def tracked(tree, binary):
    """Is `binary` a file git tracks in checkout `tree`?"""
    try:
        return bool(git(tree, "ls-files", "-z", "--", ":(literal)" + binary))
    except GitError:
        return False


def build(tree, command, binary, log_path, timeout=DEFAULT_BUILD_TIMEOUT):
    """Run the build `command` (a shell line) in `tree`; (path of the
    binary, None) or (None, why it failed).  The binary is removed first,
    so that a build that fails to write it is not judged on the last
    step's; a binary outside the tree (through a symlink) or tracked by
    git is never removed: that build fails."""
    why = binary_error(binary)
    if why:
        return None, why
    target = os.path.join(tree, binary)
    if not inside(tree, target):
        return None, "%s resolves outside the checkout (a symlink?)" % binary
    if tracked(tree, binary):
        return None, "%s is a file git tracks, not what the build " \
            "writes" % binary
    try:
        if os.path.lexists(target):
            os.unlink(target)
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
    if not inside(tree, target):
        return None, "the build made %s a link outside the checkout" % binary
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
