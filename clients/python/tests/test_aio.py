"""Tests of the asyncio client (agent_tools.aio) against a real `agent-tools serve --stdio` and the emulator."""

import asyncio
import os
import signal
import tempfile
import unittest

from support import start_emulator, stop, tools_env

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
        results = await asyncio.gather(*[client.list_emails(max_results=n, strategy="batch" if n % 2 else "concurrent")
                                         for n in range(1, 13)])
        for n, result in zip(range(1, 13), results):
            self.assertIsNotNone(result, client.last_error)
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
        self.assertIsNotNone(await client.tools())  # warm: the JVM is up
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


if __name__ == "__main__":
    unittest.main()
