"""Tests of the sync client (agent_tools.client) against a real `agent-tools serve --stdio` and the emulator."""

import datetime
import json
import os
import signal
import tempfile
import threading
import time
import unittest
from unittest import mock

from support import stand_in, start_emulator, stop, tools_env

from agent_tools import AgentToolsClient


class AgentToolsClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator, cls.root_url = start_emulator("--latency", "20ms", "--jitter", "0ms")
        cls.env = tools_env(cls.root_url)

    @classmethod
    def tearDownClass(cls):
        stop(cls.emulator)

    def client(self, **kwargs):
        # a first call waits for its server's start, which beside the whole test suite on two cores once took more
        # than the default timeout of 30 s
        kwargs.setdefault("timeout", 90.0)
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
        # what each answered with, when it was not the index (seen once beside the whole suite, cause unknown): the
        # first list's backend and errors say whether it kept all four in the index
        said = "first: %s, errors %s; again: %s, errors %s" % (
            first["backend"], first["data"].get("errors"), again["backend"], again["data"].get("errors"))
        self.assertEqual("index", again["backend"], said)
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

    def test_each_thread_reads_the_reason_its_own_call_failed(self):
        client = self.client()
        seen = {}

        def fail_then_wait(go_on):
            seen["failed"] = client.list_emails(max_results=0) is None
            go_on.wait(60)
            seen["own after"] = client.last_error  # the other thread failed meanwhile: still this one's reason

        def other():
            seen["before own"] = client.last_error  # the first thread failed already: nothing of this one's yet
            self.assertIsNone(client.get_email("00000000000000ab"))
            seen["other"] = (client.last_error_code, client.last_error)

        go_on = threading.Event()
        first = threading.Thread(target=fail_then_wait, args=(go_on,))
        first.start()
        while "failed" not in seen:
            first.join(0.01)
        second = threading.Thread(target=other)
        second.start()
        second.join(60)
        go_on.set()
        first.join(60)
        self.assertTrue(seen["failed"])
        self.assertIsNone(seen["before own"], "another thread's failure")
        self.assertEqual("not_found", seen["other"][0], seen["other"][1])
        self.assertIn("max_results must be 1..500", seen["own after"])

    def test_times_out_and_returns_none(self):
        slow, url = start_emulator("--latency", "3s", "--handshake", "0ms")
        self.addCleanup(stop, slow)
        client = AgentToolsClient(env=dict(self.env, AGENT_TOOLS_GMAIL_ROOT_URL=url), timeout=1.0)
        self.addCleanup(client.close)
        self.assertIsNotNone(client.tools(timeout=60))  # warm: the JVM is up
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

    def test_gets_an_event_and_the_busy_times_of_a_day(self):
        client = self.client()
        events = client.list_events(time_min="2026-06-02")
        standup = [e for e in events["data"]["events"] if e["summary"] == "Daily stand-up"][0]
        event = client.get_event(standup["id"], calendar_id=standup["calendar_id"])
        self.assertIsNotNone(event, client.last_error)
        self.assertEqual(standup["start"], event["data"]["start"])
        self.assertEqual("alice@example.com", event["data"]["creator"])
        busy = client.free_busy(time_min="2026-06-02T00:00:00Z", time_max="2026-06-03T00:00:00Z")
        self.assertIsNotNone(busy, client.last_error)
        work = [c for c in busy["data"]["calendars"] if c["id"] == standup["calendar_id"]][0]
        self.assertEqual([{"start": "2026-06-02T09:30:00+02:00", "end": "2026-06-02T09:45:00+02:00"}], work["busy"])

    def test_a_keyword_param_is_sent_without_its_trailing_underscore(self):
        client = self.client()
        self.assertIsNone(client.habit_history("nobody", from_="2026-01-01"))
        # "from" reached the server as a known param: the habit, not the param, is what it refused
        self.assertTrue(client.last_error.startswith("not_found: habit"), client.last_error)
        self.assertEqual("not_found", client.last_error_code)

    def test_the_old_module_name_still_imports_the_client(self):
        import agent_tools_client
        self.assertIs(AgentToolsClient, agent_tools_client.AgentToolsClient)

    def test_a_missing_server_is_a_failure_with_its_reason_not_an_exception(self):
        client = AgentToolsClient(command=[os.path.join(tempfile.mkdtemp(), "no-such-agent-tools"), "serve", "--stdio"])
        self.addCleanup(client.close)
        self.assertIsNone(client.list_emails(max_results=1))
        self.assertEqual("unavailable", client.last_error_code)
        self.assertIn("cannot send to the server", client.last_error)

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


class MisbehavingServerTest(unittest.TestCase):
    """The sync client against stand-ins for serve that break the protocol, die, hang or start slowly."""

    def client(self, *flags, **kwargs):
        client = AgentToolsClient(command=stand_in(*flags), **kwargs)
        self.addCleanup(client.close)
        return client

    def assert_answers_again(self, client, restarts):
        answer = client.call("echo", {"n": 1})
        self.assertIsNotNone(answer, client.last_error)
        self.assertEqual({"n": 1}, answer["data"]["params"])
        self.assertEqual(restarts, client.restarts)
        return answer["data"]["pid"]

    def test_a_line_that_is_not_a_json_object_stops_the_server_and_the_next_call_starts_another(self):
        client = self.client(timeout=5)
        first = self.assert_answers_again(client, 0)
        process = client._process
        self.assertIsNone(client.call("raw", {"hex": b"[1,2]".hex()}))
        self.assertEqual("bad_answer", client.last_error_code, client.last_error)
        self.assertIn("not a JSON object: '[1,2]'", client.last_error)
        self.assertIn("so it was stopped before answering raw", client.last_error)
        self.assertIsNotNone(process.wait(timeout=10), "the broken server was stopped")
        self.assertNotEqual(first, self.assert_answers_again(client, 1))

    def test_a_byte_that_is_not_utf8_stops_the_server_and_the_next_call_starts_another(self):
        client = self.client(timeout=5)
        self.assertIsNone(client.call("raw", {"hex": "7b22ff227d"}))  # {"\xff"}
        self.assertEqual("bad_answer", client.last_error_code, client.last_error)
        self.assertIn("not UTF-8 (byte 0xff at 2)", client.last_error)
        self.assert_answers_again(client, 1)

    def test_an_answer_with_fields_of_the_wrong_type_is_a_failure_and_the_server_stays(self):
        client = self.client(timeout=5)
        pid = self.assert_answers_again(client, 0)
        for answer, says in (({"status": "ok", "data": 1, "meta": [1]}, "meta that is not an object"),
                             ({"status": "error", "error": "boom"}, "without an error object"),
                             ({"status": "error", "error": {"message": "no code"}}, "without an error object"),
                             ({"status": "maybe"}, "neither ok nor error")):
            self.assertIsNone(client.call("answer", {"answer": answer}), answer)
            self.assertEqual("bad_answer", client.last_error_code, answer)
            self.assertIn(says, client.last_error)
        self.assertEqual(pid, self.assert_answers_again(client, 0), "the stream is whole: the same server goes on")

    def test_a_call_whose_server_died_is_woken_when_another_thread_has_started_the_next(self):
        client = self.client(timeout=20)
        self.assert_answers_again(client, 0)
        dying = client._process
        seen = {}

        def call_the_dying_server():
            # its output stays open 3 s after it exits (a child holds it): the next server is started meanwhile
            seen["answer"] = client.call("die", {"hold": 3})
            seen["error"] = client.last_error

        caller = threading.Thread(target=call_the_dying_server)
        caller.start()
        dying.wait(timeout=10)
        self.assert_answers_again(client, 1)  # this thread starts the next server
        caller.join(10)
        self.assertFalse(caller.is_alive(), "the dying server's caller still waits (for its whole 20 s)")
        self.assertIsNone(seen["answer"])
        self.assertEqual("the server stopped before answering die", seen["error"])

    def test_a_server_slow_to_start_never_holds_a_call_past_its_timeout_and_the_next_call_finds_it_up(self):
        client = self.client("--start-delay", "2", timeout=0.5, start_timeout=60)
        started = time.monotonic()
        self.assertIsNone(client.call("echo"))
        self.assertLess(time.monotonic() - started, 10, "waited for the server's start, not the call's timeout")
        self.assertEqual("unavailable", client.last_error_code)
        self.assertIn("no answer to echo within 0.5 s: the server, started 0.", client.last_error)
        self.assertIn("has not answered yet (it keeps starting, for the next call)", client.last_error)
        time.sleep(3)
        self.assertIsNotNone(client.call("echo", timeout=10), client.last_error)
        self.assertEqual(0, client.restarts, "the server kept starting in the background")

    def test_the_fallback_runs_in_what_is_left_while_a_server_is_starting(self):
        fallback = RecordingFallback()
        client = self.client("--start-delay", "600", timeout=1, start_timeout=3, fallback=fallback)
        answer = client.call("gmail.list-emails", {"max_results": 1})
        self.assertIsNotNone(answer, client.last_error)
        self.assertEqual("python", answer["backend"])
        self.assertGreater(fallback.left, 0.3, "the fallback's half of the call's time")
        self.assertIn("no answer to gmail.list-emails within 0.5 s: the server, started 0.", client.last_error)

    def test_a_server_that_does_not_answer_within_start_timeout_is_stopped(self):
        client = self.client("--start-delay", "600", timeout=0.5, start_timeout=1.5)
        self.assertIsNone(client.call("echo"))
        first = client._process
        self.assertIsNotNone(first.wait(timeout=30), "the server that never started was stopped")
        self.assertIsNone(client.call("echo", timeout=5))
        self.assertIn("the server did not answer within start_timeout (1.5 s) of its start and was stopped "
                      "before answering echo", client.last_error)
        self.assertEqual(1, client.restarts)
        self.assertIsNot(first, client._process)

    def test_an_answer_line_over_the_limit_stops_the_server_and_fails_its_calls(self):
        with mock.patch("agent_tools._wire.MAX_ANSWER_BYTES", 1024 * 1024):
            client = self.client(timeout=10)
            self.assertIsNotNone(client.call("big", {"bytes": 1024 * 1024}), client.last_error)  # at the limit
            process = client._process
            self.assertIsNone(client.call("big", {"bytes": 1024 * 1024 + 1}))
            self.assertEqual("bad_answer", client.last_error_code)
            self.assertIn("the server wrote an answer line over 1 MiB (the clients' limit, MAX_ANSWER_BYTES), "
                          "so it was stopped before answering big", client.last_error)
            self.assertIsNotNone(process.wait(timeout=10))
            self.assert_answers_again(client, 1)

    def test_close_reaps_a_server_that_it_had_to_kill(self):
        client = self.client("--ignore-eof", timeout=5)
        self.assert_answers_again(client, 0)
        process = client._process
        with mock.patch("agent_tools.client._CLOSE_GRACE_SECONDS", 0.5, create=True):
            client.close()
        self.assertIsNotNone(process.returncode, "killed but not waited for: a zombie")

    def test_timeouts_must_be_positive_numbers_of_seconds(self):
        for name in ("timeout", "start_timeout"):
            for bad in (None, 0, -1, float("inf"), float("nan"), "5", True):
                with self.assertRaises(ValueError, msg="%s=%r" % (name, bad)) as raised:
                    AgentToolsClient(command=stand_in(), **{name: bad})
                self.assertEqual("%s must be a positive, finite number of seconds, got %r" % (name, bad),
                                 str(raised.exception))
        client = self.client()
        for bad in (0, -0.5, float("inf")):
            with self.assertRaises(ValueError, msg=bad):
                client.call("echo", timeout=bad)
            with self.assertRaises(ValueError, msg=bad):
                client.list_emails(timeout=bad)
        self.assertIsNotNone(client.call("echo", timeout=10), client.last_error)

    def test_a_request_serve_could_not_name_is_refused_before_it_is_sent(self):
        client = self.client()
        self.assertTrue(client.call("echo", {"note": "x" * (1 << 20)}) is None, "an answer to a request over 1 MB")
        self.assertEqual("invalid_argument", client.last_error_code)
        self.assertIn("serve reads request lines up to 1048576 bytes (1 MB)", client.last_error)
        self.assertIsNone(client.call("echo", {"n": float("nan")}))
        self.assertEqual("invalid_argument: the params of echo cannot be sent as JSON: Out of range float values are "
                         "not JSON compliant", client.last_error)
        self.assertIsNone(client._process, "nothing was sent")


class RecordingFallback:
    """A fallback that answers every command and records how many seconds it was given."""
    left = None

    def handles(self, command):
        return True

    def answer(self, command, params, left):
        self.left = left
        return {"data": {"emails": []}, "backend": "python"}


if __name__ == "__main__":
    unittest.main()
