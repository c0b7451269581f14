"""The sync client of agent-tools' persistent mode (`agent-tools serve --stdio`), standard library only.

It keeps one `serve --stdio` process for the life of the client (a JVM per call would cost more than the
call), sends JSON-line requests from any number of threads, matches answers to callers by id, enforces a
per-call timeout (never waiting past it, even for a server still starting), restarts the process if it dies or
breaks the protocol (a line that is not a JSON object in UTF-8, or over _wire.MAX_ANSWER_BYTES, 256 MiB), and returns None on any
failure so the caller can fall back to another implementation, as the article's bridge does; given a `fallback`
(agent_tools.fallback), it runs that itself, within what is left of the call's timeout.

    client = AgentToolsClient()                     # runs agent-tools serve --stdio
    result = client.list_emails(max_results=10)     # {"data": {...}, "backend": "concurrent", "duration_ms": 312.5}
    if result is None:
        print("failed:", client.last_error)
    client.log_habit("running", amount=5)           # today in the habit's time zone; a retry never counts twice

Every command of the registry has a helper (see _tools.TOOLS); `call(command, params)` runs any of them.
"""

import itertools
import os
import subprocess
import threading
import time

from . import _launcher
from . import _tools
from . import _wire
from . import tracking

__all__ = ["AgentToolsClient", "default_command", "FALLBACK_CODES", "LauncherNotFound"]

LauncherNotFound = _launcher.LauncherNotFound

# Error codes on which a fallback runs: the tools could not answer, and another path may. The others (a bad param,
# an unknown id, a refused sign-in) would fail the Python path alike, so they are answered as they are.
# "unavailable" and "bad_answer" are the client's own: no answer at all (no server, a dead one, a timeout), or a
# server writing what is not the protocol's answer.
FALLBACK_CODES = frozenset({"unavailable", _wire.BAD_ANSWER, "upstream", "rate_limited", "internal", "overloaded",
                            "deadline"})

# How long close() lets the server finish the calls in flight after end of input before it is killed
_CLOSE_GRACE_SECONDS = 30.0


def default_command():
    """AGENT_TOOLS_COMMAND (a command line, split as a shell would), else the launcher of the checkout this
    package sits in (clients/python/agent_tools) when that checkout proves to be one (agent_tools._launcher says
    how: a pom.xml beside it, and nothing on its path another user could write), else `agent-tools` on PATH; with
    `serve --stdio`. Raises LauncherNotFound (an OSError) naming what to set when there is none."""
    return _launcher.default_command()


def resolve_command(command):
    """(the server command line, None), or (None, why there is none) when command is None and no default launcher
    can be trusted: the client still makes its calls, each failing "unavailable" with that reason (so that a
    fallback answers), instead of failing to be made."""
    if command:
        return list(command), None
    try:
        return default_command(), None
    except _launcher.LauncherNotFound as e:
        return None, str(e)


# answer_of stays importable from here (the module that had it first)
answer_of = _wire.answer_of


class _Waiter:
    """One call waiting for its answer line: set with the answer, or with why none will come."""
    __slots__ = ("event", "answer", "failure")

    def __init__(self):
        self.event = threading.Event()
        self.answer = None
        self.failure = None  # (code, reason) when the server ended before answering


class _Server:
    """One server process and the calls waiting on it (each process its own, so that one ending wakes its own
    callers even after another has taken its place)."""

    def __init__(self, process, started):
        self.process = process
        self.started = started
        self.pending = {}  # request id -> _Waiter
        self.warm = False  # it has answered once (its JVM is up)
        self.ended = None  # (code, reason) once it is stopped or gone; no call joins it after that
        self.overdue = None  # the timer that stops it if it has not answered within start_timeout


def settle_tools_answer(client, command, params, answer):
    """What the server's answer line (or None: none came) comes to, for either client: the result, or None with the
    client's last_error set; the call noted for tracking either way."""
    if answer is None:
        tracking.note_tools_error(command, params, client.last_error_code, answered=False)
        return None
    result, code, reason = _wire.outcome(answer)
    if result is not None:
        tracking.note_tools_answer(command, params, result)
        return result
    client._fail(code, reason)
    tracking.note_tools_error(command, params, code, answered=True)
    return None


def falls_back(client, command):
    """Whether the client's fallback should answer the command after the tools failed as last_error_code says."""
    return client._fallback is not None and client.last_error_code in FALLBACK_CODES and client._fallback.handles(command)


def settle_fallback_answer(client, command, params, answer, tools_error, started):
    """What the fallback's answer comes to, for either client: the result (its duration the whole call's), or None
    with last_error naming both failures; noted for tracking either way."""
    if "error" in answer:
        error = answer["error"]
        client._fail(error["code"], "%s; python fallback: %s: %s" % (tools_error, error["code"], error["message"]))
        tracking.note_python(command, params, None, error["code"])
        return None
    answer["duration_ms"] = round((time.monotonic() - started) * 1000, 3)
    tracking.note_python(command, params, answer, None)
    return answer


class AgentToolsClient:
    """Thread-safe client of one persistent `agent-tools serve --stdio` process."""

    def __init__(self, command=None, env=None, timeout=30.0, start_timeout=120.0, fallback=None):
        """
        command: the server command line (default: default_command(): AGENT_TOOLS_COMMAND, this checkout's
            ./agent-tools serve --stdio when it can be trusted, or agent-tools serve --stdio from PATH; with none of
            them, each call fails "unavailable" saying what to set)
        env: extra environment variables for the server (e.g. AGENT_TOOLS_GMAIL_ROOT_URL)
        timeout: default seconds a call may take, the fallback's share included; a call never waits longer, even
            for a server that is still starting (that one keeps starting, for the next call), and while it starts,
            a call the fallback could answer waits half its time for the tools and leaves the rest to the fallback
        start_timeout: seconds a fresh server may take to answer its first request (its JVM's start, a build first)
            before it is declared broken and stopped; the next call starts another
        fallback: an object with handles(command) and answer(command, params, seconds) (agent_tools.fallback's
            GmailFallback) that answers when the tools cannot (codes in FALLBACK_CODES), within what is left
        Both timeouts are positive numbers of seconds (ValueError otherwise).
        """
        self._command, self._no_command = resolve_command(command)
        self._env = dict(os.environ, **(env or {}))
        self._timeout = _wire.seconds("timeout", timeout)
        self._start_timeout = _wire.seconds("start_timeout", start_timeout)
        self._fallback = fallback
        self._lock = threading.Lock()  # guards the server, its pending map and writes
        self._ids = itertools.count(1)
        self._server = None
        # each thread's own last failure: a call failing in another thread meanwhile must not change what this
        # thread's caller reads (or which fallback decision its call makes)
        self._errors = threading.local()
        self.restarts = 0

    @property
    def last_error(self):
        """Why this thread's last failed call failed (None before any failure)."""
        return getattr(self._errors, "reason", None)

    @property
    def last_error_code(self):
        """The code of this thread's last failure: an error answer's code, "unavailable" when no answer came, or
        "bad_answer" when what came is not the protocol's answer."""
        return getattr(self._errors, "code", None)

    @property
    def _process(self):
        """The current server's process (None before the first call)."""
        server = self._server
        return server.process if server is not None else None

    # ---- the protocol ----------------------------------------------------------------------------------

    def call(self, command, params=None, timeout=None):
        """Runs one command. Returns {"data", "backend", "duration_ms"} on success, None on any failure
        (the reason in self.last_error, its code in self.last_error_code: an error answer's code, "unavailable"
        when no answer came: a timeout, a dead or missing server; "bad_answer" when the server wrote something
        that is not the protocol's answer). timeout: seconds, a positive number (default: the client's)."""
        started = time.monotonic()
        wait = self._timeout if timeout is None else _wire.seconds("timeout", timeout)
        params = tracking.with_agent_name(_tools.wire_params(params))
        # a server still starting gets half the call's time when the fallback could answer: the rest is the fallback's
        cold_wait = wait / 2 if self._fallback is not None and self._fallback.handles(command) else wait
        result = settle_tools_answer(self, command, params, self._ask(command, params, started, wait, cold_wait))
        if result is not None or not falls_back(self, command):
            return result
        tools_error = self.last_error
        answer = self._fallback.answer(command, params, wait - (time.monotonic() - started))
        return settle_fallback_answer(self, command, params, answer, tools_error, started)

    def _ask(self, command, params, started, wait, cold_wait):
        """Sends one request and waits for its answer line until wait seconds after the call started
        (time.monotonic()), cold_wait if its server has not answered yet; None (with last_error) when none came."""
        request_id = "py-%d" % next(self._ids)
        try:
            line = _wire.request_line(request_id, command, params)
        except ValueError as e:  # what serve would refuse, refused here: its answer could not name this call
            return self._fail("invalid_argument", "invalid_argument: %s" % e)
        waiter = _Waiter()
        server = None
        if self._command is None:
            return self._fail("unavailable", self._no_command)
        try:
            with self._lock:
                server = self._ensure_started()
                server.pending[request_id] = waiter
                server.process.stdin.write(line)
                server.process.stdin.flush()
        except (OSError, ValueError) as e:
            if server is not None:
                self._forget(server, request_id)
            return self._fail("unavailable", "cannot send to the server: %s" % e)
        limit = wait if server.warm else cold_wait
        if not waiter.event.wait(max(0.0, started + limit - time.monotonic())):
            self._forget(server, request_id)
            if not server.warm:
                return self._fail("unavailable", "no answer to %s within %.1f s: the server, started %.1f s ago, has "
                                  "not answered yet (it keeps starting, for the next call)"
                                  % (command, limit, time.monotonic() - server.started))
            return self._fail("unavailable", "no answer to %s within %.1f s" % (command, limit))
        if waiter.answer is None:
            code, reason = waiter.failure
            return self._fail(code, "%s before answering %s" % (reason, command))
        return waiter.answer

    def close(self):
        """Ends the server: closing its stdin lets it finish the calls in flight and exit (it is killed after 30 s)."""
        with self._lock:
            server, self._server = self._server, None
        if server is None:
            return
        process = server.process
        try:
            process.stdin.close()
            process.wait(timeout=_CLOSE_GRACE_SECONDS)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        self._retire(server, "unavailable", "the client was closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- internals -------------------------------------------------------------------------------------

    def _ensure_started(self):
        """The running server, started if there is none (first use, or after it died or was stopped). Caller holds
        the lock."""
        server = self._server
        if server is not None and server.ended is None and server.process.poll() is None:
            return server
        if server is not None:
            self.restarts += 1
            # its reader wakes its callers when its output ends; this does so now, whatever holds that pipe open
            self._retire_locked(server, "unavailable", "the server stopped")
        process = subprocess.Popen(self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env=self._env)
        self._server = server = _Server(process, time.monotonic())
        server.overdue = threading.Timer(self._start_timeout, self._start_overdue, args=(server,))
        server.overdue.daemon = True
        server.overdue.start()
        threading.Thread(target=self._read_answers, args=(server,), daemon=True,
                         name="agent-tools answers %d" % process.pid).start()
        return server

    def _start_overdue(self, server):
        if not server.warm:
            self._retire(server, "unavailable", "the server did not answer within start_timeout (%.1f s) of its start "
                                                "and was stopped" % self._start_timeout)

    def _read_answers(self, server):
        """Reads one server's answer lines until its output ends or breaks the protocol; then that server is
        stopped (the next call starts another) and the calls still waiting on it are told why."""
        ending = ("unavailable", "the server stopped")
        stdout = server.process.stdout
        try:
            while True:
                # a binary readline with a limit: a line past MAX_ANSWER_BYTES is refused, not held whole
                raw = stdout.readline(_wire.MAX_ANSWER_BYTES + 1)
                if not raw:
                    break
                answer = _wire.answer_line(raw)
                if answer is None:
                    continue
                if not server.warm:
                    server.warm = True
                    server.overdue.cancel()
                with self._lock:
                    waiter = server.pending.pop(answer["id"], None)
                if waiter is not None:
                    waiter.answer = answer
                    waiter.event.set()
        except _wire.BrokenStream as e:
            ending = (_wire.BAD_ANSWER, "the server wrote %s, so it was stopped" % e)
        except Exception as e:  # whatever breaks reading, the callers must hear of it and the next call start anew
            ending = ("unavailable", "reading the server's answers failed (%s: %s), so it was stopped"
                      % (type(e).__name__, e))
        finally:
            self._retire(server, *ending)
            try:
                stdout.close()
            except OSError:
                pass

    def _retire(self, server, code, reason):
        try:
            server.process.kill()  # first, without the lock: a write blocked on its full stdin holds that
        except OSError:
            pass  # gone already
        with self._lock:
            self._retire_locked(server, code, reason)
        try:
            server.process.wait(timeout=30)  # reaped: no zombie is left
        except subprocess.TimeoutExpired:
            pass

    def _retire_locked(self, server, code, reason):
        """Stops a server and fails the calls waiting on it with (code, reason), once. Caller holds the lock."""
        if server.ended is not None:
            return
        server.ended = (code, reason)
        if server.overdue is not None:
            server.overdue.cancel()
        waiting = list(server.pending.values())
        server.pending.clear()
        for waiter in waiting:
            waiter.failure = server.ended
            waiter.event.set()
        if server.process.poll() is None:
            try:
                server.process.kill()
            except OSError:
                pass  # gone already
        try:
            server.process.stdin.close()
        except (OSError, ValueError):
            pass  # a broken pipe's last flush

    def _forget(self, server, request_id):
        with self._lock:
            server.pending.pop(request_id, None)

    def _fail(self, code, reason):
        self._errors.code = code
        self._errors.reason = reason
        return None


_tools.add_helpers(AgentToolsClient, asynchronous=False)
