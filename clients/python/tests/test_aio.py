"""Tests of the asyncio client (agent_tools.aio) against a real `agent-tools serve --stdio` and the emulator."""

import asyncio
import os
import signal
import tempfile
import time
import unittest
from unittest import mock

from support import stand_in, start_emulator, stop, tools_env

from agent_tools import AsyncAgentToolsClient


class AsyncAgentToolsClientTest(unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator, cls.root_url = start_emulator("--latency", "20ms", "--jitter", "0ms")
        cls.env = tools_env(cls.root_url)

    @classmethod
    def tearDownClass(cls):
        stop(cls.emulator)

    async def client(self, **kwargs):
        client = AsyncAgentToolsClient(env=kwargs.pop("env", self.env), **kwargs)
        self.addAsyncCleanup(client.close)
        return client

    async def test_concurrent_calls_get_their_own_answers(self):
        client = await self.client()

        async def listed(n):
            result = await client.list_emails(max_results=n, strategy="batch" if n % 2 else "concurrent")
            return result, client.last_error  # each task's own reason (the test's task would read None)

        answers = await asyncio.gather(*[listed(n) for n in range(1, 13)])
        for n, (result, why) in zip(range(1, 13), answers):
            self.assertIsNotNone(result, "list_emails(%d): %s" % (n, why))
            self.assertEqual(n, len(result["data"]["emails"]))
            self.assertEqual("batch" if n % 2 else "concurrent", result["backend"])

    async def test_search_then_get_and_a_long_body_in_one_line(self):
        client = await self.client()
        found = await client.search_emails("見積書", max_results=1)
        self.assertIsNotNone(found, client.last_error)
        email = await client.get_email(found["data"]["emails"][0]["id"])
        self.assertIn("見積書", email["data"]["subject"])
        # the seeded mailbox's large messages: an answer line far past asyncio's default 64 KiB line limit
        big = await client.search_emails("larger:1M", max_results=1)
        self.assertIsNotNone(big, client.last_error)
        whole = await client.get_email(big["data"]["emails"][0]["id"], max_body_chars=2000000)
        self.assertIsNotNone(whole, client.last_error)
        self.assertGreater(len(whole["data"]["body"]), 65536)

    async def test_an_error_answer_is_none_with_its_reason(self):
        client = await self.client()
        self.assertIsNone(await client.list_emails(max_results=0))
        self.assertIn("max_results must be 1..500", client.last_error)
        self.assertEqual("invalid_argument", client.last_error_code)

    async def test_times_out_and_returns_none(self):
        slow, url = await asyncio.to_thread(start_emulator, "--latency", "3s", "--handshake", "0ms")
        self.addCleanup(stop, slow)
        client = await self.client(env=dict(self.env, AGENT_TOOLS_GMAIL_ROOT_URL=url), timeout=1.0)
        self.assertIsNotNone(await client.tools(timeout=60))  # warm: the JVM is up
        self.assertIsNone(await client.list_emails(max_results=1, timeout=0.5))
        self.assertIn("no answer", client.last_error)
        self.assertEqual("unavailable", client.last_error_code)

    async def test_restarts_a_killed_server(self):
        client = await self.client()
        self.assertIsNotNone(await client.tools())
        os.kill(client._process.pid, signal.SIGKILL)
        await client._process.wait()
        result = await client.list_emails(max_results=2)
        self.assertIsNotNone(result, client.last_error)
        self.assertEqual(1, client.restarts)

    async def test_a_missing_server_is_none_with_its_reason(self):
        client = await self.client(command=[os.path.join(tempfile.mkdtemp(), "no-such-agent-tools"), "serve", "--stdio"])
        self.assertIsNone(await client.get_email("18c0ffee00000001"))
        self.assertEqual("unavailable", client.last_error_code)
        self.assertIn("cannot send to the server", client.last_error)


def gone(pid, within=10.0):
    """Whether the process of that pid is gone, reaped too (a zombie is still there), within some seconds."""
    until = time.monotonic() + within
    while os.path.exists("/proc/%d" % pid):
        if time.monotonic() > until:
            return False
        time.sleep(0.05)
    return True


class MisbehavingServerTest(unittest.IsolatedAsyncioTestCase):
    """The asyncio client against stand-ins for serve that break the protocol, die, hang or start slowly."""

    async def client(self, *flags, **kwargs):
        client = AsyncAgentToolsClient(command=stand_in(*flags), **kwargs)
        self.addAsyncCleanup(client.close)
        return client

    async def assert_answers_again(self, client, restarts):
        answer = await client.call("echo", {"n": 1})
        self.assertIsNotNone(answer, client.last_error)
        self.assertEqual({"n": 1}, answer["data"]["params"])
        self.assertEqual(restarts, client.restarts)
        return answer["data"]["pid"]

    async def test_a_line_that_is_not_a_json_object_stops_the_server_and_the_next_call_starts_another(self):
        client = await self.client(timeout=5)
        first = await self.assert_answers_again(client, 0)
        self.assertIsNone(await client.call("raw", {"hex": b"[1,2]".hex()}))
        self.assertEqual("bad_answer", client.last_error_code, client.last_error)
        self.assertIn("not a JSON object: '[1,2]'", client.last_error)
        self.assertNotEqual(first, await self.assert_answers_again(client, 1))
        self.assertTrue(await asyncio.to_thread(gone, first), "the broken server was stopped and reaped")

    async def test_a_byte_that_is_not_utf8_stops_the_server_and_the_next_call_starts_another(self):
        client = await self.client(timeout=5)
        self.assertIsNone(await client.call("raw", {"hex": "7b22ff227d"}))
        self.assertEqual("bad_answer", client.last_error_code, client.last_error)
        self.assertIn("not UTF-8 (byte 0xff at 2)", client.last_error)
        await self.assert_answers_again(client, 1)

    async def test_an_answer_with_fields_of_the_wrong_type_is_a_failure_and_the_server_stays(self):
        client = await self.client(timeout=5)
        pid = await self.assert_answers_again(client, 0)
        for answer, says in (({"status": "ok", "data": 1, "meta": [1]}, "meta that is not an object"),
                             ({"status": "error", "error": "boom"}, "without an error object"),
                             ({"status": "maybe"}, "neither ok nor error")):
            self.assertIsNone(await client.call("answer", {"answer": answer}), answer)
            self.assertEqual("bad_answer", client.last_error_code, answer)
            self.assertIn(says, client.last_error)
        self.assertEqual(pid, await self.assert_answers_again(client, 0))

    async def test_a_call_whose_server_died_is_woken_when_another_task_has_started_the_next(self):
        client = await self.client(timeout=20)
        await self.assert_answers_again(client, 0)
        dying, old = client._process, client._server
        call = asyncio.ensure_future(client.call("die", {"hold": 3}))  # its output stays open 3 s after it exits
        while dying.returncode is None:  # exited (its wait() would also wait for its output to close)
            await asyncio.sleep(0.02)
        await self.assert_answers_again(client, 1)  # this task starts the next server
        done, _ = await asyncio.wait([call], timeout=10)
        self.assertTrue(done, "the dying server's caller still waits (for its whole 20 s)")
        self.assertIsNone(call.result())
        await asyncio.wait([old.reader], timeout=10)  # the old server's output, closed when its child ends

    async def test_a_server_slow_to_start_never_holds_a_call_past_its_timeout_and_the_next_call_finds_it_up(self):
        client = await self.client("--start-delay", "2", timeout=0.5, start_timeout=60)
        started = time.monotonic()
        self.assertIsNone(await client.call("echo"))
        self.assertLess(time.monotonic() - started, 10, "waited for the server's start, not the call's timeout")
        self.assertIn("no answer to echo within 0.5 s: the server, started 0.", client.last_error)
        await asyncio.sleep(3)
        self.assertIsNotNone(await client.call("echo", timeout=10), client.last_error)
        self.assertEqual(0, client.restarts)

    async def test_a_server_that_does_not_answer_within_start_timeout_is_stopped(self):
        client = await self.client("--start-delay", "600", timeout=0.5, start_timeout=1.5)
        self.assertIsNone(await client.call("echo"))
        first = client._process
        await asyncio.wait_for(first.wait(), 30)
        self.assertIsNone(await client.call("echo", timeout=5))
        self.assertIn("the server did not answer within start_timeout (1.5 s) of its start and was stopped "
                      "before answering echo", client.last_error)
        self.assertEqual(1, client.restarts)

    async def test_an_answer_line_over_the_limit_stops_the_server_and_fails_its_calls(self):
        with mock.patch("agent_tools._wire.MAX_ANSWER_BYTES", 1024 * 1024):
            client = await self.client(timeout=10)
            self.assertIsNotNone(await client.call("big", {"bytes": 1024 * 1024}), client.last_error)  # at the limit
            self.assertIsNone(await client.call("big", {"bytes": 1024 * 1024 + 1}))
            self.assertEqual("bad_answer", client.last_error_code)
            self.assertIn("the server wrote an answer line over 1 MiB (the clients' limit, MAX_ANSWER_BYTES), "
                          "so it was stopped before answering big", client.last_error)
            await self.assert_answers_again(client, 1)

    async def test_each_task_reads_the_reason_its_own_call_failed(self):
        client = await self.client(timeout=5)
        first_failed, second_failed = asyncio.Event(), asyncio.Event()

        async def first():
            await client.call("answer", {"answer": {"status": "error", "error": {"code": "not_found", "message": "a"}}})
            first_failed.set()
            await second_failed.wait()
            return client.last_error

        async def second():
            await first_failed.wait()
            before = client.last_error
            await client.call("answer", {"answer": {"status": "error", "error": {"code": "upstream", "message": "b"}}})
            second_failed.set()
            return before, client.last_error

        own, (before, other) = await asyncio.gather(first(), second())
        self.assertEqual("not_found: a", own, "another task's failure")
        self.assertIsNone(before, "another task's failure")
        self.assertEqual("upstream: b", other)
        self.assertIsNone(client.last_error, "this task failed nothing")

    async def test_timeouts_must_be_positive_numbers_of_seconds(self):
        for name in ("timeout", "start_timeout"):
            for bad in (None, 0, -1, float("inf")):
                with self.assertRaises(ValueError, msg="%s=%r" % (name, bad)) as raised:
                    AsyncAgentToolsClient(command=stand_in(), **{name: bad})
                self.assertIn("%s must be a positive, finite number of seconds, got" % name, str(raised.exception))
        client = await self.client()
        for bad in (0, -0.5):
            with self.assertRaises(ValueError, msg=bad):
                await client.call("echo", timeout=bad)
            with self.assertRaises(ValueError, msg=bad):
                await client.list_emails(timeout=bad)


class AnotherEventLoopTest(unittest.TestCase):
    def test_a_client_used_by_a_second_asyncio_run_starts_a_server_for_it_and_stops_the_first(self):
        client = AsyncAgentToolsClient(command=stand_in(), timeout=5)
        first = asyncio.run(client.call("echo"))
        self.assertIsNotNone(first, client.last_error)
        second = asyncio.run(client.call("echo"))
        self.assertIsNotNone(second, client.last_error)
        self.assertNotEqual(first["data"]["pid"], second["data"]["pid"])
        self.assertTrue(gone(first["data"]["pid"]), "the first loop's server outlived its loop")
        pid = second["data"]["pid"]
        asyncio.run(client.close())
        self.assertTrue(gone(pid))


if __name__ == "__main__":
    unittest.main()
