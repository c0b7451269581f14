"""Call tracking on the agent's side, as the article's `@tracked_tool(agent_name)`: each call's tool, agent,
duration, backend and status go into the store agent-tools itself writes (the SQLite `calls.db`, or DynamoDB),
so `agent-tools stats` shows what the Python side answered beside what agent-tools answered.

    @tracked_tool("mail-agent")
    def list_emails(n):
        return tools.list_emails(max_results=n)     # tools = AgentToolsClient(fallback=GmailFallback(...))

What is recorded, and by whom: one row per tool call the decorated function made through a client (however many it
makes, one after another or at once with asyncio.gather), never two rows for one answer:
- a call agent-tools answered (or refused with an error answer) is recorded by agent-tools, with the decorator's
  agent name (the client sends it as `agent_name`); the decorator adds nothing, unless record_tool_answers=True
  (for an agent-tools whose own tracking is off or goes elsewhere);
- a call the client's Python fallback answered, or failed, is recorded here with backend "python" (the fallback's
  failures too, so the Python path's error rate shows beside its speed), under the registry's tool name;
- a call the tools failed that the function's own Python code answered: backend "python", status "ok", but only
  when the Python side says so: the function returns a dict with `"backend": "python"` and no "error" (the
  fallback's answer shape), or calls answered_in_python() (a user's own implementation, as the article's
  `tools.list_emails(...) or list_emails_in_python(...)`); whatever else the function returns (None, {"error": ...},
  [], a message) leaves the failure as it was;
- a call that got no answer at all (no server, a dead one, a timeout) and no other answer: status "error", error
  code "unavailable", no backend, strategy as asked;
- a decorated function that makes no tool call (a plain Python tool): backend "python", under the function's name
  (or tool=...), status "error" with code "internal" when it raised.
A call that agent-tools answered with an error (`upstream`, `deadline`, ...) and Python then answered has two rows:
agent-tools' error row (backend empty, shown under its strategy) and this ok row under "python"; see the README's
tracking section for what `agent-tools stats` rates mean then. Durations are each call's, from its start to its
last answer (its fallback's, or the marker); a plain tool's are the function's whole run.

Recording never delays the call and never fails it: records go to a bounded queue that one background thread writes
in batches; when the queue is full a record is dropped and counted (Recorder.dropped). The queue is flushed at exit,
for at most AGENT_TOOLS_TRACKING_FLUSH_MS (default 5000); records still queued then are counted on stderr. Where
records go is read as agent-tools reads it (dev.agenttools.Settings.read): the config file (AGENT_TOOLS_CONFIG,
else $XDG_CONFIG_HOME/agent-tools/config.properties, else ~/.config/agent-tools/config.properties) overlaid by the
environment, with agent-tools' variables: AGENT_TOOLS_TRACKING (sqlite, dynamodb, none), AGENT_TOOLS_TRACKING_DB,
XDG_DATA_HOME, AGENT_TOOLS_DYNAMODB_TABLE, AGENT_TOOLS_DYNAMODB_ENDPOINT, AWS_REGION. The environment is the
process's, overlaid by tracked_tool's env= (pass it the env= the client got, and both read the same settings). A
bad setting turns tracking off with one line on stderr naming it. Safe across os.fork: a child starts its own writer
and opens its own store.
"""

import atexit
import contextvars
import functools
import inspect
import os
import queue
import re
import stat
import struct
import sys
import threading
import time
import unicodedata
import uuid
import weakref

__all__ = ["tracked_tool", "answered_in_python", "Recorder", "TrackingSettings", "default_recorder", "read_config"]

# ---- the scope a decorated call runs in: the clients note each of their calls in it ----------------------

_scope = contextvars.ContextVar("agent_tools_tracking_scope", default=None)


class _Call:
    """One client call made inside a decorated function, as the client noted it."""
    __slots__ = ("params", "command", "strategy", "started_wall", "started", "ended", "outcome", "backend",
                 "error_code", "items", "answer")

    def __init__(self, params):
        self.params = params  # the dict the client sends: the same object through one call, a new one per call
        self.command = None
        strategy = params.get("strategy")
        self.strategy = strategy if isinstance(strategy, str) else "auto"
        self.started_wall, self.started = time.time(), time.perf_counter()
        self.ended = None
        # "tools": agent-tools answered; "tools-error": it answered an error; "unanswered": no answer came;
        # "python": the client's fallback answered or failed; "own": the function's own Python answered
        self.outcome = None
        self.backend = None
        self.error_code = None
        self.items = 0
        self.answer = None  # the fallback's answer, to know it when the function returns it

    @property
    def unresolved_failure(self):
        return self.outcome in ("tools-error", "unanswered")


class _Scope:
    """The calls of one decorated run. Calls at once (asyncio.gather, to_thread) note into the same scope: a lock
    keeps the list whole, and each note finds its call by the params object the client passes through."""
    __slots__ = ("agent_name", "calls", "_lock")

    def __init__(self, agent_name):
        self.agent_name = agent_name
        self.calls = []
        self._lock = threading.Lock()

    def start(self, params):
        with self._lock:
            self.calls.append(_Call(params))

    def note(self, command, params, outcome, backend, error_code, items, answer=None):
        with self._lock:
            call = next((c for c in reversed(self.calls) if c.params is params), None)
            if call is None:  # a client that did not announce its call: it starts now
                call = _Call(params)
                self.calls.append(call)
            call.command, call.outcome, call.backend = command, outcome, backend
            call.error_code, call.items, call.answer = error_code, items, answer
            call.ended = time.perf_counter()

    def mark_python(self, items):
        """The latest call the tools failed and no Python answered yet is answered by the function's own Python."""
        with self._lock:
            call = next((c for c in reversed(self.calls) if c.unresolved_failure), None)
            if call is None:
                return False
            call.outcome, call.backend, call.error_code, call.items = "own", "python", None, items
            call.ended = time.perf_counter()
            return True

    def answered(self, result):
        """Whether result is an answer a client's fallback gave (and noted already)."""
        with self._lock:
            return any(c.answer is result for c in self.calls)


def with_agent_name(params):
    """The params with the decorator's agent name, unless the caller named one; the call starts here."""
    scope = _scope.get()
    if scope is not None:
        if "agent_name" not in params:
            params["agent_name"] = scope.agent_name
        scope.start(params)
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
        scope.note(command, params, "tools-error" if answered else "unanswered", None, code, 0)


def note_python(command, params, result, error_code):
    scope = _scope.get()
    if scope is not None:
        scope.note(command, params, "python", "python", error_code, items_of(result["data"]) if result else 0, result)


def answered_in_python(data=None):
    """Says, inside a tracked function, that its own Python code answered the latest tool call the tools failed
    (and no fallback answered): that call is recorded as backend "python", status "ok" (items counted from data,
    the answer's data in the tools' shape, when given). Returns whether there was such a call. Outside a tracked
    function it does nothing and returns False.

        @tracked_tool("mail-agent")
        def list_emails(n):
            answer = tools.list_emails(max_results=n)
            if answer is None:
                answer = {"data": my_python_list(n)}
                answered_in_python(answer["data"])
            return answer
    """
    scope = _scope.get()
    return scope is not None and scope.mark_python(items_of(data))


# ---- the decorator ---------------------------------------------------------------------------------------

# what agent-tools takes as agent_name (Params.agentName): 1..100 code points (len counts them), one line of plain text
MAX_AGENT_NAME = 100


def _check_agent_name(agent_name):
    """Raises ValueError, as agent-tools would refuse the name with every call (docs/bounds.md): too long, or with a
    control, format (bidi, zero-width) or line-separator character."""
    name = agent_name.strip()
    if not name or len(name) > MAX_AGENT_NAME:
        raise ValueError("agent_name must be 1..%d characters (Unicode code points), got %d" % (MAX_AGENT_NAME, len(name)))
    for c in name:
        if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            raise ValueError("agent_name must be one line of plain text, without control, format, bidirectional or "
                             "zero-width characters; it has U+%04X" % ord(c))


def tracked_tool(agent_name, tool=None, recorder=None, record_tool_answers=False, env=None):
    """Decorates a tool function (sync or async) to record each call; see the module's doc for what is recorded.

    agent_name: the agent's name in the records (and sent to agent-tools as agent_name)
    tool: the tool name for a function that does not call agent-tools (default: the function's name)
    recorder: where records go (default: default_recorder(env), read on the first call)
    record_tool_answers: also record the calls agent-tools answered (it records them itself by default)
    env: extra environment variables over the process's, as AgentToolsClient's env= (give both the same, and
        the records go where the server's go: its AGENT_TOOLS_CONFIG, AGENT_TOOLS_TRACKING_DB, ...)
    """
    if not isinstance(agent_name, str) or not agent_name:
        raise ValueError("agent_name must be a non-empty string, got %r" % (agent_name,))
    _check_agent_name(agent_name)
    extra = dict(env) if env is not None else None

    def decorate(function):
        name = tool or function.__name__

        def finish(scope, started_wall, started, raised, result):
            # never into the call: the function's result or its own exception is what the caller gets
            try:
                ended = time.perf_counter()
                if not raised and isinstance(result, dict) and result.get("backend") == "python" \
                        and "error" not in result and not scope.answered(result):
                    scope.mark_python(items_of(result.get("data")))  # the function's own Python answered
                rows = _rows_of(scope, name, started_wall, (ended - started) * 1000, raised, record_tool_answers)
                if rows:
                    target = recorder or default_recorder(extra)
                    for row in rows:
                        target.record(row)
            except Exception as e:  # a bug of ours must cost records, never the call
                _say_once("failure:" + type(e).__name__, "agent-tools: a call was not recorded (%s: %s)"
                          % (type(e).__name__, _first_line(e)))

        if inspect.iscoroutinefunction(function):
            @functools.wraps(function)
            async def tracked_async(*args, **kwargs):
                scope = _Scope(agent_name)
                token = _scope.set(scope)
                started_wall, started, raised, result = time.time(), time.perf_counter(), True, None
                try:
                    result = await function(*args, **kwargs)
                    raised = False
                    return result
                finally:
                    _scope.reset(token)
                    finish(scope, started_wall, started, raised, result)
            return tracked_async

        @functools.wraps(function)
        def tracked(*args, **kwargs):
            scope = _Scope(agent_name)
            token = _scope.set(scope)
            started_wall, started, raised, result = time.time(), time.perf_counter(), True, None
            try:
                result = function(*args, **kwargs)
                raised = False
                return result
            finally:
                _scope.reset(token)
                finish(scope, started_wall, started, raised, result)
        return tracked

    return decorate


def _rows_of(scope, name, started_wall, duration_ms, raised, record_tool_answers):
    """The rows for one decorated run: one per call agent-tools did not record itself (see the module's doc)."""
    if not scope.calls:  # a plain Python tool
        return [(int(started_wall * 1000), name, scope.agent_name, duration_ms, "python", "auto",
                 "error" if raised else "ok", "internal" if raised else None, 0, _request_id())]
    rows = []
    for call in list(scope.calls):
        if call.outcome is None or (call.outcome in ("tools", "tools-error") and not record_tool_answers):
            continue  # a call still running (the function did not wait for it), or agent-tools' own row
        ok = call.error_code is None
        ended = call.ended if call.ended is not None else time.perf_counter()
        rows.append((int(call.started_wall * 1000), call.command, scope.agent_name, (ended - call.started) * 1000,
                     call.backend if ok or call.outcome == "python" else None, call.strategy,
                     "ok" if ok else "error", call.error_code, call.items if ok else 0, _request_id()))
    return rows


def _request_id():
    return "py-" + uuid.uuid4().hex[:16]


# ---- messages on stderr, each once -----------------------------------------------------------------------

_said = set()
_said_lock = threading.Lock()


def _say_once(key, line):
    with _said_lock:
        if key in _said:
            return
        _said.add(key)
    print(line, file=sys.stderr)


def _first_line(error):
    text = str(error)
    return text.splitlines()[0] if text else ""


# ---- settings, as agent-tools reads them (dev.agenttools.Settings.read, tracking.TrackingSettings) --------

def read_config(env=None):
    """The config file env points at (or the default one), overlaid by env (default os.environ): what agent-tools'
    Settings.read gives. Raises ValueError naming the file when it cannot be read or parsed."""
    env = os.environ if env is None else env
    merged = {}
    path = config_file(env)
    if os.path.isfile(path):  # as Files.isRegularFile: a missing file (or a folder) is no file
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8")  # strict, as Java's UTF-8 reader: a malformed file fails
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError("cannot read the config file %s: %s" % (path, e)) from None
        try:
            properties = parse_properties(text)
        except ValueError as e:
            raise ValueError("cannot read the config file %s: %s" % (path, e)) from None
        merged.update((k, _java_strip(v)) for k, v in properties.items())
    merged.update(env)
    return merged


def config_file(env):
    """AGENT_TOOLS_CONFIG when set (even empty, as Java's containsKey: then no file), else config_home's."""
    if "AGENT_TOOLS_CONFIG" in env:
        return env["AGENT_TOOLS_CONFIG"]
    return os.path.join(config_home(env), "config.properties")


def config_home(env):
    """$XDG_CONFIG_HOME/agent-tools, else ~/.config/agent-tools."""
    xdg = env.get("XDG_CONFIG_HOME")
    base = xdg if xdg is not None and not _java_blank(xdg) else os.path.join(_user_home(), ".config")
    return os.path.join(base, "agent-tools")


def _user_home():
    """Java's user.home: the account's home from the password database (Java does not read $HOME)."""
    try:
        import pwd
        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return os.path.expanduser("~")


def _java_whitespace(c):
    # Character.isWhitespace: the Unicode separators but the no-break spaces, and the ASCII controls below
    return c in "\t\n\x0b\f\r\x1c\x1d\x1e\x1f" or (
        unicodedata.category(c) in ("Zs", "Zl", "Zp") and c not in "\u00a0\u2007\u202f")


def _java_strip(s):
    """String.strip(): Python's str.strip() also strips no-break spaces, which Java keeps."""
    start, end = 0, len(s)
    while start < end and _java_whitespace(s[start]):
        start += 1
    while end > start and _java_whitespace(s[end - 1]):
        end -= 1
    return s[start:end]


def _java_blank(s):
    return all(_java_whitespace(c) for c in s)


def parse_properties(text):
    """Keys to values as java.util.Properties.load(Reader) reads text: the whole format, not a subset (the package
    has no dependencies, and a file agent-tools reads one way and this another would send records elsewhere):
    lines ending in \\r\\n, \\r or \\n; leading blanks (space, tab, form feed) skipped; blank lines and comment lines
    (# or ! first) skipped, a comment never continued; an odd number of backslashes at a line's end continues it on
    the next line (its leading blanks skipped); the key ends at the first unescaped =, : or blank, then blanks and one
    = or : are skipped; escapes \\t \\n \\r \\f \\uXXXX, any other escaped character stands for itself. A later key
    wins. Raises ValueError for a malformed \\uXXXX, as Java does."""
    properties = {}
    lines = iter(_natural_lines(text))
    for line in lines:
        line = line.lstrip(" \t\f")
        if not line or line[0] in "#!":
            continue
        while _continues(line):
            line = line[:-1]
            following = next(lines, None)
            if following is None:
                break
            line += following.lstrip(" \t\f")
        key_end, value_start, separated, escaped = len(line), len(line), False, False
        for i, c in enumerate(line):
            if c in "=:" and not escaped:
                key_end, value_start, separated = i, i + 1, True
                break
            if c in " \t\f" and not escaped:
                key_end, value_start = i, i + 1
                break
            escaped = c == "\\" and not escaped
        while value_start < len(line):
            c = line[value_start]
            if c not in " \t\f":
                if separated or c not in "=:":
                    break
                separated = True
            value_start += 1
        properties[_unescape(line[:key_end])] = _unescape(line[value_start:])
    return properties


def _natural_lines(text):
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _continues(line):
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        i += 1
        if c != "\\" or i >= len(s):
            out.append(c)  # (a lone backslash at the very end stays, as Java's loadConvert keeps it)
            continue
        c = s[i]
        i += 1
        if c == "u":
            digits = s[i:i + 4]
            if len(digits) < 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("malformed \\uxxxx encoding")
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append(_ESCAPES.get(c, c))
    return "".join(out)


class TrackingSettings:
    """Where records go, read once from agent-tools' variables."""

    DEFAULT_FLUSH_MS = 5000

    def __init__(self, sink, sqlite_file, dynamo_table, dynamo_endpoint, region, flush_ms):
        self.sink, self.sqlite_file, self.dynamo_table = sink, sqlite_file, dynamo_table
        self.dynamo_endpoint, self.region, self.flush_ms = dynamo_endpoint, region, flush_ms

    @classmethod
    def load(cls, env=None):
        """As agent-tools reads them: the config file overlaid by env (default os.environ). Raises ValueError naming
        the variable (or the config file) for a bad value."""
        return cls.from_environment(read_config(env))

    @classmethod
    def from_environment(cls, env=None):
        """From these values alone, no file read (Java's TrackingSettings.fromEnvironment). Raises ValueError
        naming the variable for a bad value."""
        env = os.environ if env is None else env
        sink = _java_strip(env.get("AGENT_TOOLS_TRACKING", "sqlite")).lower()
        if sink not in ("sqlite", "dynamodb", "none"):
            raise ValueError("AGENT_TOOLS_TRACKING must be sqlite, dynamodb or none, got %s" % sink)
        db = env.get("AGENT_TOOLS_TRACKING_DB", "")
        # empty means unset, as agent-tools reads it (an empty path would be SQLite's temporary database)
        sqlite_file = db if not _java_blank(db) else cls.default_file(env)
        flush = _java_strip(env.get("AGENT_TOOLS_TRACKING_FLUSH_MS", ""))
        if flush:
            # as Long.parseLong: ASCII digits after an optional sign
            if not re.fullmatch(r"[+-]?[0-9]+", flush) or not 1 <= int(flush) <= 600000:
                raise ValueError("AGENT_TOOLS_TRACKING_FLUSH_MS must be a number of milliseconds 1..600000, got \"%s\"" % flush)
        endpoint = env.get("AGENT_TOOLS_DYNAMODB_ENDPOINT", "").strip() or None
        return cls(sink, sqlite_file, env.get("AGENT_TOOLS_DYNAMODB_TABLE", "agent-tools-calls"), endpoint,
                   env.get("AWS_REGION", env.get("AWS_DEFAULT_REGION", "us-east-1")),
                   int(flush) if flush else cls.DEFAULT_FLUSH_MS)

    @staticmethod
    def default_file(env):
        """$XDG_DATA_HOME/agent-tools/calls.db, else ~/.local/share/agent-tools/calls.db."""
        xdg = env.get("XDG_DATA_HOME", "")
        base = xdg if not _java_blank(xdg) else os.path.join(_user_home(), ".local", "share")
        return os.path.join(base, "agent-tools", "calls.db")

    def store_key(self):
        """What names the store: two settings with one key write to the same place."""
        return (self.sink, os.path.abspath(self.sqlite_file) if self.sink == "sqlite" else None,
                self.dynamo_table if self.sink == "dynamodb" else None,
                self.dynamo_endpoint if self.sink == "dynamodb" else None, self.region if self.sink == "dynamodb" else None)


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
        from botocore.config import Config
        self.table = table
        # botocore's defaults are implicit and long for a writer with 5 s at exit (60 s to connect, 60 s to read,
        # DynamoDB's legacy retry mode: 10 attempts). Explicit: 3 s to connect, 10 s to read a response, the
        # "standard" retry mode with 3 attempts in all (exponential backoff with jitter); write() itself retries
        # the items DynamoDB left unprocessed.
        config = Config(connect_timeout=3, read_timeout=10, retries={"total_max_attempts": 3, "mode": "standard"})
        keys = {}
        if endpoint is not None and os.environ.get("AWS_ACCESS_KEY_ID") is None:
            # as agent-tools' DynamoClients: a local DynamoDB takes any signed request, so sign with a dummy key
            keys = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
        self._client = boto3.client("dynamodb", endpoint_url=endpoint, region_name=region, config=config, **keys)
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
    records in `failed` and says why on stderr once per kind of failure; records still queued when the exit flush
    gives up are counted on stderr. Thread-safe; after os.fork the child starts afresh (its own queue, writer
    thread and counts; the store it opened itself is opened again, the parent's left alone)."""

    QUEUE_SIZE = 10000
    BATCH = 500

    def __init__(self, settings=None, store=None):
        """settings: TrackingSettings (default: TrackingSettings.load(), raising ValueError for a bad value); store:
        an object with write(batch) and close() to use instead of the one the settings name (opened by the writer
        thread, on first record)."""
        self._settings = settings or TrackingSettings.load()
        self._store = store
        self._own_store = store is None
        self._at_exit = False
        self._start_afresh()
        _recorders.add(self)

    def _start_afresh(self):
        self._queue = queue.Queue(self.QUEUE_SIZE)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._thread = None
        self._unfinished = 0
        self._reported = set()
        self.dropped = 0
        self.failed = 0
        self.written = 0

    @property
    def enabled(self):
        return not self._own_store or self._settings.sink != "none"

    def record(self, record):
        """Queues one record (a tuple in calls' column order) for the writer; never waits."""
        if not self.enabled:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, args=(self._queue,), name="agent-tools-tracking",
                                                daemon=True)
                self._thread.start()
                if not self._at_exit:
                    self._at_exit = True
                    atexit.register(self._flush_at_exit)
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

    def _flush_at_exit(self):
        if not self.flush():
            with self._lock:
                left = self._unfinished
            print("agent-tools: %d call record%s not written: the store did not take %s within %d ms at exit"
                  " (AGENT_TOOLS_TRACKING_FLUSH_MS)" % (left, "" if left == 1 else "s", "it" if left == 1 else "them",
                                                       self._settings.flush_ms), file=sys.stderr)

    def _after_fork_in_child(self):
        # The parent's writer thread does not exist here, its lock may have been held at the fork, and its SQLite
        # connection (or HTTP pool) must not be used by two processes: start afresh, opening a store of our own
        # when one is needed. The parent's store object is kept, never closed: closing it here could undo the
        # parent's state (SQLite: "do not carry a connection across a fork").
        if self._own_store and self._store is not None:
            _inherited.append(self._store)
            self._store = None
        self._start_afresh()

    def _open(self):
        if self._store is None:
            s = self._settings
            self._store = SqliteStore(s.sqlite_file) if s.sink == "sqlite" else DynamoDbStore(s.dynamo_table, s.dynamo_endpoint, s.region)
        return self._store

    def _run(self, records):
        while True:
            batch = [records.get()]
            while len(batch) < self.BATCH:
                try:
                    batch.append(records.get_nowait())
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
            print("agent-tools: call records not written (%s: %s)" % (kind, _first_line(error)), file=sys.stderr)


_recorders = weakref.WeakSet()  # every live recorder, for the fork hook
_inherited = []  # stores a forked child inherited: kept open (never closed or collected) in the child
_default = None  # the recorder for the process's own environment
_by_env = {}  # extra variables (sorted items) -> recorder
_by_store = {}  # TrackingSettings.store_key() -> recorder: one writer per store
_default_lock = threading.Lock()


def default_recorder(env=None):
    """The recorder for the process's environment overlaid by env (extra variables, as a client's env=) and the
    config file they name, made on first use, one per store. Never raises: a bad setting is said once on stderr
    (naming the variable and what it may be) and gives a recorder that records nothing."""
    global _default
    key = None if env is None else tuple(sorted(env.items()))
    with _default_lock:
        found = _default if key is None else _by_env.get(key)
        if found is None:
            try:
                settings = TrackingSettings.load(None if env is None else dict(os.environ, **env))
            except ValueError as e:
                _say_once("setting:" + str(e), "agent-tools: call tracking is off: %s" % e)
                settings = TrackingSettings("none", "", "", None, "", TrackingSettings.DEFAULT_FLUSH_MS)
            found = _by_store.get(settings.store_key())
            if found is None:
                found = _by_store[settings.store_key()] = Recorder(settings)
            if key is None:
                _default = found
            else:
                _by_env[key] = found
        return found


def _after_fork_in_child():
    global _default_lock, _said_lock
    _default_lock, _said_lock = threading.Lock(), threading.Lock()
    for recorder in list(_recorders):
        recorder._after_fork_in_child()


if hasattr(os, "register_at_fork"):  # (not on Windows, which has no fork)
    os.register_at_fork(after_in_child=_after_fork_in_child)
