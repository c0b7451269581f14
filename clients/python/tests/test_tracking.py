"""tracked_tool (agent_tools.tracking): the Python side's rows go into agent-tools' own store, and the real
`agent-tools stats` shows them beside the rows agent-tools wrote; recording never delays a call."""

import asyncio
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from support import LAUNCHER, ROOT, start_emulator, stop, tools_env

from agent_tools import AgentToolsClient, AsyncAgentToolsClient, tracked_tool
from agent_tools.tracking import DynamoDbStore, Recorder, TrackingSettings

try:
    import googleapiclient.discovery  # noqa: F401  (GmailFallback imports it when made)
    import google.oauth2.credentials  # noqa: F401
    from agent_tools.fallback import GmailFallback
    MISSING = None
except ImportError as e:
    MISSING = "the fallback extra is not installed (pip install './clients/python[fallback]'): %s" % e

NO_SERVER = [os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-none-"), "agent-tools"), "serve", "--stdio"]


def stats(env):
    """`agent-tools stats --format json` over the store env names: {(tool, backend): row}."""
    done = subprocess.run([LAUNCHER, "stats", "--format", "json", "--since", "1d"], env=dict(os.environ, **env),
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError("agent-tools stats failed: %s" % done.stderr)
    rows = json.loads(done.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    return {(r["tool"], r["backend"]): r for r in rows}


@unittest.skipIf(MISSING, MISSING)
class StatsShowPythonRowsTest(unittest.TestCase):
    def test_stats_shows_the_fallbacks_rows_beside_the_tools_rows(self):
        emulator, root = start_emulator("--latency", "0ms", "--jitter", "0ms")
        self.addCleanup(stop, emulator)
        env = tools_env(root)
        recorder = Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": env["AGENT_TOOLS_TRACKING_DB"]}))
        fallback = GmailFallback(access_token="python-token", root_url=root)

        # the same tool, answered by agent-tools, then by the Python fallback when agent-tools is not there
        tools = AgentToolsClient(env=env, fallback=fallback)
        missing = AgentToolsClient(command=NO_SERVER, fallback=fallback)
        self.addCleanup(missing.close)

        @tracked_tool("py-agent", recorder=recorder)
        def list_emails(client, n):
            return client.list_emails(max_results=n, strategy="concurrent")

        @tracked_tool("py-agent", recorder=recorder)
        def get_email(client, message_id):
            return client.get_email(message_id)

        @tracked_tool("py-agent", tool="local.summarise", recorder=recorder)
        def summarise(emails):
            return {"summary": "%d emails" % len(emails)}

        for n in (1, 2, 3):
            self.assertEqual("concurrent", list_emails(tools, n)["backend"])
        first = list_emails(missing, 2)
        self.assertEqual("python", first["backend"], missing.last_error)
        self.assertEqual("python", list_emails(missing, 3)["backend"])
        self.assertEqual("python", get_email(missing, first["data"]["emails"][0]["id"])["backend"])
        self.assertIsNone(get_email(missing, "00000000000000ab"))  # the fallback's failure: recorded too
        summarise(first["data"]["emails"])
        tools.close()  # agent-tools writes its records by its exit at the latest
        self.assertTrue(recorder.flush(30))
        self.assertEqual((5, 0, 0), (recorder.written, recorder.dropped, recorder.failed))

        rows = stats({"AGENT_TOOLS_TRACKING_DB": env["AGENT_TOOLS_TRACKING_DB"]})
        self.assertEqual(3, rows[("gmail.list-emails", "concurrent")]["calls"], "agent-tools' own rows, not written twice")
        python = rows[("gmail.list-emails", "python")]
        self.assertEqual((2, 0.0, 1.0), (python["calls"], python["error_rate"], python["fallback_rate"]))
        self.assertEqual(5, rows[("gmail.list-emails", "all")]["calls"])
        self.assertAlmostEqual(2 / 5, rows[("gmail.list-emails", "all")]["fallback_rate"])
        gets = rows[("gmail.get-email", "python")]
        self.assertEqual((2, 0.5), (gets["calls"], gets["error_rate"]))
        self.assertEqual(1, rows[("local.summarise", "python")]["calls"])
        # the agent's name reached agent-tools' own rows too, and the table form shows the Python rows
        done = subprocess.run([LAUNCHER, "stats", "--since", "1d"], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, AGENT_TOOLS_TRACKING_DB=env["AGENT_TOOLS_TRACKING_DB"]))
        self.assertRegex(done.stdout, r"gmail\.list-emails\s+python\s+2\s")
        import sqlite3
        with sqlite3.connect(env["AGENT_TOOLS_TRACKING_DB"]) as db:
            agents = {a for (a,) in db.execute("SELECT DISTINCT agent_name FROM calls")}
        self.assertEqual({"py-agent"}, agents)


class DecoratorTest(unittest.TestCase):
    def recorder(self, store):
        return Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": "unused.db"}), store=store)

    def test_recording_never_waits_for_the_store_and_drops_and_counts_past_the_queue(self):
        release = threading.Event()

        class Stuck:
            batches = []

            def write(self, batch):
                release.wait(60)
                self.batches.append(batch)

        store = Stuck()
        recorder = self.recorder(store)
        recorder.QUEUE_SIZE = 10  # (an instance's own, set before the queue is made)
        recorder._queue = type(recorder._queue)(10)

        @tracked_tool("agent", recorder=recorder)
        def tool(i):
            return i

        started = time.perf_counter()
        for i in range(100):
            self.assertEqual(i, tool(i))
        took = time.perf_counter() - started
        self.assertLess(took, 5.0, "a stuck store must not hold the calls (a generous bound)")
        self.assertGreaterEqual(recorder.dropped, 80)
        release.set()
        self.assertTrue(recorder.flush(30))
        written = sum(len(b) for b in store.batches)
        self.assertEqual(100, written + recorder.dropped)

    def test_an_async_tool_is_recorded_with_its_own_status_and_a_raising_one_as_an_error(self):
        class Keeping:
            rows = []

            def write(self, batch):
                self.rows.extend(batch)

        store = Keeping()
        recorder = self.recorder(store)

        @tracked_tool("async-agent", recorder=recorder)
        async def fine():
            await asyncio.sleep(0.01)
            return "ok"

        @tracked_tool("async-agent", tool="local.broken", recorder=recorder)
        async def broken():
            raise ValueError("no")

        async def run():
            self.assertEqual("ok", await fine())
            with self.assertRaises(ValueError):
                await broken()

        asyncio.run(run())
        self.assertTrue(recorder.flush(30))
        by_tool = {r[1]: r for r in store.rows}
        self.assertEqual(("fine", "async-agent", "python", "auto", "ok", None), by_tool["fine"][1:3] + by_tool["fine"][4:8])
        self.assertGreaterEqual(by_tool["fine"][3], 10.0, "the duration is the call's")
        self.assertEqual(("error", "internal"), by_tool["local.broken"][6:8])

    def test_a_failed_store_costs_records_never_the_call(self):
        class Failing:
            def write(self, batch):
                raise OSError("disk full")

        recorder = self.recorder(Failing())

        @tracked_tool("agent", recorder=recorder)
        def tool():
            return 1

        self.assertEqual(1, tool())
        self.assertTrue(recorder.flush(30))
        self.assertEqual(1, recorder.failed)

    def test_a_bad_setting_names_its_variable(self):
        with self.assertRaisesRegex(ValueError, "AGENT_TOOLS_TRACKING must be sqlite, dynamodb or none, got redis"):
            TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING": "redis"})
        with self.assertRaisesRegex(ValueError, "AGENT_TOOLS_TRACKING_FLUSH_MS must be"):
            TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_FLUSH_MS": "-1"})
        self.assertTrue(TrackingSettings.from_environment({"XDG_DATA_HOME": "/x"}).sqlite_file.endswith(
            os.path.join("x", "agent-tools", "calls.db")))


DYNALITE = os.path.join(ROOT, "src", "test", "node", "node_modules", ".bin", "dynalite")


@unittest.skipIf(MISSING, MISSING)
class DynamoDbTest(unittest.TestCase):
    def test_stats_reads_the_python_rows_from_dynamodb(self):
        try:
            import boto3  # noqa: F401
        except ImportError as e:
            self.skipTest("the dynamodb extra is not installed (pip install './clients/python[dynamodb]'): %s" % e)
        if not os.path.exists(DYNALITE) or not shutil.which("node"):
            self.skipTest("dynalite is not installed (the build's npm install puts it in src/test/node/node_modules)")
        with socket.socket() as probe:  # dynalite takes no port 0: a port free a moment ago
            probe.bind(("127.0.0.1", 0))
            port = str(probe.getsockname()[1])
        dynalite = subprocess.Popen([DYNALITE, "--port", port], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(dynalite.wait, 30)
        self.addCleanup(dynalite.terminate)
        line = dynalite.stdout.readline()
        self.addCleanup(dynalite.stdout.close)
        self.assertTrue(line.strip().endswith(":" + port), "dynalite printed %r" % line)
        env = {"AGENT_TOOLS_TRACKING": "dynamodb", "AGENT_TOOLS_DYNAMODB_ENDPOINT": "http://127.0.0.1:%s" % port,
               "AGENT_TOOLS_DYNAMODB_TABLE": "py-calls", "AWS_REGION": "us-east-1",
               "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}
        saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
        os.environ.update({k: env[k] for k in saved})  # boto3 reads its credentials from the environment
        self.addCleanup(lambda: [os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v) for k, v in saved.items()])
        recorder = Recorder(TrackingSettings.from_environment(env))
        emulator, root = start_emulator("--latency", "0ms", "--jitter", "0ms")
        self.addCleanup(stop, emulator)
        client = AgentToolsClient(command=NO_SERVER, fallback=GmailFallback(access_token="t", root_url=root))
        self.addCleanup(client.close)

        @tracked_tool("py-agent", recorder=recorder)
        def search(query):
            return client.search_emails(query, max_results=2)

        self.assertEqual("python", search("has:attachment")["backend"])
        self.assertEqual("python", search("見積書")["backend"])
        self.assertTrue(recorder.flush(60))
        self.assertEqual((2, 0), (recorder.written, recorder.failed))
        row = stats(env)[("gmail.search-emails", "python")]
        self.assertEqual((2, 1.0), (row["calls"], row["fallback_rate"]))
        self.assertRegex(DynamoDbStore.item((1700000000123, "t", "a", 12.5, None, "auto", "ok", None, 0, "r"))["sk"]["S"],
                         r"^1700000000123#r#4029000000000000$")


if __name__ == "__main__":
    unittest.main()
