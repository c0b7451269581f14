"""The sync client of agent-tools' persistent mode (`agent-tools serve --stdio`), standard library only.

It keeps one `serve --stdio` process for the life of the client (a JVM per call would cost more than the
call), sends JSON-line requests from any number of threads, matches answers to callers by id, enforces a
per-call timeout, restarts the process if it dies, and returns None on any failure so the caller can fall
back to another implementation, as the article's bridge does; given a `fallback` (agent_tools.fallback), it
runs that itself, within what is left of the call's timeout.

    client = AgentToolsClient()                     # runs agent-tools serve --stdio
    result = client.list_emails(max_results=10)     # {"data": {...}, "backend": "concurrent", "duration_ms": 312.5}
    if result is None:
        print("failed:", client.last_error)
    client.log_habit("running", amount=5)           # today in the habit's time zone; a retry never counts twice

Every command of the registry has a helper (see _tools.TOOLS); `call(command, params)` runs any of them.
"""

import itertools
import json
import os
import shlex
import shutil
import subprocess
import threading
import time

from . import _tools
from . import tracking

__all__ = ["AgentToolsClient", "default_command", "FALLBACK_CODES"]

# Error codes on which a fallback runs: the tools could not answer, and another path may. The others (a bad param,
# an unknown id, a refused sign-in) would fail the Python path alike, so they are answered as they are.
# "unavailable" is the client's own: no answer at all (no server, a dead one, a timeout).
FALLBACK_CODES = frozenset({"unavailable", "upstream", "rate_limited", "internal", "overloaded", "deadline"})


def default_command():
    """AGENT_TOOLS_COMMAND (a command line, split as a shell would), else the launcher of the checkout this
    package sits in (clients/python/agent_tools), else `agent-tools` on PATH; with `serve --stdio`."""
    if os.environ.get("AGENT_TOOLS_COMMAND", "").strip():
        return shlex.split(os.environ["AGENT_TOOLS_COMMAND"])
    here = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.normpath(os.path.join(here, "..", "..", "..", "agent-tools"))
    launcher = checkout if os.path.isfile(checkout) else (shutil.which("agent-tools") or "agent-tools")
    return [launcher, "serve", "--stdio"]


def answer_of(answer):
    """A serve answer line as the clients return it: {data, backend, duration_ms}."""
    meta = answer.get("meta") or {}
    return {"data": answer.get("data"), "backend": meta.get("backend"), "duration_ms": meta.get("duration_ms")}


class AgentToolsClient:
    """Thread-safe client of one persistent `agent-tools serve --stdio` process."""

    def __init__(self, command=None, env=None, timeout=30.0, start_timeout=120.0, fallback=None):
        """
        command: the server command line (default: default_command(): AGENT_TOOLS_COMMAND, this checkout's
            ./agent-tools serve --stdio, or agent-tools serve --stdio from PATH)
        env: extra environment variables for the server (e.g. AGENT_TOOLS_GMAIL_ROOT_URL)
        timeout: default seconds a call may take, the fallback's share included
        start_timeout: seconds to wait for a fresh server to answer its first request (a build may run first)
        fallback: an object with handles(command) and answer(command, params, seconds) (agent_tools.fallback's
            GmailFallback) that answers when the tools cannot (codes in FALLBACK_CODES), within what is left
        """
        self._command = list(command or default_command())
        self._env = dict(os.environ, **(env or {}))
        self._timeout = timeout
        self._start_timeout = start_timeout
        self._fallback = fallback
        self._lock = threading.Lock()  # guards the process, the pending map and writes
        self._pending = {}  # id -> [threading.Event, answer or None]
        self._ids = itertools.count(1)
        self._process = None
        self._warm = False  # whether the current server has answered once (its JVM is up)
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
        """The code of this thread's last failure: an error answer's code, or "unavailable" when no answer came."""
        return getattr(self._errors, "code", None)

    # ---- the protocol ----------------------------------------------------------------------------------

    def call(self, command, params=None, timeout=None):
        """Runs one command. Returns {"data", "backend", "duration_ms"} on success, None on any failure
        (the reason in self.last_error, its code in self.last_error_code: an error answer's code, or
        "unavailable" when no answer came: a timeout, a dead or missing server)."""
        started = time.monotonic()
        wait = timeout if timeout is not None else self._timeout
        params = tracking.with_agent_name(_tools.wire_params(params))
        answer = self._ask(command, params, wait)
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
        return self._fall_back(command, params, wait - (time.monotonic() - started), started)

    def _fall_back(self, command, params, left, started):
        tools_error = self.last_error
        result = self._fallback.answer(command, params, left)
        if "error" in result:
            error = result["error"]
            self._fail(error["code"], "%s; python fallback: %s: %s" % (tools_error, error["code"], error["message"]))
            tracking.note_python(command, params, None, error["code"])
            return None
        result["duration_ms"] = round((time.monotonic() - started) * 1000, 3)
        tracking.note_python(command, params, result, None)
        return result

    def _ask(self, command, params, wait):
        """Sends one request and waits for its answer line; None (with last_error) when none came."""
        request_id = "py-%d" % next(self._ids)
        waiter = [threading.Event(), None]
        line = json.dumps({"id": request_id, "command": command, "params": params}, ensure_ascii=False) + "\n"
        try:
            with self._lock:
                process = self._ensure_started()
                self._pending[request_id] = waiter
                process.stdin.write(line)
                process.stdin.flush()
                fresh = not self._warm
        except (OSError, ValueError) as e:
            self._forget(request_id)
            return self._fail("unavailable", "cannot send to the server: %s" % e)
        if fresh:
            wait = max(wait, self._start_timeout)  # a fresh server may first start its JVM (and build)
        if not waiter[0].wait(wait):
            self._forget(request_id)
            return self._fail("unavailable", "no answer to %s within %.1f s" % (command, wait))
        if waiter[1] is None:
            return self._fail("unavailable", "the server stopped before answering %s" % command)
        return waiter[1]

    def close(self):
        """Ends the server: closing its stdin lets it finish the calls in flight and exit."""
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            try:
                process.stdin.close()
                process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
            process.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- internals -------------------------------------------------------------------------------------

    def _ensure_started(self):
        """Starts the server if it is not running (first use, or after it died). Caller holds the lock."""
        if self._process is not None and self._process.poll() is None:
            return self._process
        if self._process is not None:
            self.restarts += 1
            for pipe in (self._process.stdin, self._process.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass  # the dead server's end is gone already
        self._process = subprocess.Popen(
            self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=self._env, text=True, encoding="utf-8", bufsize=1)
        self._warm = False
        threading.Thread(target=self._read_answers, args=(self._process,), daemon=True).start()
        return self._process

    def _read_answers(self, process):
        try:
            for line in process.stdout:
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue  # not ours to interpret; the server writes only JSON lines
                with self._lock:
                    if self._process is process:
                        self._warm = True
                    waiter = self._pending.pop(answer.get("id"), None)
                if waiter is not None:
                    waiter[1] = answer
                    waiter[0].set()
        except (OSError, ValueError):
            pass  # the pipe was closed under us (close() or a restart): the server is gone either way
        # the server is gone: wake everyone still waiting on it
        with self._lock:
            if self._process is process:
                waiting = list(self._pending.values())
                self._pending.clear()
            else:
                waiting = []
        for waiter in waiting:
            waiter[0].set()

    def _forget(self, request_id):
        with self._lock:
            self._pending.pop(request_id, None)

    def _fail(self, code, reason):
        self._errors.code = code
        self._errors.reason = reason
        return None


_tools.add_helpers(AgentToolsClient, asynchronous=False)
