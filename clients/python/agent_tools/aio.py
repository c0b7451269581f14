"""The asyncio client of `agent-tools serve --stdio`, standard library only: the sync client's contract for async
agent loops (LangGraph, OpenAI's Agents SDK, pydantic-ai).

One server process driven through asyncio's subprocess streams; any number of concurrent calls, each matched to
its answer by id; a per-call timeout; a server that died is started again by the next call; None on any failure,
the reason in `last_error`; the same helpers as the sync client (`await client.list_emails(max_results=5)`).

    async with AsyncAgentToolsClient() as tools:
        found = await tools.search_emails("from:amy", max_results=5)

A client serves one event loop at a time: used on another (a second asyncio.run()), it stops the former loop's
server and starts one for the new loop. `last_error` is each task's own. A `fallback` (agent_tools.fallback) runs
in a worker thread (its Google client is blocking), within what is left of the call's timeout.
"""

import asyncio
import contextvars
import itertools
import os
import signal
import time

from . import _tools
from . import _wire
from . import tracking
from . import client as _client
from .client import resolve_command

__all__ = ["AsyncAgentToolsClient"]


class _Server:
    """One server process, the loop it runs on and the calls waiting on it."""

    def __init__(self, process, loop, started):
        self.process = process
        self.loop = loop
        self.started = started
        self.pending = {}  # request id -> future of the answer object (None: the server ended first)
        self.warm = False  # it has answered once (its JVM is up)
        self.ended = None  # (code, reason) once it is stopped or gone; no call joins it after that
        self.overdue = None  # the timer that stops it if it has not answered within start_timeout
        self.reader = None


class AsyncAgentToolsClient:
    """asyncio client of one persistent `agent-tools serve --stdio` process; safe for concurrent tasks."""

    def __init__(self, command=None, env=None, timeout=30.0, start_timeout=120.0, fallback=None):
        """The same arguments as AgentToolsClient."""
        self._command, self._no_command = resolve_command(command)
        self._env = dict(os.environ, **(env or {}))
        self._timeout = _wire.seconds("timeout", timeout)
        self._start_timeout = _wire.seconds("start_timeout", start_timeout)
        self._fallback = fallback
        self._ids = itertools.count(1)
        self._server = None
        self._loop = None  # the event loop of the current server; the lock below is that loop's
        self._start_lock = None
        # each task's own last failure (a task runs in a copy of its creator's context): one task's failure does
        # not change what another reads, as the sync client's are each thread's own. One variable per client; it
        # holds no reference to the client.
        self._errors = contextvars.ContextVar("agent_tools_last_error_%x" % id(self), default=(None, None))
        self.restarts = 0

    @property
    def last_error(self):
        """Why this task's last failed call failed (None before any failure). Calls run by asyncio.gather run in
        tasks of their own: read it there, or take the reason from the call that failed in this task."""
        return self._errors.get()[1]

    @property
    def last_error_code(self):
        """The code of this task's last failure (see AgentToolsClient.last_error_code)."""
        return self._errors.get()[0]

    @property
    def _process(self):
        """The current server's process (None before the first call)."""
        server = self._server
        return server.process if server is not None else None

    async def call(self, command, params=None, timeout=None):
        """Runs one command: the answer {"data", "backend", "duration_ms"}, or None (see AgentToolsClient.call)."""
        started = time.monotonic()
        wait = self._timeout if timeout is None else _wire.seconds("timeout", timeout)
        params = tracking.with_agent_name(_tools.wire_params(params))
        # a server still starting gets half the call's time when the fallback could answer: the rest is the fallback's
        cold_wait = wait / 2 if self._fallback is not None and self._fallback.handles(command) else wait
        answer = await self._ask(command, params, started, wait, cold_wait)
        result = _client.settle_tools_answer(self, command, params, answer)
        if result is not None or not _client.falls_back(self, command):
            return result
        tools_error = self.last_error
        left = wait - (time.monotonic() - started)
        answer = await asyncio.to_thread(self._fallback.answer, command, params, left)
        return _client.settle_fallback_answer(self, command, params, answer, tools_error, started)

    async def _ask(self, command, params, started, wait, cold_wait):
        """See AgentToolsClient._ask."""
        request_id = "py-%d" % next(self._ids)
        try:
            line = _wire.request_line(request_id, command, params)
        except ValueError as e:  # what serve would refuse, refused here: its answer could not name this call
            return self._fail("invalid_argument", "invalid_argument: %s" % e)
        if self._command is None:
            return self._fail("unavailable", self._no_command)
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        server = None
        try:
            server = await self._ensure_started(loop)
            server.pending[request_id] = future
            server.process.stdin.write(line)
            limit = wait if server.warm else cold_wait
            # a server that stopped reading fills the pipe: the wait for room counts against the call's deadline
            await asyncio.wait_for(server.process.stdin.drain(), max(0.0, started + limit - time.monotonic()))
            answer = await asyncio.wait_for(future, max(0.0, started + limit - time.monotonic()))
        except asyncio.TimeoutError:
            if not server.warm:
                return self._fail("unavailable", "no answer to %s within %.1f s: the server, started %.1f s ago, has "
                                  "not answered yet (it keeps starting, for the next call)"
                                  % (command, limit, time.monotonic() - server.started))
            return self._fail("unavailable", "no answer to %s within %.1f s" % (command, limit))
        except (OSError, ValueError) as e:
            return self._fail("unavailable", "cannot send to the server: %s" % e)
        finally:
            if server is not None:
                server.pending.pop(request_id, None)
        if answer is None:
            code, reason = server.ended
            return self._fail(code, "%s before answering %s" % (reason, command))
        return answer

    async def _ensure_started(self, loop):
        if self._loop is not loop:
            # a client used on a new event loop (a second asyncio.run()): the former loop's server, streams and
            # lock cannot serve here, so that server is stopped and this loop gets its own
            if self._server is not None:
                self._retire_elsewhere(self._server)
            self._loop, self._start_lock = loop, asyncio.Lock()
        async with self._start_lock:
            server = self._server
            if server is not None and server.ended is None and server.process.returncode is None:
                return server
            if server is not None:
                self.restarts += 1
                if server.loop is loop:  # another loop's server was stopped above
                    self._retire(server, "unavailable", "the server stopped")
            process = await asyncio.create_subprocess_exec(
                *self._command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, env=self._env,
                # StreamReader refuses lines past its limit (64 KiB by default); one answer may hold a whole body
                limit=_wire.MAX_ANSWER_BYTES)
            self._server = server = _Server(process, loop, time.monotonic())
            server.overdue = loop.call_later(self._start_timeout, self._start_overdue, server)
            server.reader = loop.create_task(self._read_answers(server))
            return server

    def _start_overdue(self, server):
        if not server.warm:
            self._retire(server, "unavailable", "the server did not answer within start_timeout (%.1f s) of its start "
                                                "and was stopped" % self._start_timeout)

    async def _read_answers(self, server):
        """Reads one server's answer lines until its output ends or breaks the protocol; then that server is
        stopped (the next call starts another) and the calls still waiting on it are told why."""
        ending = ("unavailable", "the server stopped")
        try:
            while True:
                try:
                    raw = await server.process.stdout.readline()
                except ValueError:  # StreamReader's word for a line past its limit: the stream cannot be read on
                    raise _wire.BrokenStream("an answer line over %d MiB (the clients' limit, MAX_ANSWER_BYTES)"
                                             % (_wire.MAX_ANSWER_BYTES // (1024 * 1024))) from None
                if not raw:
                    break
                answer = _wire.answer_line(raw)
                if answer is None:
                    continue
                if not server.warm:
                    server.warm = True
                    server.overdue.cancel()
                future = server.pending.get(answer["id"])
                if future is not None and not future.done():
                    future.set_result(answer)
        except _wire.BrokenStream as e:
            ending = (_wire.BAD_ANSWER, "the server wrote %s, so it was stopped" % e)
        except asyncio.CancelledError:
            ending = ("unavailable", "the event loop ended, and its server with it")
            raise
        except Exception as e:  # whatever breaks reading, the callers must hear of it and the next call start anew
            ending = ("unavailable", "reading the server's answers failed (%s: %s), so it was stopped"
                      % (type(e).__name__, e))
        finally:
            # also when the loop shuts down (asyncio.run() cancels this task): no server outlives its loop
            self._retire(server, *ending)
            try:
                await asyncio.wait_for(server.process.wait(), 30)  # reaped: no zombie is left
            except asyncio.TimeoutError:
                pass  # its output held open by a child of its own: the child watcher reaps it when it ends

    def _retire(self, server, code, reason):
        """Stops a server of this loop and fails the calls waiting on it with (code, reason), once."""
        if server.ended is None:
            server.ended = (code, reason)
        if server.overdue is not None:
            server.overdue.cancel()
        for future in server.pending.values():
            if not future.done():
                future.set_result(None)
        server.pending.clear()
        if server.process.returncode is None:
            try:
                # os.kill, not Process.kill: that polls the child first, which reaps one that has just exited before
                # asyncio's child watcher can (the watcher then warns of an unknown child and reports 255)
                os.kill(server.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # gone already
        server.process.stdin.close()

    def _retire_elsewhere(self, server):
        """Stops a server of another event loop (closed, or running in another thread)."""
        if server.ended is None:
            server.ended = ("unavailable", "the client was used on another event loop, which stopped this server")
        try:
            server.process.kill()
        except (ProcessLookupError, RuntimeError, OSError):
            pass  # gone already, or its transport closed with its loop
        if not server.loop.is_closed():
            try:
                server.loop.call_soon_threadsafe(self._retire, server, *server.ended)  # its futures are that loop's
            except RuntimeError:
                pass  # closed meanwhile: nobody waits there any more

    async def close(self):
        """Ends the server: closing its stdin lets it finish the calls in flight and exit (it is killed after 30 s)."""
        server, self._server = self._server, None
        if server is None:
            return
        if server.loop is not asyncio.get_running_loop():
            self._retire_elsewhere(server)
            return
        try:
            server.process.stdin.close()
            await asyncio.wait_for(server.process.wait(), _client._CLOSE_GRACE_SECONDS)
        except (OSError, asyncio.TimeoutError):
            pass
        self._retire(server, "unavailable", "the client was closed")
        await server.process.wait()
        await asyncio.wait([server.reader])  # its end, without raising what ended it

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    def _fail(self, code, reason):
        self._errors.set((code, reason))
        return None


_tools.add_helpers(AsyncAgentToolsClient, asynchronous=True)
