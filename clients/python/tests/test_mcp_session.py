"""The README's MCP quick start: the official MCP Python SDK keeps one session (one `agent-tools mcp` process)
open for every call."""

import os
import unittest

from support import LAUNCHER, start_emulator, stop, tools_env

try:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    MISSING = None
except ImportError as e:
    MISSING = "the MCP Python SDK is not installed (pip install mcp; scripts/build/python-tests installs it): %s" % e


@unittest.skipIf(MISSING, MISSING)
class OneMcpSessionTest(unittest.IsolatedAsyncioTestCase):
    async def test_one_session_answers_every_call(self):
        import asyncio
        emulator, root = await asyncio.to_thread(start_emulator, "--latency", "0ms", "--jitter", "0ms")
        self.addCleanup(stop, emulator)
        server = StdioServerParameters(command=LAUNCHER, args=["mcp"], env=dict(os.environ, **tools_env(root)))
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            self.assertLessEqual({"list_emails", "get_email", "free_busy"}, names)
            listed = await session.call_tool("list_emails", {"max_results": 3})
            self.assertFalse(listed.is_error, listed.content)
            ids = [e["id"] for e in listed.structured_content["emails"]] if listed.structured_content else None
            if ids is None:
                import json
                ids = [e["id"] for e in json.loads(listed.content[0].text)["emails"]]
            for message_id in ids:  # each a call in the same session, no new process
                got = await session.call_tool("get_email", {"message_id": message_id})
                self.assertFalse(got.is_error, got.content)
            refused = await session.call_tool("get_email", {"message_id": "not-an-id"})
            self.assertTrue(refused.is_error)
            self.assertTrue(refused.content[0].text.startswith("invalid_argument"), refused.content[0].text)


if __name__ == "__main__":
    unittest.main()
