"""Tests of agent_tools_client against a real `agent-tools serve --stdio` and the Gmail emulator.

Run from the repository root after a build: python3 -m unittest discover -s clients/python -v
"""

import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agent_tools_client import AgentToolsClient  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAUNCHER = os.path.join(ROOT, "agent-tools")

# The processes these tests start never see the developer's own set-up: no AGENT_TOOLS_* from the shell, and a
# private home with an empty config file (so a ~/.config/agent-tools/config.properties cannot reach them).
_HOME = tempfile.mkdtemp(prefix="agent-tools-py-home-")
open(os.path.join(_HOME, "config.properties"), "w").close()
for _key in [k for k in os.environ if k.startswith("AGENT_TOOLS_") or k.startswith("XDG_")]:
    del os.environ[_key]
os.environ.update({"AGENT_TOOLS_CONFIG": os.path.join(_HOME, "config.properties"),
                   "XDG_CONFIG_HOME": os.path.join(_HOME, ".config"),
                   "XDG_DATA_HOME": os.path.join(_HOME, ".local", "share")})


def start_emulator(*flags):
    process = subprocess.Popen([LAUNCHER, "emulator", "--port", "0", *flags], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("emulator listening on "):
        process.kill()
        raise RuntimeError("the emulator did not start: %r" % line)
    return process, line[len("emulator listening on "):]


class AgentToolsClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator, cls.root_url = start_emulator("--latency", "20ms", "--jitter", "0ms")
        cls.tracking_db = os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-"), "calls.db")
        cls.env = {"AGENT_TOOLS_GMAIL_ROOT_URL": cls.root_url, "AGENT_TOOLS_CALENDAR_ROOT_URL": cls.root_url,
                   "AGENT_TOOLS_ACCESS_TOKEN": "python-token",
                   "AGENT_TOOLS_TRACKING_DB": cls.tracking_db,
                   # habits in a file of these tests' own, never the developer's
                   "AGENT_TOOLS_HABIT_DB": os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-habits-"), "habits.db"),
                   # the backends these tests check are the fetch strategies'; the index has its own test below
                   "AGENT_TOOLS_CACHE": "off"}

    @classmethod
    def tearDownClass(cls):
        cls.emulator.terminate()
        cls.emulator.wait(timeout=30)
        cls.emulator.stdout.close()

    def client(self, **kwargs):
        client = AgentToolsClient(env=self.env, **kwargs)
        self.addCleanup(client.close)
        return client

    def test_lists_emails_and_tells_the_backend(self):
        result = self.client().list_emails(max_results=5)
        self.assertIsNotNone(result)
        self.assertEqual(5, len(result["data"]["emails"]))
        self.assertEqual("concurrent", result["backend"])
        self.assertGreater(result["duration_ms"], 0)

    def test_a_list_asked_again_answers_from_the_local_index(self):
        env = dict(self.env, AGENT_TOOLS_CACHE="auto",
                   AGENT_TOOLS_CACHE_DB=os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-index-"), "mail-index.db"))
        client = AgentToolsClient(env=env)
        self.addCleanup(client.close)
        first = client.list_emails(max_results=4)
        again = client.list_emails(max_results=4)
        self.assertIsNotNone(again, client.last_error)
        self.assertEqual("index", again["backend"])
        self.assertEqual(first["data"], again["data"])

    def test_search_and_get_with_japanese_text(self):
        client = self.client()
        found = client.search_emails("見積書", max_results=1)
        self.assertIsNotNone(found, client.last_error)
        email = client.get_email(found["data"]["emails"][0]["id"])
        self.assertIn("見積書", email["data"]["subject"])

    def test_concurrent_calls_from_many_threads_get_their_own_answers(self):
        client = self.client()
        results = {}

        def work(n):
            results[n] = client.list_emails(max_results=n, strategy="batch" if n % 2 else "concurrent")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(1, 13)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for n in range(1, 13):
            self.assertIsNotNone(results[n], client.last_error)
            self.assertEqual(n, len(results[n]["data"]["emails"]))
            self.assertEqual("batch" if n % 2 else "concurrent", results[n]["backend"])

    def test_returns_none_with_the_reason_on_an_error_answer(self):
        client = self.client()
        self.assertIsNone(client.list_emails(max_results=0))
        self.assertIn("max_results must be 1..500", client.last_error)
        self.assertIsNone(client.get_email("00000000000000ab"))
        self.assertTrue(client.last_error.startswith("not_found"))

    def test_times_out_and_returns_none(self):
        slow, url = start_emulator("--latency", "3s", "--handshake", "0ms")
        self.addCleanup(slow.stdout.close)
        self.addCleanup(slow.wait, 30)
        self.addCleanup(slow.terminate)
        client = AgentToolsClient(env=dict(self.env, AGENT_TOOLS_GMAIL_ROOT_URL=url), timeout=1.0)
        self.addCleanup(client.close)
        self.assertIsNotNone(client.tools())  # warm: the JVM is up
        self.assertIsNone(client.list_emails(max_results=1, timeout=0.5))
        self.assertIn("no answer", client.last_error)

    def test_restarts_a_crashed_server(self):
        client = self.client()
        self.assertIsNotNone(client.tools())
        os.kill(client._process.pid, signal.SIGKILL)
        client._process.wait(timeout=10)
        result = client.list_emails(max_results=2)
        self.assertIsNotNone(result, client.last_error)
        self.assertEqual(1, client.restarts)

    def test_lists_a_days_events_across_calendars(self):
        client = self.client()
        calendars = client.list_calendars()
        self.assertIsNotNone(calendars, client.last_error)
        self.assertEqual("me@example.com", calendars["data"]["calendars"][0]["id"])
        # 2 June 2026 in the seeded calendars: a week of on-call (all-day, first), the stand-up, the gym
        events = client.list_events(time_min="2026-06-02", strategy="batch")
        self.assertIsNotNone(events, client.last_error)
        self.assertEqual(["On-call: platform", "Daily stand-up", "Gym"], [e["summary"] for e in events["data"]["events"]])
        self.assertEqual("batch", events["backend"])

    def test_tracks_a_habit_logged_today_and_refuses_a_day_in_the_future(self):
        # a store of this test's own: it counts the user's habits
        db = os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-habit-"), "habits.db")
        client = AgentToolsClient(env=dict(self.env, AGENT_TOOLS_HABIT_DB=db))
        self.addCleanup(client.close)
        created = client.create_habit("Reading", target_amount=20, target_unit="pages", time_zone="UTC")
        self.assertIsNotNone(created, client.last_error)
        self.assertTrue(created["data"]["id"].startswith("hab_"))
        self.assertEqual("store", created["backend"])

        logged = client.log_habit("reading", amount=25, note="two chapters")  # by name, any case; today in UTC
        self.assertIsNotNone(logged, client.last_error)
        today = logged["data"]["date"]
        self.assertEqual(today, datetime.datetime.now(datetime.timezone.utc).date().isoformat())
        self.assertIsNotNone(client.log_habit("Reading", amount=25, note="two chapters"), client.last_error)  # a retry

        habits = client.list_habits()
        self.assertIsNotNone(habits, client.last_error)
        self.assertEqual(1, habits["data"]["count"])
        status = habits["data"]["habits"][0]["status"]
        self.assertEqual("done", status["today_state"])
        self.assertEqual(1, status["current_streak"], "the retried log counts once")
        self.assertEqual(25, status["today_amount"])

        history = client.habit_history(created["data"]["id"], to=today)
        self.assertIsNotNone(history, client.last_error)
        self.assertEqual(30, len(history["data"]["days"]))
        self.assertEqual({"date": today, "state": "done", "due": True, "amount": 25, "note": "two chapters"},
                         history["data"]["days"][-1])
        self.assertEqual(1, history["data"]["done"])

        future = (datetime.date.fromisoformat(today) + datetime.timedelta(days=2)).isoformat()
        self.assertIsNone(client.log_habit("reading", date=future))
        self.assertTrue(client.last_error.startswith("invalid_argument: date " + future), client.last_error)
        self.assertIn("in the future", client.last_error)

    def test_lists_the_tools_with_their_schemas(self):
        tools = self.client().tools()["data"]
        commands = [t["command"] for t in tools]
        self.assertEqual(["tools.list", "gmail.list-emails", "gmail.search-emails", "gmail.get-email",
                          "calendar.list-calendars", "calendar.list-events", "calendar.get-event", "calendar.free-busy",
                          "habit.create", "habit.update", "habit.archive", "habit.restore", "habit.log", "habit.list",
                          "habit.history"], commands)
        self.assertEqual(["query"], tools[2]["params_schema"]["required"])
        json.dumps(tools)  # plain JSON all the way


if __name__ == "__main__":
    unittest.main()
