"""examples/python-agent, the article's pattern (tools first, the Python fallback, tracked), run as a user runs it
against the emulator with agent-tools missing, so that every call falls back: it prints what the tools' answers would
make it print (the fallback answers in the tools' shape), and `agent-tools stats` shows the Python rows."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from support import ROOT, start_emulator, stop, tools_env

from agent_tools import AgentToolsClient
from test_tracking import MISSING, stats

AGENT = os.path.join(ROOT, "examples", "python-agent", "agent.py")


@unittest.skipIf(MISSING, MISSING)
class ExampleAgentTest(unittest.TestCase):
    def setUp(self):
        emulator, self.root = start_emulator("--latency", "0ms", "--jitter", "0ms")
        self.addCleanup(stop, emulator)
        self.env = tools_env(self.root)
        # the launcher's resident server in a folder of this test's own, stopped when the folder goes
        runtime = tempfile.mkdtemp(prefix="agent-tools-py-agent-run-")
        self.addCleanup(shutil.rmtree, runtime, True)
        self.env.update({"XDG_RUNTIME_DIR": runtime, "AGENT_TOOLS_DAEMON_IDLE": "60s", "AGENT_TOOLS_AOT": "off"})

    def run_agent(self, **more):
        env = dict(os.environ, **self.env)
        env.update(more)
        done = subprocess.run([sys.executable, AGENT], env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        # "list_emails  agent-tools (concurrent)  312.5 ms": the call and which path answered
        paths = [m.groups() for m in map(re.compile(r"^(\S+)\s+(.+?)\s+[0-9.]+ ms$").match, done.stderr.splitlines()) if m]
        return done.stdout.splitlines(), paths

    def expected_output(self):
        """What the agent prints when the tools answer: asked of them here, with time for a cold start."""
        with AgentToolsClient(env=self.env, timeout=240) as tools:
            listed = tools.list_emails(max_results=5)
            self.assertIsNotNone(listed, tools.last_error)
            emails = listed["data"]["emails"]
            newest = tools.get_email(emails[0]["id"])
            self.assertIsNotNone(newest, tools.last_error)
        subject = newest["data"].get("subject") or newest["data"].get("snippet", "")
        return ["%s  %s" % (e["id"], e.get("subject", "")) for e in emails] + ["newest: " + subject] \
            + ["newest again: " + subject] * 3

    def test_falls_back_in_the_tools_shape_and_stats_shows_the_python_rows(self):
        expected = self.expected_output()
        self.assertEqual(9, len(expected))
        # agent-tools missing: every call is answered by the package's Python fallback
        missing = os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-agent-none-"), "agent-tools")
        output, paths = self.run_agent(AGENT_TOOLS_COMMAND="%s serve --stdio" % shlex.quote(missing),
                                       AGENT_TOOLS_LAUNCHER=missing)
        self.assertEqual([("list_emails", "python"), ("get_email", "python")] + [("get_email/call", "python")] * 3, paths)
        # the same ids, subjects and newest email as the tools': the fallback answers in the tools' shape
        self.assertEqual(expected, output)

        # records are written after the answers, off the calls' path: the resident server's may still be on its way
        # (seen under load), so stats is read again for up to 15 s until agent-tools' own list is in
        deadline = time.monotonic() + 15
        while True:
            rows = stats({"AGENT_TOOLS_TRACKING_DB": self.env["AGENT_TOOLS_TRACKING_DB"]})
            if rows.get(("gmail.list-emails", "all"), {}).get("calls", 0) >= 2 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        listed = rows[("gmail.list-emails", "python")]
        self.assertEqual((1, 0.0), (listed["calls"], listed["error_rate"]))
        gets = rows[("gmail.get-email", "python")]
        self.assertEqual((4, 0.0), (gets["calls"], gets["error_rate"]), "the client's fallback and the per-call one")
        self.assertEqual(2, rows[("gmail.list-emails", "all")]["calls"], "agent-tools' own row beside Python's")


if __name__ == "__main__":
    unittest.main()
