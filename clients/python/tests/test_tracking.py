"""tracked_tool (agent_tools.tracking): the Python side's rows go into agent-tools' own store, and the real
`agent-tools stats` shows them beside the rows agent-tools wrote; recording never delays a call."""

import asyncio
import contextlib
import inspect
import io
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest

from support import LAUNCHER, ROOT, start_emulator, stop, tools_env

from agent_tools import AgentToolsClient, AsyncAgentToolsClient, tracked_tool
from agent_tools import tracking
from agent_tools.tracking import DynamoDbStore, Recorder, TrackingSettings, answered_in_python, parse_properties

try:
    import googleapiclient.discovery  # noqa: F401  (GmailFallback imports it when made)
    import google.oauth2.credentials  # noqa: F401
    from agent_tools.fallback import GmailFallback
    MISSING = None
except ImportError as e:
    MISSING = "the fallback extra is not installed (pip install './clients/python[fallback]'): %s" % e

NO_SERVER = [os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-none-"), "agent-tools"), "serve", "--stdio"]


def stats(env):
    """`agent-tools stats --format json` over the store env names: {(tool, backend): row}."""
    done = subprocess.run([LAUNCHER, "stats", "--format", "json", "--since", "1d"], env=dict(os.environ, **env),
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError("agent-tools stats failed: %s" % done.stderr)
    rows = json.loads(done.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    return {(r["tool"], r["backend"]): r for r in rows}


@unittest.skipIf(MISSING, MISSING)
class StatsShowPythonRowsTest(unittest.TestCase):
    def test_stats_shows_the_fallbacks_rows_beside_the_tools_rows(self):
        emulator, root = start_emulator("--latency", "0ms", "--jitter", "0ms")
        self.addCleanup(stop, emulator)
        env = tools_env(root)
        recorder = Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": env["AGENT_TOOLS_TRACKING_DB"]}))
        fallback = GmailFallback(access_token="python-token", root_url=root)

        # the same tool, answered by agent-tools, then by the Python fallback when agent-tools is not there
        tools = AgentToolsClient(env=env, fallback=fallback)
        missing = AgentToolsClient(command=NO_SERVER, fallback=fallback)
        self.addCleanup(missing.close)

        @tracked_tool("py-agent", recorder=recorder)
        def list_emails(client, n):
            return client.list_emails(max_results=n, strategy="concurrent")

        @tracked_tool("py-agent", recorder=recorder)
        def get_email(client, message_id):
            return client.get_email(message_id)

        @tracked_tool("py-agent", tool="local.summarise", recorder=recorder)
        def summarise(emails):
            return {"summary": "%d emails" % len(emails)}

        for n in (1, 2, 3):
            self.assertEqual("concurrent", list_emails(tools, n)["backend"])
        first = list_emails(missing, 2)
        self.assertEqual("python", first["backend"], missing.last_error)
        self.assertEqual("python", list_emails(missing, 3)["backend"])
        self.assertEqual("python", get_email(missing, first["data"]["emails"][0]["id"])["backend"])
        self.assertIsNone(get_email(missing, "00000000000000ab"))  # the fallback's failure: recorded too
        summarise(first["data"]["emails"])
        tools.close()  # agent-tools writes its records by its exit at the latest
        self.assertTrue(recorder.flush(30))
        self.assertEqual((5, 0, 0), (recorder.written, recorder.dropped, recorder.failed))

        rows = stats({"AGENT_TOOLS_TRACKING_DB": env["AGENT_TOOLS_TRACKING_DB"]})
        self.assertEqual(3, rows[("gmail.list-emails", "concurrent")]["calls"], "agent-tools' own rows, not written twice")
        python = rows[("gmail.list-emails", "python")]
        self.assertEqual((2, 0.0, 1.0), (python["calls"], python["error_rate"], python["fallback_rate"]))
        self.assertEqual(5, rows[("gmail.list-emails", "all")]["calls"])
        self.assertAlmostEqual(2 / 5, rows[("gmail.list-emails", "all")]["fallback_rate"])
        gets = rows[("gmail.get-email", "python")]
        self.assertEqual((2, 0.5), (gets["calls"], gets["error_rate"]))
        self.assertEqual(1, rows[("local.summarise", "python")]["calls"])
        # the agent's name reached agent-tools' own rows too, and the table form shows the Python rows
        done = subprocess.run([LAUNCHER, "stats", "--since", "1d"], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, AGENT_TOOLS_TRACKING_DB=env["AGENT_TOOLS_TRACKING_DB"]))
        self.assertRegex(done.stdout, r"gmail\.list-emails\s+python\s+2\s")
        import sqlite3
        with sqlite3.connect(env["AGENT_TOOLS_TRACKING_DB"]) as db:
            agents = {a for (a,) in db.execute("SELECT DISTINCT agent_name FROM calls")}
        self.assertEqual({"py-agent"}, agents)


class DecoratorTest(unittest.TestCase):
    def recorder(self, store):
        return Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": "unused.db"}), store=store)

    def test_recording_never_waits_for_the_store_and_drops_and_counts_past_the_queue(self):
        release = threading.Event()

        class Stuck:
            batches = []

            def write(self, batch):
                release.wait(60)
                self.batches.append(batch)

        store = Stuck()
        recorder = self.recorder(store)
        recorder.QUEUE_SIZE = 10  # (an instance's own, set before the queue is made)
        recorder._queue = type(recorder._queue)(10)

        @tracked_tool("agent", recorder=recorder)
        def tool(i):
            return i

        started = time.perf_counter()
        for i in range(100):
            self.assertEqual(i, tool(i))
        took = time.perf_counter() - started
        self.assertLess(took, 5.0, "a stuck store must not hold the calls (a generous bound)")
        self.assertGreaterEqual(recorder.dropped, 80)
        release.set()
        self.assertTrue(recorder.flush(30))
        written = sum(len(b) for b in store.batches)
        self.assertEqual(100, written + recorder.dropped)

    def test_an_async_tool_is_recorded_with_its_own_status_and_a_raising_one_as_an_error(self):
        class Keeping:
            rows = []

            def write(self, batch):
                self.rows.extend(batch)

        store = Keeping()
        recorder = self.recorder(store)

        @tracked_tool("async-agent", recorder=recorder)
        async def fine():
            await asyncio.sleep(0.01)
            return "ok"

        @tracked_tool("async-agent", tool="local.broken", recorder=recorder)
        async def broken():
            raise ValueError("no")

        async def run():
            self.assertEqual("ok", await fine())
            with self.assertRaises(ValueError):
                await broken()

        asyncio.run(run())
        self.assertTrue(recorder.flush(30))
        by_tool = {r[1]: r for r in store.rows}
        self.assertEqual(("fine", "async-agent", "python", "auto", "ok", None), by_tool["fine"][1:3] + by_tool["fine"][4:8])
        self.assertGreaterEqual(by_tool["fine"][3], 10.0, "the duration is the call's")
        self.assertEqual(("error", "internal"), by_tool["local.broken"][6:8])

    def test_a_failed_store_costs_records_never_the_call(self):
        class Failing:
            def write(self, batch):
                raise OSError("disk full")

        recorder = self.recorder(Failing())

        @tracked_tool("agent", recorder=recorder)
        def tool():
            return 1

        self.assertEqual(1, tool())
        self.assertTrue(recorder.flush(30))
        self.assertEqual(1, recorder.failed)

    def test_an_agent_name_agent_tools_would_refuse_is_refused_when_decorating(self):
        # agent-tools refuses such a name with every call (invalid_argument), and stores none: say so at once
        with self.assertRaisesRegex(ValueError, r"agent_name must be 1\.\.100 characters \(Unicode code points\), got 101"):
            tracking.tracked_tool("x" * 101)
        with self.assertRaisesRegex(ValueError, "agent_name must be one line of plain text.*U\\+202E"):
            tracking.tracked_tool("mail-agent\u202e")
        with self.assertRaisesRegex(ValueError, "U\\+200B"):
            tracking.tracked_tool("mail\u200bagent")
        tracking.tracked_tool("\U0001F3C3" * 100)  # 100 code points, as agent-tools counts them

    def test_a_bad_setting_names_its_variable(self):
        with self.assertRaisesRegex(ValueError, "AGENT_TOOLS_TRACKING must be sqlite, dynamodb or none, got redis"):
            TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING": "redis"})
        with self.assertRaisesRegex(ValueError, "AGENT_TOOLS_TRACKING_FLUSH_MS must be"):
            TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_FLUSH_MS": "-1"})
        self.assertEqual(250, TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_FLUSH_MS": " +250 "}).flush_ms)
        self.assertTrue(TrackingSettings.from_environment({"XDG_DATA_HOME": "/x"}).sqlite_file.endswith(
            os.path.join("x", "agent-tools", "calls.db")))


class Keeping:
    """A store that keeps the rows it is given."""

    def __init__(self):
        self.rows = []

    def write(self, batch):
        self.rows.extend(batch)

    def close(self):
        pass


def keeping_recorder():
    store = Keeping()
    return Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": "unused.db"}), store=store), store


def closed_port():
    """A local port nothing listens on (free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def java():
    home = os.environ.get("JAVA_HOME")
    command = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return command if command and os.path.exists(command) else None


# Prints what java.util.Properties.load(Reader) reads from a UTF-8 file: key NUL value SOH, sorted by key.
PROPERTIES_JAVA = """
import java.io.*; import java.nio.charset.StandardCharsets; import java.nio.file.*; import java.util.*;
public class Props {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) { p.load(in); }
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        for (String k : new TreeSet<>(p.stringPropertyNames())) { out.print(k + "\\0" + p.getProperty(k) + "\\1"); }
    }
}
"""


class ConfigFileTest(unittest.TestCase):
    """The store is read as agent-tools reads it: config.properties overlaid by the environment."""

    def write(self, text, name="config.properties", folder=None):
        folder = folder or tempfile.mkdtemp(prefix="agent-tools-py-config-")
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return path

    def test_properties_are_parsed_as_java_parses_them(self):
        command = java()
        if command is None:
            self.skipTest("no java to compare with (JAVA_HOME or java on PATH)")
        text = ("a=1\n  b : 2\\\\\n   3\n#c\\\nd e\\u0041\n!x\nf\\:g=h\\tz\r\n  k  =   v  \\\n     w\rkey\\ with\\ space value\n"
                "novalue\n=emptykey\nAGENT_TOOLS_TRACKING_DB\t:\t/tmp/a\\\n\n   tail\nlast = ends \\")
        path = self.write(text)
        source = self.write(PROPERTIES_JAVA, name="Props.java")
        done = subprocess.run([command, source, path], capture_output=True, timeout=120)
        self.assertEqual(0, done.returncode, done.stderr.decode(errors="replace"))
        pairs = [p.split("\0", 1) for p in done.stdout.decode("utf-8").split("\1") if p]
        self.assertEqual(dict(pairs), parse_properties(text))
        self.assertEqual("/tmp/a", parse_properties(text)["AGENT_TOOLS_TRACKING_DB"])
        with self.assertRaisesRegex(ValueError, "malformed"):
            parse_properties("AGENT_TOOLS_TRACKING=\\u00g1")

    def test_the_environment_wins_over_the_file_and_the_file_is_found_as_agent_tools_finds_it(self):
        named = self.write("AGENT_TOOLS_TRACKING_DB = named.db  \nAGENT_TOOLS_TRACKING_FLUSH_MS=250\n")
        xdg = tempfile.mkdtemp(prefix="agent-tools-py-xdg-")
        os.makedirs(os.path.join(xdg, "agent-tools"))
        self.write("AGENT_TOOLS_TRACKING_DB=xdg.db\n", folder=os.path.join(xdg, "agent-tools"))
        load = TrackingSettings.load
        self.assertEqual(("named.db", 250), (load({"AGENT_TOOLS_CONFIG": named}).sqlite_file,
                                             load({"AGENT_TOOLS_CONFIG": named}).flush_ms))
        self.assertEqual("named.db", load({"AGENT_TOOLS_CONFIG": named, "XDG_CONFIG_HOME": xdg}).sqlite_file)
        self.assertEqual("xdg.db", load({"XDG_CONFIG_HOME": xdg}).sqlite_file)
        self.assertEqual("env.db", load({"XDG_CONFIG_HOME": xdg, "AGENT_TOOLS_TRACKING_DB": "env.db"}).sqlite_file)
        # an empty AGENT_TOOLS_CONFIG is a path (Java's containsKey), not a file: no file is read, not even XDG's
        self.assertTrue(load({"AGENT_TOOLS_CONFIG": "", "XDG_CONFIG_HOME": xdg, "XDG_DATA_HOME": xdg}).sqlite_file
                        .endswith(os.path.join("agent-tools", "calls.db")))

    @unittest.skipIf(MISSING, MISSING)
    def test_the_decorator_writes_where_the_clients_server_writes_with_the_clients_env(self):
        emulator, root = start_emulator("--latency", "0ms", "--jitter", "0ms")
        self.addCleanup(stop, emulator)
        folder = tempfile.mkdtemp(prefix="agent-tools-py-store-")
        # the store only in the config file, written as Java reads it: a colon, a continued line, blanks around
        config = self.write("# the test's store\nAGENT_TOOLS_TRACKING_DB :  %s\\\n    %scalls.db  \n" % (folder, os.sep))
        env = tools_env(root, AGENT_TOOLS_CONFIG=config)
        del env["AGENT_TOOLS_TRACKING_DB"]
        tools = AgentToolsClient(env=env)
        missing = AgentToolsClient(command=NO_SERVER, fallback=GmailFallback(access_token="t", root_url=root))
        self.addCleanup(missing.close)

        @tracked_tool("config-agent", env=env)
        def list_emails(client, n):
            return client.list_emails(max_results=n, strategy="concurrent")

        self.assertEqual("concurrent", list_emails(tools, 2)["backend"], tools.last_error)
        self.assertEqual("python", list_emails(missing, 2)["backend"], missing.last_error)
        tools.close()
        recorder = tracking.default_recorder(env)
        self.assertTrue(recorder.flush(30))
        self.assertEqual((1, 0), (recorder.written, recorder.failed))
        rows = stats({"AGENT_TOOLS_CONFIG": config})
        self.assertEqual((1, 1), (rows[("gmail.list-emails", "concurrent")]["calls"], rows[("gmail.list-emails", "python")]["calls"]))
        self.assertTrue(os.path.exists(os.path.join(folder, "calls.db")))


class BadSettingTest(unittest.TestCase):
    """A bad tracking setting turns tracking off with one line on stderr; the calls go on as they would."""

    def setUp(self):
        saved = {k: os.environ.get(k) for k in ("AGENT_TOOLS_TRACKING", "AGENT_TOOLS_CONFIG")}
        self.addCleanup(lambda: [os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
                                 for k, v in saved.items()])
        tracking._default = None  # the process's recorder is read again from the environment below
        self.addCleanup(setattr, tracking, "_default", None)

    def test_a_bad_setting_costs_the_records_never_the_result_or_the_exception(self):
        os.environ["AGENT_TOOLS_TRACKING"] = "redis"

        @tracked_tool("agent")
        def answers():
            return {"answer": 42}

        @tracked_tool("agent")
        def raises():
            raise KeyError("its own")

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            for _ in range(3):
                self.assertEqual({"answer": 42}, answers())
                with self.assertRaisesRegex(KeyError, "its own"):
                    raises()
        lines = err.getvalue().splitlines()
        self.assertEqual(1, len(lines), lines)
        self.assertIn("call tracking is off: AGENT_TOOLS_TRACKING must be sqlite, dynamodb or none, got redis", lines[0])

    def test_an_unreadable_config_file_is_named(self):
        path = os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-config-"), "config.properties")
        with open(path, "w") as f:
            f.write("AGENT_TOOLS_TRACKING_DB=\\u12\n")
        os.environ["AGENT_TOOLS_CONFIG"] = path

        @tracked_tool("agent")
        def answers():
            return 1

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(1, answers())
        self.assertIn("call tracking is off: cannot read the config file %s: malformed \\uxxxx encoding" % path, err.getvalue())


class WhatIsRecordedTest(unittest.TestCase):
    """A row per call that Python answered or nobody did; python/ok only when the Python side answered."""

    def setUp(self):
        self.missing = AgentToolsClient(command=NO_SERVER, timeout=5)
        self.addCleanup(self.missing.close)

    def test_what_the_function_returns_after_a_failed_call_is_no_python_answer(self):
        recorder, store = keeping_recorder()
        for returned in ({"error": "agent-tools failed"}, [], "could not list the emails", None, {"backend": "python", "error": {}}):
            @tracked_tool("agent", recorder=recorder)
            def list_emails():
                self.assertIsNone(self.missing.list_emails(max_results=2))
                return returned

            self.assertEqual(returned, list_emails())
        self.assertTrue(recorder.flush(30))
        self.assertEqual([("gmail.list-emails", None, "error", "unavailable")] * 5, [(r[1], r[4], r[6], r[7]) for r in store.rows])

    def test_the_python_side_says_it_answered_by_its_answer_or_the_marker(self):
        recorder, store = keeping_recorder()

        @tracked_tool("agent", recorder=recorder)
        def by_shape():
            return self.missing.list_emails(max_results=2) or {"data": {"emails": [{}, {}]}, "backend": "python"}

        @tracked_tool("agent", recorder=recorder)
        def by_marker():
            if self.missing.search_emails("x") is None:
                self.assertTrue(answered_in_python({"emails": [{}, {}, {}]}))
            return ["three", "emails", "found"]

        by_shape()
        by_marker()
        self.assertFalse(answered_in_python(), "outside a tracked function there is nothing to mark")
        self.assertTrue(recorder.flush(30))
        self.assertEqual([("gmail.list-emails", "python", "ok", None, 2), ("gmail.search-emails", "python", "ok", None, 3)],
                         [(r[1], r[4], r[6], r[7], r[8]) for r in store.rows])

    def test_several_unanswered_calls_at_once_have_a_row_each(self):
        recorder, store = keeping_recorder()
        client = AsyncAgentToolsClient(command=NO_SERVER, timeout=5)

        @tracked_tool("agent", recorder=recorder)
        async def both():
            return await asyncio.gather(client.list_emails(max_results=1), client.get_email("00000000000000ab"))

        self.assertEqual([None, None], asyncio.run(both()))
        self.assertTrue(recorder.flush(30))
        self.assertEqual([("gmail.get-email", "unavailable"), ("gmail.list-emails", "unavailable")],
                         sorted((r[1], r[7]) for r in store.rows))


@unittest.skipIf(MISSING, MISSING)
class ManyCallsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator, cls.root = start_emulator("--latency", "0ms", "--jitter", "0ms")

    @classmethod
    def tearDownClass(cls):
        stop(cls.emulator)

    def test_a_fallback_answer_then_a_tools_answer_leaves_the_fallbacks_row(self):
        recorder, store = keeping_recorder()
        env = tools_env(self.root)
        tools = AgentToolsClient(env=env)
        self.addCleanup(tools.close)
        missing = AgentToolsClient(command=NO_SERVER, fallback=GmailFallback(access_token="t", root_url=self.root))
        self.addCleanup(missing.close)

        @tracked_tool("agent", recorder=recorder)
        def first_email():
            listed = missing.list_emails(max_results=2)
            self.assertEqual("python", listed["backend"], missing.last_error)
            return tools.get_email(listed["data"]["emails"][0]["id"])

        answer = first_email()
        self.assertNotIn(answer and answer["backend"], (None, "python"), tools.last_error)
        self.assertTrue(recorder.flush(30))
        self.assertEqual([("gmail.list-emails", "python", "ok", 2)], [(r[1], r[4], r[6], r[8]) for r in store.rows])

    def test_gathered_fallback_answers_have_a_row_each(self):
        recorder, store = keeping_recorder()
        client = AsyncAgentToolsClient(command=NO_SERVER, fallback=GmailFallback(access_token="t", root_url=self.root))

        @tracked_tool("agent", recorder=recorder)
        async def three():
            return await asyncio.gather(*(client.list_emails(max_results=n) for n in (1, 2, 3)))

        answers = asyncio.run(three())
        self.assertEqual(["python"] * 3, [a["backend"] for a in answers], client.last_error)
        self.assertTrue(recorder.flush(30))
        self.assertEqual([1, 2, 3], sorted(r[8] for r in store.rows if (r[1], r[4], r[6]) == ("gmail.list-emails", "python", "ok")))
        self.assertEqual(3, len(store.rows))

    def test_stats_counts_an_error_agent_tools_answered_and_the_fallbacks_answer_after_it(self):
        # agent-tools answers (Gmail at a closed port: "upstream", cannot connect, at once), Python then answers
        env = tools_env("http://127.0.0.1:%d" % closed_port())
        recorder = Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": env["AGENT_TOOLS_TRACKING_DB"]}))
        client = AgentToolsClient(env=env, fallback=GmailFallback(access_token="t", root_url=self.root))

        @tracked_tool("agent", recorder=recorder)
        def list_emails():
            return client.list_emails(max_results=2, timeout_ms=1500)

        answer = list_emails()
        self.assertEqual("python", answer["backend"])
        client.close()
        self.assertTrue(recorder.flush(30))
        rows = stats({"AGENT_TOOLS_TRACKING_DB": env["AGENT_TOOLS_TRACKING_DB"]})
        # two rows for the one call: agent-tools' error (no backend: shown under its strategy) and Python's answer
        tools_row, python_row, both = (rows[("gmail.list-emails", b)] for b in ("auto", "python", "all"))
        self.assertEqual((1, 1.0, 0.0), (tools_row["calls"], tools_row["error_rate"], tools_row["fallback_rate"]))
        self.assertEqual((1, 0.0, 1.0), (python_row["calls"], python_row["error_rate"], python_row["fallback_rate"]))
        # "all" counts rows (attempts): the agent saw one answered call, stats two attempts, one failed, one fallback
        self.assertEqual((2, 0.5, 0.5), (both["calls"], both["error_rate"], both["fallback_rate"]))
        with sqlite3.connect(env["AGENT_TOOLS_TRACKING_DB"]) as db:
            codes = sorted(db.execute("SELECT status, error_code, backend FROM calls"), key=str)
        self.assertEqual([("error", "upstream", None), ("ok", None, "python")], codes)


class ForkTest(unittest.TestCase):
    @unittest.skipUnless(hasattr(os, "fork"), "no os.fork here")
    def test_a_forked_child_writes_its_own_records_through_its_own_writer(self):
        path = os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-fork-"), "calls.db")
        recorder = Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_DB": path}))

        @tracked_tool("parent", recorder=recorder)
        def tool():
            return 1

        tool()
        self.assertTrue(recorder.flush(30))  # the parent's writer runs and its connection is open
        with warnings_off():
            pid = os.fork()
        if pid == 0:  # the child: its record must be written by a writer of its own, within the wait
            status = 1
            try:
                tracked_tool("child", recorder=recorder)(lambda: 2)()
                status = 0 if recorder.flush(10) and (recorder.written, recorder.failed) == (1, 0) else 3
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(0, os.waitstatus_to_exitcode(status), "the child's record was not written by the child")
        tool()  # the parent's writer and connection still work
        self.assertTrue(recorder.flush(30))
        with sqlite3.connect(path) as db:
            agents = sorted(a for (a,) in db.execute("SELECT agent_name FROM calls"))
        self.assertEqual(["child", "parent", "parent"], agents)


@contextlib.contextmanager
def warnings_off():
    """os.fork in a process with threads warns (Python 3.12+); this test forks on purpose."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


class ExitFlushTest(unittest.TestCase):
    def test_records_left_when_the_exit_flush_gives_up_are_counted_on_stderr(self):
        script = textwrap.dedent("""
            import threading
            from agent_tools import tracked_tool
            from agent_tools.tracking import Recorder, TrackingSettings

            class Stuck:
                def write(self, batch):
                    threading.Event().wait(60)

            recorder = Recorder(TrackingSettings.from_environment({"AGENT_TOOLS_TRACKING_FLUSH_MS": "300"}), store=Stuck())
            tool = tracked_tool("agent", recorder=recorder)(lambda: 1)
            for _ in range(3):
                tool()
        """)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual("agent-tools: 3 call records not written: the store did not take them within 300 ms at exit"
                         " (AGENT_TOOLS_TRACKING_FLUSH_MS)", done.stderr.strip())


DYNALITE = os.path.join(ROOT, "src", "test", "node", "node_modules", ".bin", "dynalite")


@unittest.skipIf(MISSING, MISSING)
class DynamoDbTest(unittest.TestCase):
    def test_stats_reads_the_python_rows_from_dynamodb(self):
        try:
            import boto3  # noqa: F401
        except ImportError as e:
            self.skipTest("the dynamodb extra is not installed (pip install './clients/python[dynamodb]'): %s" % e)
        if not os.path.exists(DYNALITE) or not shutil.which("node"):
            self.skipTest("dynalite is not installed (the build's npm install puts it in src/test/node/node_modules)")
        with socket.socket() as probe:  # dynalite takes no port 0: a port free a moment ago
            probe.bind(("127.0.0.1", 0))
            port = str(probe.getsockname()[1])
        dynalite = subprocess.Popen([DYNALITE, "--port", port], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(dynalite.wait, 30)
        self.addCleanup(dynalite.terminate)
        line = dynalite.stdout.readline()
        self.addCleanup(dynalite.stdout.close)
        self.assertTrue(line.strip().endswith(":" + port), "dynalite printed %r" % line)
        env = {"AGENT_TOOLS_TRACKING": "dynamodb", "AGENT_TOOLS_DYNAMODB_ENDPOINT": "http://127.0.0.1:%s" % port,
               "AGENT_TOOLS_DYNAMODB_TABLE": "py-calls", "AWS_REGION": "us-east-1",
               "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}
        saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
        os.environ.update({k: env[k] for k in saved})  # boto3 reads its credentials from the environment
        self.addCleanup(lambda: [os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v) for k, v in saved.items()])
        recorder = Recorder(TrackingSettings.from_environment(env))
        emulator, root = start_emulator("--latency", "0ms", "--jitter", "0ms")
        self.addCleanup(stop, emulator)
        client = AgentToolsClient(command=NO_SERVER, fallback=GmailFallback(access_token="t", root_url=root))
        self.addCleanup(client.close)

        @tracked_tool("py-agent", recorder=recorder)
        def search(query):
            return client.search_emails(query, max_results=2)

        self.assertEqual("python", search("has:attachment")["backend"])
        self.assertEqual("python", search("見積書")["backend"])
        self.assertTrue(recorder.flush(60))
        self.assertEqual((2, 0), (recorder.written, recorder.failed))
        row = stats(env)[("gmail.search-emails", "python")]
        self.assertEqual((2, 1.0), (row["calls"], row["fallback_rate"]))
        self.assertRegex(DynamoDbStore.item((1700000000123, "t", "a", 12.5, None, "auto", "ok", None, 0, "r"))["sk"]["S"],
                         r"^1700000000123#r#4029000000000000$")


if __name__ == "__main__":
    unittest.main()
