"""The asyncio client of `agent-tools serve --stdio`, standard library only: the sync client's contract for async
agent loops (LangGraph, OpenAI's Agents SDK, pydantic-ai).

One server process driven through asyncio's subprocess streams; any number of concurrent calls, each matched to
its answer by id; a per-call timeout; a server that died is started again by the next call; None on any failure,
the reason in `last_error`; the same helpers as the sync client (`await client.list_emails(max_results=5)`).

    async with AsyncAgentToolsClient() as tools:
        found = await tools.search_emails("from:amy", max_results=5)

A client belongs to the event loop it was first used on. A `fallback` (agent_tools.fallback) runs in a worker
thread (its Google client is blocking), within what is left of the call's timeout.
"""

import asyncio
import itertools
import json
import os
import time

from . import _tools
from . import tracking
from .client import FALLBACK_CODES, answer_of, default_command

__all__ = ["AsyncAgentToolsClient"]

# One answer line may hold a whole email body (get_email's max_body_chars reaches 10 M characters): asyncio's
# StreamReader refuses longer lines than its limit, 64 KiB by default.
_LINE_LIMIT = 256 * 1024 * 1024


class AsyncAgentToolsClient:
    """asyncio client of one persistent `agent-tools serve --stdio` process; safe for concurrent tasks."""

    def __init__(self, command=None, env=None, timeout=30.0, start_timeout=120.0, fallback=None):
        """The same arguments as AgentToolsClient."""
        self._command = list(command or default_command())
        self._env = dict(os.environ, **(env or {}))
        self._timeout = timeout
        self._start_timeout = start_timeout
        self._fallback = fallback
        self._ids = itertools.count(1)
        self._pending = {}  # id -> future of the answer line (None: the server stopped)
        self._process = None
        self._reader = None
        self._warm = False
        self._start_lock = None  # made on first use, in the loop the client belongs to
        self.last_error = None
        self.last_error_code = None
        self.restarts = 0

    async def call(self, command, params=None, timeout=None):
        """Runs one command: the answer {"data", "backend", "duration_ms"}, or None (see AgentToolsClient.call)."""
        started = time.monotonic()
        wait = timeout if timeout is not None else self._timeout
        params = tracking.with_agent_name(_tools.wire_params(params))
        answer = await self._ask(command, params, wait)
        if answer is not None and answer.get("status") == "ok":
            result = answer_of(answer)
            tracking.note_tools_answer(command, params, result)
            return result
        if answer is not None:
            error = answer.get("error") or {}
            code = error.get("code", "internal")
            self._fail(code, "%s: %s" % (code, error.get("message", "no message")))
            tracking.note_tools_error(command, params, code, answered=True)
        else:
            tracking.note_tools_error(command, params, self.last_error_code, answered=False)
        if self._fallback is None or self.last_error_code not in FALLBACK_CODES or not self._fallback.handles(command):
            return None
        tools_error = self.last_error
        left = wait - (time.monotonic() - started)
        result = await asyncio.to_thread(self._fallback.answer, command, params, left)
        if "error" in result:
            error = result["error"]
            self._fail(error["code"], "%s; python fallback: %s: %s" % (tools_error, error["code"], error["message"]))
            tracking.note_python(command, params, None, error["code"])
            return None
        result["duration_ms"] = round((time.monotonic() - started) * 1000, 3)
        tracking.note_python(command, params, result, None)
        return result

    async def _ask(self, command, params, wait):
        request_id = "py-%d" % next(self._ids)
        line = (json.dumps({"id": request_id, "command": command, "params": params}, ensure_ascii=False) + "\n").encode()
        future = asyncio.get_running_loop().create_future()
        try:
            process = await self._ensure_started()
            self._pending[request_id] = future
            fresh = not self._warm
            process.stdin.write(line)
            await process.stdin.drain()
        except (OSError, ValueError) as e:
            self._pending.pop(request_id, None)
            return self._fail("unavailable", "cannot send to the server: %s" % e)
        if fresh:
            wait = max(wait, self._start_timeout)  # a fresh server may first start its JVM (and build)
        try:
            answer = await asyncio.wait_for(future, wait)
        except asyncio.TimeoutError:
            return self._fail("unavailable", "no answer to %s within %.1f s" % (command, wait))
        finally:
            self._pending.pop(request_id, None)
        if answer is None:
            return self._fail("unavailable", "the server stopped before answering %s" % command)
        return answer

    async def _ensure_started(self):
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self._process is not None and self._process.returncode is None:
                return self._process
            if self._process is not None:
                self.restarts += 1
            self._process = await asyncio.create_subprocess_exec(
                *self._command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, env=self._env, limit=_LINE_LIMIT)
            self._warm = False
            self._reader = asyncio.ensure_future(self._read_answers(self._process))
            return self._process

    async def _read_answers(self, process):
        try:
            while True:
                line = await process.stdout.readline()
                if not line:
                    break
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue  # not ours to interpret; the server writes only JSON lines
                if self._process is process:
                    self._warm = True
                future = self._pending.get(answer.get("id"))
                if future is not None and not future.done():
                    future.set_result(answer)
        except (OSError, ValueError):
            process.kill()  # a line past the limit: this stream cannot be read on, start again
        await process.wait()
        # the server is gone: wake everyone still waiting on it
        if self._process is process:
            for future in list(self._pending.values()):
                if not future.done():
                    future.set_result(None)

    async def close(self):
        """Ends the server: closing its stdin lets it finish the calls in flight and exit."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            process.stdin.close()
            await asyncio.wait_for(process.wait(), 30)
        except (OSError, asyncio.TimeoutError):
            process.kill()
            await process.wait()
        if self._reader is not None:
            await self._reader

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    def _fail(self, code, reason):
        self.last_error_code = code
        self.last_error = reason
        return None


_tools.add_helpers(AsyncAgentToolsClient, asynchronous=True)
