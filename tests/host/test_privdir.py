"""tests/host/test_privdir.py - every command that keeps files between
boots (run, ab, sensitivity) makes them in a privdir directory named after
its PID, so a later run removes what a killed one left; ab and
sensitivity remove theirs when they end, also on an error."""
import argparse
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.system import privdir  # noqa: E402
from trapmeterlib.commands import ab as ab_cmd  # noqa: E402
from trapmeterlib.commands import ab_rounds  # noqa: E402
from trapmeterlib.commands import sensitivity as sens_cmd  # noqa: E402


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tm-privdir-test-")
        patch = mock.patch.dict(os.environ, {"TMPDIR": self.tmp})
        patch.start()
        self.addCleanup(patch.stop)
        tempfile.tempdir = None             # read TMPDIR again
        self.addCleanup(setattr, tempfile, "tempdir", None)
        self.addCleanup(privdir.remove, self.tmp)

    def assert_private(self, path, tag):
        name = os.path.basename(path)
        match = privdir.NAME_RE.match(name)
        self.assertTrue(match, name)
        self.assertEqual(int(match.group(1)), os.getpid())
        self.assertTrue(name.startswith("trapmeter-%d-%s_" % (os.getpid(), tag)), name)
        self.assertEqual(os.path.dirname(path), self.tmp)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o700)

    def dead_runs_dir(self, tag):
        dead = subprocess.Popen(["true"])
        dead.wait()
        if privdir.pid_alive(dead.pid):
            self.skipTest("PID reused at once")
        path = os.path.join(self.tmp, "trapmeter-%d-%s_old" % (dead.pid, tag))
        os.mkdir(path)
        return path


class Privdir(Base):
    def test_tagged_dirs_are_named_per_pid_and_found_stale(self):
        mine = privdir.make("ab")
        self.assert_private(mine, "ab")
        stale = self.dead_runs_dir("sens")
        said = []
        fresh = privdir.fresh("sens", said.append)
        self.assert_private(fresh, "sens")
        self.assertFalse(os.path.exists(stale))
        self.assertEqual(said, ["removed %s, left by a dead run" % stale])
        self.assertTrue(os.path.isdir(mine))
        open(os.path.join(mine, "a-1.json"), "w").close()
        os.mkdir(os.path.join(mine, "sub"))
        privdir.remove(mine)
        self.assertFalse(os.path.exists(mine))


class Commands(Base):
    def seen(self, store):
        def run(session_or_args, *rest):
            tmp = session_or_args.tmp if hasattr(session_or_args, "tmp") else rest[3]
            store.append(tmp)
            self.assertTrue(os.path.isdir(tmp))
            open(os.path.join(tmp, "a-1.json"), "w").close()
            os.mkdir(os.path.join(tmp, "sub"))
            raise RuntimeError("boot failed")
        return run

    def test_ab_dir_is_private_and_removed(self):
        stale = self.dead_runs_dir("ab")
        seen = []
        cfg = ab_cmd.SessionConfig(sides={}, a_json="a.json", b_json="b.json",
                                   thresholds={}, metrics=["median"],
                                   max_boots=4, looks=1, alpha=0.05)
        with mock.patch.object(ab_rounds, "say"), \
                mock.patch.object(ab_rounds, "rounds_until_decided", self.seen(seen)):
            with self.assertRaises(RuntimeError):
                ab_rounds.run_session(cfg)
        self.assert_private_gone(seen, "ab", stale)

    def test_sensitivity_dir_is_private_and_removed(self):
        stale = self.dead_runs_dir("sens")
        seen = []
        args = argparse.Namespace(levels="0,1000", budget=None, max_sessions=None,
                                  out=os.path.join(self.tmp, "out"), no_build=True,
                                  run_options=[])
        with mock.patch.object(sens_cmd, "parse_levels", return_value=[0, 1000]), \
                mock.patch.object(sens_cmd.compare_cmd, "check_verdict_options"), \
                mock.patch.object(sens_cmd, "check_applicable", return_value=("q", "s")), \
                mock.patch.object(sens_cmd, "say"), \
                mock.patch.object(sens_cmd, "sessions_and_table", self.seen(seen)):
            with self.assertRaises(RuntimeError):
                sens_cmd.command(args)
        self.assert_private_gone(seen, "sens", stale)

    def assert_private_gone(self, seen, tag, stale):
        self.assertEqual(len(seen), 1)
        name = os.path.basename(seen[0])
        self.assertTrue(name.startswith("trapmeter-%d-%s_" % (os.getpid(), tag)), name)
        self.assertTrue(privdir.NAME_RE.match(name), name)
        self.assertFalse(os.path.exists(seen[0]), "left behind")
        self.assertFalse(os.path.exists(stale), "a dead run's dir was kept")


if __name__ == "__main__":
    unittest.main()
