"""The Python call store (agent_tools.tracking.SqliteStore) refuses what agent-tools' own store refuses
(dev.agenttools.store.PrivateFolder): a calls.db another user made, a folder others may write (a sticky one too), a
link; tracking then turns off with one line on stderr, and the calls answer as they would. The tests run as root:
"another user" is a file chown-ed to nobody."""

import contextlib
import io
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from support import LAUNCHER, stand_in

from agent_tools import AgentToolsClient, tracked_tool
from agent_tools.tracking import Recorder, SqliteStore, StoreRefused, TrackingSettings

NOBODY = 65534
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def folder(path, mode, owner=0):
    os.makedirs(path, exist_ok=True)
    os.chown(path, owner, owner)
    os.chmod(path, mode)
    return path


def foreign_store(path, owner=NOBODY):
    """A calls.db as another user would leave it: theirs, open to all, with a row of their own."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE planted (x)")
        db.execute("INSERT INTO planted VALUES (1)")
    db.close()
    os.chown(path, owner, owner)
    os.chmod(path, 0o666)
    return path


@unittest.skipUnless(AS_ROOT, "another user's file takes root to make (chown)")
class ForeignStoreTest(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix="agent-tools-py-store-")
        self.addCleanup(shutil.rmtree, self.base, True)
        self.shared = folder(os.path.join(self.base, "tmp"), 0o1777)

    def tracked_calls(self, db):
        """Three tracked calls with calls.db at db: a plain Python tool, and a tool call answered by a stand-in
        server (recorded here, record_tool_answers); (their answers, what stderr said, the recorder)."""
        recorder = Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": db}))
        tools = AgentToolsClient(command=stand_in(), timeout=20)
        self.addCleanup(tools.close)

        @tracked_tool("store-agent", tool="local.summarise", recorder=recorder)
        def summarise(n):
            return {"summary": "%d emails" % n}

        @tracked_tool("store-agent", recorder=recorder, record_tool_answers=True)
        def echo(n):
            return tools.call("echo", {"n": n})

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            answers = [summarise(3), echo(1)]
            self.assertTrue(recorder.flush(30))
            answers.append(summarise(4))
            self.assertTrue(recorder.flush(30))
        return answers, err.getvalue().splitlines(), recorder

    def assert_untouched(self, db):
        self.assertEqual(NOBODY, os.stat(db).st_uid)
        with sqlite3.connect(db) as check:
            tables = {t for (t,) in check.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        check.close()
        self.assertEqual({"planted"}, tables, "nothing written into another user's file")

    def test_another_users_calls_db_in_a_sticky_shared_folder_is_refused_and_tracking_turns_off(self):
        db = foreign_store(os.path.join(self.shared, "calls.db"))
        answers, lines, recorder = self.tracked_calls(db)
        self.assertEqual({"summary": "3 emails"}, answers[0])
        self.assertEqual(1, answers[1]["data"]["params"]["n"], "the call still answers")
        self.assertEqual({"summary": "4 emails"}, answers[2])
        self.assertEqual(1, len(lines), lines)
        self.assertIn("agent-tools: call tracking is off: the folder %s" % os.path.realpath(self.shared), lines[0])
        self.assertIn("others may make files in it", lines[0])
        self.assertFalse(recorder.enabled)
        self.assertEqual(0, recorder.written)
        self.assert_untouched(db)

    def test_the_java_store_refuses_the_same_file(self):
        # what the Python store refuses is what agent-tools' own refuses: stats over the same calls.db
        db = foreign_store(os.path.join(self.shared, "calls.db"))
        with self.assertRaisesRegex(StoreRefused, "others may make files in it"):
            SqliteStore(db)
        if not os.path.exists(os.path.join(os.path.dirname(LAUNCHER), "target", "launcher", "agent-tools.jar")):
            self.skipTest("the launcher's jar is not built")
        done = subprocess.run([LAUNCHER, "stats", "--since", "1d"], env=dict(os.environ, AGENT_TOOLS_TRACKING_DB=db),
                              capture_output=True, text=True, timeout=300)
        self.assertNotEqual(0, done.returncode)
        self.assertIn("others may make files in it", done.stdout + done.stderr)
        self.assert_untouched(db)

    def test_another_users_calls_db_in_a_folder_of_ours_is_refused(self):
        mine = folder(os.path.join(self.base, "mine"), 0o700)
        db = foreign_store(os.path.join(mine, "calls.db"))
        with self.assertRaisesRegex(StoreRefused, "%s belongs to nobody, not to you \\(root\\)" % db):
            SqliteStore(db)
        self.assert_untouched(db)

    def test_a_folder_of_another_user_is_refused(self):
        theirs = folder(os.path.join(self.base, "theirs"), 0o755, owner=NOBODY)
        with self.assertRaisesRegex(StoreRefused, "the folder %s belongs to nobody, not to you" % theirs):
            SqliteStore(os.path.join(theirs, "calls.db"))
        self.assertEqual([], os.listdir(theirs))

    def test_a_folder_others_may_write_is_refused_before_any_file_is_made(self):
        for mode in (0o777, 0o775):
            open_folder = folder(os.path.join(self.base, "open-%o" % mode), mode, owner=0)
            os.chown(open_folder, 0, 100)  # group "users": not the user's private group
            with self.subTest(mode=oct(mode)):
                with self.assertRaisesRegex(StoreRefused, "others may make files in it"):
                    SqliteStore(os.path.join(open_folder, "calls.db"))
                self.assertEqual([], os.listdir(open_folder))

    def test_links_are_refused_the_store_and_its_journal(self):
        mine = folder(os.path.join(self.base, "mine"), 0o700)
        target = os.path.join(self.base, "elsewhere.db")
        open(target, "w").close()
        os.symlink(target, os.path.join(mine, "calls.db"))
        with self.assertRaisesRegex(StoreRefused, "is a symbolic link"):
            SqliteStore(os.path.join(mine, "calls.db"))
        other = folder(os.path.join(self.base, "other"), 0o700)
        os.symlink(target, os.path.join(other, "calls.db-journal"))
        with self.assertRaisesRegex(StoreRefused, "calls.db-journal is a symbolic link"):
            SqliteStore(os.path.join(other, "calls.db"))
        self.assertEqual(0, os.path.getsize(target))

    def test_a_missing_folder_is_made_owner_only_and_the_store_is_the_users(self):
        db = os.path.join(self.base, "new", "deeper", "calls.db")
        store = SqliteStore(db)
        store.write([(1, "t", "a", 1.0, "python", "auto", "ok", None, 1, "py-1")])
        store.close()
        for made in (os.path.dirname(db), os.path.dirname(os.path.dirname(db))):
            self.assertEqual(0o700, os.stat(made).st_mode & 0o777, made)
        self.assertEqual(0o600, os.stat(db).st_mode & 0o777)


if __name__ == "__main__":
    unittest.main()
