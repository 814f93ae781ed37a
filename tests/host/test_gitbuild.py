"""tests/host/test_gitbuild.py - the repository side of bisect
(tools/trapmeterlib/system/gitbuild.py) on a small git repository made
by the test: the first-parent line, worktrees, and builds that fail, time
out, leave the last step's binary behind or leave a process running."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.system import gitbuild  # noqa: E402


def git(repo, *words):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", "-C", repo, *words], check=True, env=env,
                          capture_output=True, text=True).stdout.strip()


@unittest.skipUnless(shutil.which("git"), "git not installed")
class GitBuild(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tm-gitbuild-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.repo = os.path.join(self.dir, "repo")
        os.makedirs(self.repo)
        git(self.repo, "init", "-q")
        self.hashes = []
        for i in range(4):
            with open(os.path.join(self.repo, "v"), "w") as fh:
                fh.write("%d\n" % i)
            git(self.repo, "add", "-A")
            git(self.repo, "commit", "-q", "-m", "c%d" % i)
            self.hashes.append(git(self.repo, "rev-parse", "HEAD"))
        # a side branch merged into the line: its commit is no step
        git(self.repo, "checkout", "-q", "-b", "side", self.hashes[1])
        with open(os.path.join(self.repo, "w"), "w") as fh:
            fh.write("side\n")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "side")
        self.side = git(self.repo, "rev-parse", "HEAD")
        git(self.repo, "checkout", "-q", "master" if "master" in git(
            self.repo, "branch") else "main")
        git(self.repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
        self.merge = git(self.repo, "rev-parse", "HEAD")

    def test_first_parent_line(self):
        line = gitbuild.first_parent_line(self.repo, self.hashes[0], self.merge)
        self.assertEqual([c for c, _ in line], self.hashes + [self.merge])
        self.assertEqual(line[0][1], "c0")

    def test_good_off_the_line_refused(self):
        with self.assertRaises(gitbuild.GitError) as cm:
            gitbuild.first_parent_line(self.repo, self.side, self.merge)
        self.assertIn("not on the first-parent line", str(cm.exception))

    def test_unknown_revision(self):
        with self.assertRaises(gitbuild.GitError):
            gitbuild.commit_of(self.repo, "no-such-rev")

    def test_build_in_worktree_and_failures(self):
        tree = os.path.join(self.dir, "wt")
        log = os.path.join(self.dir, "build.log")
        cmd = "test $(cat v) != 2 && mkdir -p out && cp v out/bin"
        gitbuild.add_worktree(self.repo, tree, self.hashes[1])
        path, why = gitbuild.build(tree, cmd, "out/bin", log)
        self.assertIsNone(why)
        with open(path) as fh:
            self.assertEqual(fh.read(), "1\n")
        # commit 2 fails: the last step's binary must not survive it
        gitbuild.checkout(self.repo, tree, self.hashes[2])
        path, why = gitbuild.build(tree, cmd, "out/bin", log)
        self.assertIsNone(path)
        self.assertIn("status 1", why)
        self.assertFalse(os.path.exists(os.path.join(tree, "out/bin")))
        # a build that succeeds without writing the binary fails
        path, why = gitbuild.build(tree, "true", "out/bin", log)
        self.assertIn("wrote no out/bin", why)
        path, why = gitbuild.build(tree, "sleep 5", "out/bin", log, timeout=0.3)
        self.assertIn("timed out", why)
        self.assertIsNone(gitbuild.remove_worktree(self.repo, tree))
        self.assertFalse(os.path.exists(tree))

    def test_plain_directory_is_no_worktree(self):
        # a leftover without .git inside the user's checkout: git would
        # walk up to the checkout itself; it is refused, never moved
        head = git(self.repo, "rev-parse", "HEAD")
        with open(os.path.join(self.repo, "v"), "a") as fh:
            fh.write("uncommitted\n")
        plain = os.path.join(self.repo, "bisect", "trees", "good")
        os.makedirs(plain)
        self.assertFalse(gitbuild.worktree_of(self.repo, plain))
        for move in (lambda: gitbuild.checkout(self.repo, plain,
                                               self.hashes[0]),
                     lambda: gitbuild.worktree_at(self.repo, plain,
                                                  self.hashes[0]),
                     lambda: gitbuild.add_worktree(self.repo, plain,
                                                   self.hashes[0])):
            with self.assertRaises(gitbuild.NotOwned) as cm:
                move()
            self.assertIn("git does not know it as a worktree",
                          str(cm.exception))
        self.assertIn("left in place", gitbuild.remove_worktree(self.repo,
                                                                plain))
        self.assertTrue(os.path.isdir(plain))
        self.assertEqual(git(self.repo, "rev-parse", "HEAD"), head)
        with open(os.path.join(self.repo, "v")) as fh:
            self.assertIn("uncommitted", fh.read())

    def test_main_checkout_and_other_repositories_are_not_ours(self):
        self.assertFalse(gitbuild.worktree_of(self.repo, self.repo))
        other = os.path.join(self.dir, "other")
        os.makedirs(other)
        git(other, "init", "-q")
        git(other, "commit", "-q", "--allow-empty", "-m", "o")
        tree = os.path.join(self.dir, "other-wt")
        git(other, "worktree", "add", "-q", "--detach", tree)
        self.assertFalse(gitbuild.worktree_of(self.repo, tree))
        self.assertTrue(gitbuild.worktree_of(other, tree))
        # a worktree of ours whose .git was lost is not ours any more
        mine = os.path.join(self.dir, "wt")
        gitbuild.add_worktree(self.repo, mine, self.hashes[0])
        self.assertTrue(gitbuild.worktree_of(self.repo, mine))
        os.unlink(os.path.join(mine, ".git"))
        self.assertFalse(gitbuild.worktree_of(self.repo, mine))

    def test_binary_through_a_symlink_is_not_removed(self):
        outside = os.path.join(self.dir, "outside")
        os.makedirs(outside)
        victim = os.path.join(outside, "victim")
        with open(victim, "w") as fh:
            fh.write("keep\n")
        os.symlink(outside, os.path.join(self.repo, "link"))
        git(self.repo, "add", "link")
        git(self.repo, "commit", "-q", "-m", "a link out")
        tree = os.path.join(self.dir, "wt")
        gitbuild.add_worktree(self.repo, tree, "HEAD")
        path, why = gitbuild.build(tree, "true", "link/victim",
                                   os.path.join(self.dir, "log"))
        self.assertIsNone(path)
        self.assertIn("outside the checkout", why)
        self.assertTrue(os.path.isfile(victim))
        # a tracked file is never removed either
        path, why = gitbuild.build(tree, "true", "v",
                                   os.path.join(self.dir, "log"))
        self.assertIn("a file git tracks", why)
        self.assertTrue(os.path.isfile(os.path.join(tree, "v")))

    def test_binary_names(self):
        for bad in ("", ".", "a/", "/abs", "..", "a/../../b", "a/./b",
                    ".git/config"):
            self.assertIsNotNone(gitbuild.binary_error(bad), bad)
        for good in ("out/qemu", "build/qemu-system-x86_64", "a..b"):
            self.assertIsNone(gitbuild.binary_error(good), good)

    def test_a_build_leaves_no_process_behind(self):
        # a build that starts a daemon and exits: the build's process group
        # goes with it (system/children.py), finished or timed out
        pidfile = os.path.join(self.dir, "pid")
        for cmd, timeout in (("sleep 300 & echo $! > %s; mkdir -p out; "
                              "touch out/bin" % pidfile, 30),
                             ("sleep 300 & echo $! > %s; sleep 300" % pidfile,
                              0.5)):
            gitbuild.build(self.repo, cmd, "out/bin",
                           os.path.join(self.dir, "log"), timeout=timeout)
            with open(pidfile) as fh:
                pid = int(fh.read())
            self.assertTrue(dies(pid), cmd)

    def test_git_timeout_is_a_git_error(self):
        with self.assertRaises(gitbuild.GitError) as cm:
            gitbuild.git(self.repo, "log", timeout=0.000001)
        self.assertIn("git log", str(cm.exception))


def dies(pid, within_s=2.0):
    """Is `pid` gone (or a zombie) within `within_s` seconds?  A SIGKILL
    sent to the group takes effect shortly after kill() returns."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.02)
    return False


if __name__ == "__main__":
    unittest.main()
