"""A Python client for agent-tools' persistent mode (`agent-tools serve --stdio`), standard library only.

It keeps one `serve --stdio` process for the life of the client (a JVM per call would cost more than the
call), sends JSON-line requests from any number of threads, matches answers to callers by id, enforces a
per-call timeout, restarts the process if it dies, and returns None on any failure so the caller can fall
back to another implementation, as the article's bridge does.

    client = AgentToolsClient()                     # runs ./agent-tools serve --stdio
    result = client.list_emails(max_results=10)     # {"data": {...}, "backend": "concurrent", "duration_ms": 312.5}
    if result is None:
        print("fell back:", client.last_error)
    client.log_habit("running", amount=5)           # today in the habit's time zone; a retry never counts twice
"""

import itertools
import json
import os
import subprocess
import threading

__all__ = ["AgentToolsClient"]

_DEFAULT_COMMAND = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "agent-tools"), "serve", "--stdio"]


class AgentToolsClient:
    """Thread-safe client of one persistent `agent-tools serve --stdio` process."""

    def __init__(self, command=None, env=None, timeout=30.0, start_timeout=120.0):
        """
        command: the server command line (default: this repository's ./agent-tools serve --stdio)
        env: extra environment variables for the server (e.g. AGENT_TOOLS_GMAIL_ROOT_URL)
        timeout: default seconds to wait for one answer
        start_timeout: seconds to wait for a fresh server to answer its first request (a build may run first)
        """
        self._command = list(command or _DEFAULT_COMMAND)
        self._env = dict(os.environ, **(env or {}))
        self._timeout = timeout
        self._start_timeout = start_timeout
        self._lock = threading.Lock()  # guards the process, the pending map and writes
        self._pending = {}  # id -> [threading.Event, answer or None]
        self._ids = itertools.count(1)
        self._process = None
        self._warm = False  # whether the current server has answered once (its JVM is up)
        self.last_error = None
        self.restarts = 0

    # ---- the tools -------------------------------------------------------------------------------------

    def list_emails(self, timeout=None, **params):
        return self.call("gmail.list-emails", params, timeout)

    def search_emails(self, query, timeout=None, **params):
        return self.call("gmail.search-emails", dict(params, query=query), timeout)

    def get_email(self, message_id, timeout=None, **params):
        return self.call("gmail.get-email", dict(params, message_id=message_id), timeout)

    def list_calendars(self, timeout=None, **params):
        return self.call("calendar.list-calendars", params, timeout)

    def list_events(self, timeout=None, **params):
        return self.call("calendar.list-events", params, timeout)

    # The Habit tools: a habit is named by its id or its name, any case ("reading" finds "Reading").

    def create_habit(self, name, timeout=None, **params):
        return self.call("habit.create", dict(params, name=name), timeout)

    def update_habit(self, habit, timeout=None, **params):
        return self.call("habit.update", dict(params, habit=habit), timeout)

    def archive_habit(self, habit, timeout=None, **params):
        return self.call("habit.archive", dict(params, habit=habit), timeout)

    def restore_habit(self, habit, timeout=None, **params):
        return self.call("habit.restore", dict(params, habit=habit), timeout)

    def log_habit(self, habit, timeout=None, **params):
        return self.call("habit.log", dict(params, habit=habit), timeout)

    def list_habits(self, timeout=None, **params):
        return self.call("habit.list", params, timeout)

    def habit_history(self, habit, timeout=None, **params):
        return self.call("habit.history", dict(params, habit=habit), timeout)

    def tools(self, timeout=None):
        return self.call("tools.list", {}, timeout)

    # ---- the protocol ----------------------------------------------------------------------------------

    def call(self, command, params=None, timeout=None):
        """Runs one command. Returns {"data", "backend", "duration_ms"} on success, None on any failure
        (the reason is in self.last_error: an error answer, a timeout, or a dead server)."""
        request_id = "py-%d" % next(self._ids)
        waiter = [threading.Event(), None]
        line = json.dumps({"id": request_id, "command": command, "params": params or {}}, ensure_ascii=False) + "\n"
        try:
            with self._lock:
                process = self._ensure_started()
                self._pending[request_id] = waiter
                process.stdin.write(line)
                process.stdin.flush()
                fresh = not self._warm
        except (OSError, ValueError) as e:
            self._forget(request_id)
            self._fail("cannot send to the server: %s" % e)
            return None
        wait = timeout if timeout is not None else self._timeout
        if fresh:
            wait = max(wait, self._start_timeout)  # a fresh server may first start its JVM (and build)
        if not waiter[0].wait(wait):
            self._forget(request_id)
            self._fail("no answer to %s within %.1f s" % (command, wait))
            return None
        answer = waiter[1]
        if answer is None:
            self._fail("the server stopped before answering %s" % command)
            return None
        if answer.get("status") != "ok":
            error = answer.get("error") or {}
            self._fail("%s: %s" % (error.get("code", "error"), error.get("message", "no message")))
            return None
        meta = answer.get("meta") or {}
        return {"data": answer.get("data"), "backend": meta.get("backend"), "duration_ms": meta.get("duration_ms")}

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
        self._process = subprocess.Popen(
            self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=self._env, text=True, encoding="utf-8", bufsize=1)
        self._warm = False
        threading.Thread(target=self._read_answers, args=(self._process,), daemon=True).start()
        return self._process

    def _read_answers(self, process):
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

    def _fail(self, reason):
        self.last_error = reason
        return None
