"""Call tracking on the agent's side, as the article's `@tracked_tool(agent_name)`: each call's tool, agent,
duration, backend and status go into the store agent-tools itself writes (the SQLite `calls.db`, or DynamoDB),
so `agent-tools stats` shows what the Python side answered beside what agent-tools answered.

    @tracked_tool("mail-agent")
    def list_emails(n):
        return tools.list_emails(max_results=n)     # tools = AgentToolsClient(fallback=GmailFallback(...))

What is recorded, and by whom (one row per answer, never two):
- a call agent-tools answered (or refused with an error answer) is recorded by agent-tools, with the decorator's
  agent name (the client sends it as `agent_name`); the decorator adds nothing, unless record_tool_answers=True
  (for an agent-tools whose own tracking is off or goes elsewhere);
- a call the Python fallback answered, or failed, is recorded here with backend "python" (the fallback's failures
  too, so the Python path's error rate shows beside its speed), under the registry's tool name;
- a call the tools failed that the decorated function answered all the same (its own fallback, as the article's
  `tools.list_emails(...) or list_emails_in_python(...)`): backend "python", status "ok";
- a call that got no answer at all (no server, a dead one, a timeout) and no other answer: status "error", error
  code "unavailable", no backend, strategy as asked;
- a decorated function that does not use the client (a plain Python tool): backend "python", under the
  function's name (or tool=...), status "error" with code "internal" when it raised.
Durations are the decorated function's whole run, as the agent waited for it.

Recording never delays the call: records go to a bounded queue that one background thread writes in batches;
when the queue is full a record is dropped and counted (Recorder.dropped). The queue is flushed at exit, for at
most AGENT_TOOLS_TRACKING_FLUSH_MS (default 5000). Where records go is read once from the environment, with
agent-tools' own variables: AGENT_TOOLS_TRACKING (sqlite, dynamodb, none), AGENT_TOOLS_TRACKING_DB,
XDG_DATA_HOME, AGENT_TOOLS_DYNAMODB_TABLE, AGENT_TOOLS_DYNAMODB_ENDPOINT, AWS_REGION.
"""

import asyncio
import atexit
import contextvars
import functools
import os
import queue
import stat
import struct
import sys
import threading
import time
import uuid

__all__ = ["tracked_tool", "Recorder", "TrackingSettings", "default_recorder"]

# ---- the scope a decorated call runs in: the client notes what happened in it ----------------------------

_scope = contextvars.ContextVar("agent_tools_tracking_scope", default=None)


class _Scope:
    __slots__ = ("agent_name", "command", "strategy", "outcome", "backend", "error_code", "items")

    def __init__(self, agent_name):
        self.agent_name = agent_name
        self.command = None
        self.strategy = None
        self.outcome = None  # None: no tool call; "tools": agent-tools answered; "unanswered"; "python"
        self.backend = None
        self.error_code = None
        self.items = 0

    def note(self, command, params, outcome, backend, error_code, items):
        self.command = command
        strategy = params.get("strategy")
        self.strategy = strategy if isinstance(strategy, str) else "auto"
        self.outcome = outcome
        self.backend = backend
        self.error_code = error_code
        self.items = items


def with_agent_name(params):
    """The params with the decorator's agent name, unless the caller named one."""
    scope = _scope.get()
    if scope is not None and "agent_name" not in params:
        params["agent_name"] = scope.agent_name
    return params


def items_of(data):
    """What agent-tools counts as a call's items: the emails (events, habits...) of a list, else 1."""
    if isinstance(data, dict):
        for key in ("emails", "events", "habits", "calendars"):
            if isinstance(data.get(key), list):
                return len(data[key])
    return 1 if data is not None else 0


def note_tools_answer(command, params, result):
    scope = _scope.get()
    if scope is not None:
        scope.note(command, params, "tools", result.get("backend"), None, items_of(result.get("data")))


def note_tools_error(command, params, code, answered):
    scope = _scope.get()
    if scope is not None:
        scope.note(command, params, "tools" if answered else "unanswered", None, code, 0)


def note_python(command, params, result, error_code):
    scope = _scope.get()
    if scope is not None:
        scope.note(command, params, "python", "python", error_code, items_of(result["data"]) if result else 0)


# ---- the decorator ---------------------------------------------------------------------------------------

def tracked_tool(agent_name, tool=None, recorder=None, record_tool_answers=False):
    """Decorates a tool function (sync or async) to record each call; see the module's doc for what is recorded.

    agent_name: the agent's name in the records (and sent to agent-tools as agent_name)
    tool: the tool name for a function that does not call agent-tools (default: the function's name)
    recorder: where records go (default: default_recorder(), from the environment)
    record_tool_answers: also record the calls agent-tools answered (it records them itself by default)
    """
    if not isinstance(agent_name, str) or not agent_name:
        raise ValueError("agent_name must be a non-empty string, got %r" % (agent_name,))

    def decorate(function):
        name = tool or function.__name__

        def finish(scope, started_wall, started, failed, result):
            duration_ms = (time.perf_counter() - started) * 1000
            record = _record_of(scope, name, started_wall, duration_ms, failed, result, record_tool_answers)
            if record is not None:
                (recorder or default_recorder()).record(record)

        if asyncio.iscoroutinefunction(function):
            @functools.wraps(function)
            async def tracked_async(*args, **kwargs):
                scope = _Scope(agent_name)
                token = _scope.set(scope)
                started_wall, started, failed, result = time.time(), time.perf_counter(), True, None
                try:
                    result = await function(*args, **kwargs)
                    failed = False
                    return result
                finally:
                    _scope.reset(token)
                    finish(scope, started_wall, started, failed, result)
            return tracked_async

        @functools.wraps(function)
        def tracked(*args, **kwargs):
            scope = _Scope(agent_name)
            token = _scope.set(scope)
            started_wall, started, failed, result = time.time(), time.perf_counter(), True, None
            try:
                result = function(*args, **kwargs)
                failed = False
                return result
            finally:
                _scope.reset(token)
                finish(scope, started_wall, started, failed, result)
        return tracked

    return decorate


def _record_of(scope, name, started_wall, duration_ms, raised, result, record_tool_answers):
    """The row for one decorated call, or None when agent-tools recorded it already."""
    request_id = "py-" + uuid.uuid4().hex[:16]
    ts_ms = int(started_wall * 1000)
    if scope.outcome is None:  # a plain Python tool
        return (ts_ms, name, scope.agent_name, duration_ms, "python", "auto", "error" if raised else "ok",
                "internal" if raised else None, 0, request_id)
    tools_failed = scope.outcome in ("tools", "unanswered") and scope.error_code is not None
    if tools_failed and not raised and result is not None:
        # the tools failed and the function answered all the same: its own Python path did (the article's
        # `tools.x() or python_x()`)
        data = result.get("data", result) if isinstance(result, dict) else None
        return (ts_ms, scope.command, scope.agent_name, duration_ms, "python", scope.strategy, "ok", None,
                items_of(data) if isinstance(data, dict) else 0, request_id)
    if scope.outcome == "tools" and not record_tool_answers:
        return None
    ok = scope.error_code is None and not raised
    backend = scope.backend if ok or scope.outcome == "python" else None
    code = None if ok else (scope.error_code or "internal")
    return (ts_ms, scope.command, scope.agent_name, duration_ms, backend, scope.strategy, "ok" if ok else "error",
            code, scope.items if ok else 0, request_id)


# ---- settings, as agent-tools reads them (dev.agenttools.tracking.TrackingSettings) ----------------------

class TrackingSettings:
    """Where records go, read once from an environment with agent-tools' variables."""

    DEFAULT_FLUSH_MS = 5000

    def __init__(self, sink, sqlite_file, dynamo_table, dynamo_endpoint, region, flush_ms):
        self.sink, self.sqlite_file, self.dynamo_table = sink, sqlite_file, dynamo_table
        self.dynamo_endpoint, self.region, self.flush_ms = dynamo_endpoint, region, flush_ms

    @classmethod
    def from_environment(cls, env=None):
        """Raises ValueError naming the variable for a bad value."""
        env = os.environ if env is None else env
        sink = env.get("AGENT_TOOLS_TRACKING", "sqlite").strip().lower()
        if sink not in ("sqlite", "dynamodb", "none"):
            raise ValueError("AGENT_TOOLS_TRACKING must be sqlite, dynamodb or none, got %s" % sink)
        db = env.get("AGENT_TOOLS_TRACKING_DB", "")
        # empty means unset, as agent-tools reads it (an empty path would be SQLite's temporary database)
        sqlite_file = db if db.strip() else cls.default_file(env)
        flush = env.get("AGENT_TOOLS_TRACKING_FLUSH_MS", "").strip()
        if flush:
            if not flush.isdigit() or not 1 <= int(flush) <= 600000:
                raise ValueError("AGENT_TOOLS_TRACKING_FLUSH_MS must be a number of milliseconds 1..600000, got \"%s\"" % flush)
        endpoint = env.get("AGENT_TOOLS_DYNAMODB_ENDPOINT", "").strip() or None
        return cls(sink, sqlite_file, env.get("AGENT_TOOLS_DYNAMODB_TABLE", "agent-tools-calls"), endpoint,
                   env.get("AWS_REGION", env.get("AWS_DEFAULT_REGION", "us-east-1")),
                   int(flush) if flush else cls.DEFAULT_FLUSH_MS)

    @staticmethod
    def default_file(env):
        """$XDG_DATA_HOME/agent-tools/calls.db, else ~/.local/share/agent-tools/calls.db."""
        base = env.get("XDG_DATA_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".local", "share")
        return os.path.join(base, "agent-tools", "calls.db")


# ---- the stores ------------------------------------------------------------------------------------------

_SCHEMA = """CREATE TABLE IF NOT EXISTS calls (
  ts_ms INTEGER NOT NULL, tool_name TEXT NOT NULL, agent_name TEXT NOT NULL, duration_ms REAL NOT NULL,
  backend TEXT, strategy TEXT NOT NULL, status TEXT NOT NULL, error_code TEXT, items INTEGER NOT NULL,
  request_id TEXT NOT NULL)"""


class SqliteStore:
    """Records into agent-tools' calls.db as its SqliteSink opens it: an owner-only folder and file, never through a
    symbolic link, a rollback journal (journal_mode=TRUNCATE), no memory mapping, synchronous=FULL, waiting up to
    10 s for another process's lock. One transaction per batch."""

    def __init__(self, path):
        import sqlite3  # here: a client that tracks nothing never loads it
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, mode=0o700, exist_ok=True)
        for checked in (folder, path):
            if os.path.islink(checked):
                raise OSError("the call store %s is not used: %s is a symbolic link" % (path, checked))
        if not os.path.exists(path):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        if not stat.S_ISREG(os.stat(path, follow_symlinks=False).st_mode):
            raise OSError("the call store %s is not a regular file" % path)
        self.path = path
        self._db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA mmap_size = 0")
        self._db.execute("PRAGMA synchronous = FULL")
        mode = self._db.execute("PRAGMA journal_mode = TRUNCATE").fetchone()[0].lower()
        if mode != "truncate":
            raise OSError("the call store %s stays in %s mode" % (path, mode))
        self._db.execute(_SCHEMA)
        self._db.execute("CREATE INDEX IF NOT EXISTS calls_by_tool_time ON calls (tool_name, ts_ms)")
        self._db.execute("CREATE INDEX IF NOT EXISTS calls_by_time ON calls (ts_ms)")

    def write(self, batch):
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT INTO calls (ts_ms, tool_name, agent_name, duration_ms, backend, strategy, status,"
                                 " error_code, items, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", batch)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def close(self):
        self._db.close()


class DynamoDbStore:
    """Records into agent-tools' DynamoDB table with its item shape (dev.agenttools.tracking.DynamoDbSink): pk
    "<tool>#<UTC day>", sk "<ts_ms, 13 digits>#<request_id>#<duration's 64 bits, hex>", the record's fields
    beside; the table (on-demand) is created when missing."""

    MAX_BATCH_WRITE = 25

    def __init__(self, table, endpoint, region):
        import boto3  # the "dynamodb" extra
        self.table = table
        self._client = boto3.client("dynamodb", endpoint_url=endpoint, region_name=region)
        try:
            self._client.describe_table(TableName=table)
        except self._client.exceptions.ResourceNotFoundException:
            try:
                self._client.create_table(
                    TableName=table, BillingMode="PAY_PER_REQUEST",
                    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                          {"AttributeName": "sk", "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])
            except self._client.exceptions.ResourceInUseException:
                pass  # another process made it first
            self._client.get_waiter("table_exists").wait(TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 60})

    @staticmethod
    def item(record):
        ts_ms, tool, agent, duration_ms, backend, strategy, status, error_code, items, request_id = record
        day = time.strftime("%Y-%m-%d", time.gmtime(ts_ms / 1000))
        bits = struct.unpack(">q", struct.pack(">d", float(duration_ms)))[0]
        item = {"pk": {"S": "%s#%s" % (tool, day)}, "sk": {"S": "%013d#%s#%x" % (ts_ms, request_id, bits)},
                "ts_ms": {"N": str(ts_ms)}, "tool_name": {"S": tool}, "agent_name": {"S": agent},
                "duration_ms": {"N": repr(float(duration_ms))}, "strategy": {"S": strategy}, "status": {"S": status},
                "items": {"N": str(items)}, "request_id": {"S": request_id}}
        if backend is not None:
            item["backend"] = {"S": backend}
        if error_code is not None:
            item["error_code"] = {"S": error_code}
        return item

    def write(self, batch):
        for i in range(0, len(batch), self.MAX_BATCH_WRITE):
            pending = {self.table: [{"PutRequest": {"Item": self.item(r)}} for r in batch[i:i + self.MAX_BATCH_WRITE]]}
            for attempt in range(9):
                pending = self._client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                if not any(pending.values()):
                    break
                time.sleep(min(2.0, 0.025 * (1 << attempt)))
            else:
                raise OSError("%d items still unprocessed after 8 retries" % sum(len(v) for v in pending.values()))

    def close(self):
        self._client.close()


# ---- the background writer -------------------------------------------------------------------------------

class Recorder:
    """Takes records without waiting and writes them from one background thread, in batches.

    record() never blocks: a full queue drops the record and counts it in `dropped`; a failed write counts its
    records in `failed` and says why on stderr once per kind of failure. Thread-safe."""

    QUEUE_SIZE = 10000
    BATCH = 500

    def __init__(self, settings=None, store=None):
        """settings: TrackingSettings (default: from the environment); store: an object with write(batch) and
        close() to use instead of the one the settings name (opened by the writer thread, on first record)."""
        self._settings = settings or TrackingSettings.from_environment()
        self._store = store
        self._queue = queue.Queue(self.QUEUE_SIZE)
        self._lock = threading.Lock()
        self._thread = None
        self._unfinished = 0
        self._idle = threading.Condition(self._lock)
        self._reported = set()
        self.dropped = 0
        self.failed = 0
        self.written = 0

    @property
    def enabled(self):
        return self._store is not None or self._settings.sink != "none"

    def record(self, record):
        """Queues one record (a tuple in calls' column order) for the writer; never waits."""
        if not self.enabled:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="agent-tools-tracking", daemon=True)
                self._thread.start()
                atexit.register(self.flush)
            try:
                self._queue.put_nowait(record)
            except queue.Full:
                self.dropped += 1
                return
            self._unfinished += 1

    def flush(self, timeout=None):
        """Waits until every queued record is written (or failed), at most timeout seconds (default the settings'
        flush time). Returns whether the queue is empty."""
        wait = self._settings.flush_ms / 1000 if timeout is None else timeout
        with self._idle:
            return self._idle.wait_for(lambda: self._unfinished == 0, wait)

    def _open(self):
        if self._store is None:
            s = self._settings
            self._store = SqliteStore(s.sqlite_file) if s.sink == "sqlite" else DynamoDbStore(s.dynamo_table, s.dynamo_endpoint, s.region)
        return self._store

    def _run(self):
        while True:
            batch = [self._queue.get()]
            while len(batch) < self.BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._open().write(batch)
                self.written += len(batch)
            except Exception as e:  # any failure of the store costs these records, never the caller's call
                self.failed += len(batch)
                self._report(e)
            with self._idle:
                self._unfinished -= len(batch)
                self._idle.notify_all()

    def _report(self, error):
        kind = type(error).__name__
        if kind not in self._reported:
            self._reported.add(kind)
            print("agent-tools: call records not written (%s: %s)" % (kind, str(error).splitlines()[0] if str(error) else ""),
                  file=sys.stderr)


_default = None
_default_lock = threading.Lock()


def default_recorder():
    """The process's recorder, made from the environment on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Recorder()
        return _default
