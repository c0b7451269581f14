"""Tests of agent_tools.langchain against a real `agent-tools serve --stdio` and the Gmail/Calendar emulator.

Run from the repository root after a build, where langchain-core is installed (pip install ./clients/python[langchain]):
python3 -m unittest discover -s clients/python/tests -v. Where langchain-core cannot be imported, the tests that need
it are skipped with the reason; the one that checks the message a user without it gets runs everywhere.
"""

import asyncio
import json
import os
import re
import sqlite3
import subprocess
import sys
import unittest

import support  # noqa: F401  (first: isolates the environment and finds agent_tools)
from support import LAUNCHER, SERVE, server_env, start_emulator, stop

from agent_tools import AgentToolsClient

try:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.messages.tool import tool_call
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from agent_tools.langchain import HIDDEN_SETTINGS, AgentToolsToolkit, toolkit
    NO_LANGCHAIN = None
except ImportError as e:
    NO_LANGCHAIN = "langchain-core is not importable here (%s); install it with pip install ./clients/python[langchain]" % e

try:
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    NO_CHAT_MODEL = None
except ImportError as e:
    NO_CHAT_MODEL = "langchain_core's chat models are not importable here (%s)" % e

# OpenAI's function names, which Gemini also takes when the first character is a letter or an underscore
FUNCTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


def untyped_nodes(node, path="parameters", top=True):
    """Every place in a JSON Schema a model provider would find untyped: no type, an object without properties (but
    the parameters of a tool that takes none), a free-form map, an array without typed items."""
    found = []
    if "anyOf" in node:
        if not node["anyOf"]:
            found.append(path + " (empty anyOf)")
        for i, branch in enumerate(node["anyOf"]):
            found += untyped_nodes(branch, "%s.anyOf[%d]" % (path, i), top=False)
        return found
    kind = node.get("type")
    if not isinstance(kind, str):
        return found + ["%s (type %r)" % (path, kind)]
    if kind == "object":
        properties = node.get("properties")
        if not isinstance(properties, dict) or (not properties and not top):
            found.append(path + " (object without properties)")
        if node.get("additionalProperties", False) is not False:
            found.append(path + " (additionalProperties %r)" % (node["additionalProperties"],))
        for key, sub in (properties or {}).items():
            found += untyped_nodes(sub, "%s.%s" % (path, key), top=False)
    elif kind == "array":
        if not isinstance(node.get("items"), dict):
            found.append(path + " (array without items)")
        else:
            found += untyped_nodes(node["items"], path + "[]", top=False)
    return found


class ScriptedModel:
    """A chat model that answers from a script: each step is a function of the conversation so far returning the
    next AIMessage (so a step can use what a tool answered, as a model reads it: the tool message's content)."""

    def __init__(self, *steps):
        self._steps = list(steps)

    def invoke(self, messages):
        return self._steps.pop(0)(messages)


def run_agent(model, tools, question, max_turns=5):
    """The agent loop LangGraph's ToolNode runs: ask the model, run the tool calls it makes, give it their answers,
    until it answers without a tool call. Returns the conversation."""
    by_name = {tool.name: tool for tool in tools}
    messages = [HumanMessage(question)]
    for _ in range(max_turns):
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return messages
        messages += [by_name[call["name"]].invoke(call) for call in reply.tool_calls]
    raise AssertionError("the agent did not finish in %d turns" % max_turns)


class WithoutLangChainTest(unittest.TestCase):
    def test_the_toolkit_names_what_to_install_when_langchain_core_is_missing(self):
        import agent_tools
        script = ("import sys\n"
                  "sys.modules['langchain_core'] = None  # what an interpreter without langchain-core imports\n"
                  "from agent_tools.langchain import toolkit\n"
                  "try:\n"
                  "    toolkit(None)\n"
                  "except ImportError as e:\n"
                  "    print(e)\n")
        path = os.path.dirname(os.path.dirname(os.path.abspath(agent_tools.__file__)))
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=path))
        self.assertEqual("", done.stderr)
        self.assertIn("agent_tools.langchain needs langchain-core", done.stdout)
        self.assertIn("pip install agent-tools[langchain]", done.stdout)


    def test_the_async_client_is_refused_saying_which_client_to_give(self):
        from agent_tools import AsyncAgentToolsClient
        from agent_tools.langchain import toolkit as make
        with self.assertRaises(TypeError) as refused:
            make(AsyncAgentToolsClient(command=["/nonexistent/agent-tools", "serve", "--stdio"]))
        self.assertIn("toolkit takes the sync AgentToolsClient", str(refused.exception))
        self.assertIn("AsyncAgentToolsClient", str(refused.exception))


@unittest.skipIf(NO_LANGCHAIN, NO_LANGCHAIN or "")
class LangChainToolsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator, cls.root_url = start_emulator("--latency", "20ms", "--jitter", "0ms")
        cls.client = AgentToolsClient(command=SERVE, env=server_env(cls.root_url))
        cls.tools = toolkit(cls.client)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        stop(cls.emulator)

    def tool(self, name, tools=None):
        return next(t for t in (tools or self.tools) if t.name == name)

    def test_every_command_of_the_registry_is_a_tool_named_as_the_mcp_server_names_it(self):
        commands = [t["command"] for t in self.client.tools()["data"] if t["command"] != "tools.list"]
        self.assertEqual(commands, [t.metadata["agent_tools_command"] for t in self.tools])
        self.assertEqual(self.mcp_tool_names(), [t.name for t in self.tools])
        self.assertIn("list_emails", [t.name for t in self.tools])
        for tool in self.tools:
            self.assertRegex(tool.name, FUNCTION_NAME)

    def mcp_tool_names(self):
        mcp = subprocess.Popen([LAUNCHER, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, **server_env(self.root_url)))
        requests = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "test_langchain", "version": "1"}}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
        out, _ = mcp.communicate("".join(json.dumps(r) + "\n" for r in requests), timeout=120)
        listed = next(a for a in map(json.loads, out.splitlines()) if a.get("id") == 2)
        return [t["name"] for t in listed["result"]["tools"]]

    def test_every_schema_converts_for_openai_without_an_untyped_node(self):
        for tool in self.tools:
            with self.subTest(tool=tool.name):
                function = convert_to_openai_tool(tool)["function"]
                self.assertEqual(tool.name, function["name"])
                self.assertTrue(function["description"])
                self.assertEqual("object", function["parameters"]["type"])
                self.assertEqual([], untyped_nodes(function["parameters"]))
                json.dumps(function)  # plain JSON

    def test_the_schemas_keep_what_the_registry_says_of_each_param(self):
        def params(name):
            return convert_to_openai_tool(self.tool(name))["function"]["parameters"]

        self.assertEqual(["query"], params("search_emails")["required"])
        self.assertEqual(["message_id"], params("get_email")["required"])
        self.assertEqual({"type": "integer", "minimum": 1, "maximum": 500, "default": 10},
                         {k: v for k, v in params("list_emails")["properties"]["max_results"].items() if k != "description"})
        self.assertEqual(["auto", "off", "refresh"], params("list_emails")["properties"]["cache"]["enum"])
        days = params("create_habit")["properties"]["days"]
        self.assertEqual("array", days["type"])
        self.assertEqual({"type": "string", "enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]}, days["items"])
        self.assertEqual({"type": "string", "minLength": 1, "maxLength": 512},
                         params("list_events")["properties"]["calendar_ids"]["items"])
        # a nullable param ("null clears it") as anyOf, which every provider's converter reads
        target = params("update_habit")["properties"]["target_amount"]
        self.assertEqual([{"type": "number", "minimum": 0, "maximum": 1e9}, {"type": "null"}], target["anyOf"])
        self.assertIn("null clears it", target["description"])
        self.assertIn("from", params("habit_history")["properties"])  # a Python keyword, kept as the registry names it

    def test_the_settings_the_toolkit_holds_are_in_no_schema_the_model_sees(self):
        held = AgentToolsToolkit(self.client, access_token="lc-token", timeout_ms=20000, strategy="batch",
                                 agent_name="lc").get_tools()
        for tools in (self.tools, held):
            for tool in tools:
                parameters = convert_to_openai_tool(tool)["function"]["parameters"]
                for key in HIDDEN_SETTINGS:
                    self.assertNotIn(key, parameters["properties"], tool.name)
                    self.assertNotIn(key, parameters.get("required", []), tool.name)
                    self.assertNotIn(key, tool.args, tool.name)
        registry = {t["name"]: t["params_schema"].get("properties", {}) for t in self.client.tools()["data"]}
        self.assertIn("strategy", registry["list_emails"])  # so the test above looked where they were
        self.assertIn("access_token", registry["log_habit"])

    def test_the_settings_the_toolkit_holds_reach_every_call(self):
        env = server_env(self.root_url)
        del env["AGENT_TOOLS_ACCESS_TOKEN"]  # the toolkit's token or nothing
        client = AgentToolsClient(command=SERVE, env=env)
        self.addCleanup(client.close)
        tools = toolkit(client, access_token="lc-token", strategy="batch", agent_name="langchain-test", timeout_ms=20000)
        listed = self.tool("list_emails", tools).invoke(tool_call(name="list_emails", args={"max_results": 3}, id="c1"))
        self.assertEqual("success", listed.status, listed.content)
        self.assertEqual("batch", listed.artifact["backend"])
        events = self.tool("list_events", tools).invoke(tool_call(name="list_events", args={"time_min": "2026-06-02"}, id="c2"))
        self.assertEqual("batch", events.artifact["backend"], events.content)
        email_id = listed.artifact["data"]["emails"][0]["id"]
        email = self.tool("get_email", tools).invoke(tool_call(name="get_email", args={"message_id": email_id}, id="c3"))
        self.assertEqual("success", email.status, email.content)

        # the same server with a toolkit that holds nothing: no token, the fast strategy
        bare = toolkit(client)
        refused = self.tool("list_emails", bare).invoke(tool_call(name="list_emails", args={"max_results": 3}, id="c4"))
        self.assertEqual("error", refused.status)
        self.assertTrue(refused.content.startswith("unauthenticated: not signed in"), refused.content)
        auto = toolkit(self.client)  # the class's server has a token of its own
        fast = self.tool("list_emails", auto).invoke(tool_call(name="list_emails", args={"max_results": 3}, id="c5"))
        self.assertNotEqual("batch", fast.artifact["backend"])

        client.close()  # the server flushes its call records as it exits
        with sqlite3.connect(env["AGENT_TOOLS_TRACKING_DB"]) as db:
            rows = db.execute("SELECT tool_name, agent_name, status FROM calls ORDER BY ts_ms").fetchall()
        self.assertIn(("gmail.list-emails", "langchain-test", "ok"), rows)
        self.assertIn(("calendar.list-events", "langchain-test", "ok"), rows)
        self.assertIn(("gmail.get-email", "langchain-test", "ok"), rows)
        self.assertEqual(3, sum(1 for row in rows if row[1] == "langchain-test"), rows)

    def test_the_toolkits_deadline_bounds_each_call(self):
        slow, url = start_emulator("--latency", "3s", "--handshake", "0ms")
        self.addCleanup(stop, slow)
        client = AgentToolsClient(command=SERVE, env=server_env(url))
        self.addCleanup(client.close)
        tools = toolkit(client, timeout_ms=1000)
        late = self.tool("list_emails", tools).invoke(tool_call(name="list_emails", args={"max_results": 2}, id="d1"))
        self.assertEqual("error", late.status)
        self.assertTrue(late.content.startswith("deadline: gmail.list-emails: deadline of 1000 ms exceeded"), late.content)

    def test_a_tool_call_cannot_set_what_the_toolkit_holds(self):
        for args in ({"access_token": "stolen"}, {"strategy": "sequential", "max_results": 2}, {"timeout_ms": 100000}):
            with self.subTest(args=args):
                message = self.tool("list_emails").invoke(tool_call(name="list_emails", args=args, id="h1"))
                self.assertEqual("error", message.status)
                self.assertEqual("invalid_argument: %s cannot be set by a tool call; the application sets it"
                                 % [k for k in args if k in HIDDEN_SETTINGS][0], message.content)

    def test_a_bad_setting_or_tool_name_is_refused_when_the_toolkit_is_made(self):
        with self.assertRaisesRegex(ValueError, r"^strategy must be one of auto, sequential, concurrent, batch, got 'fastest'$"):
            toolkit(self.client, strategy="fastest")
        with self.assertRaisesRegex(ValueError, r"^timeout_ms must be 100\.\.300000, got 50$"):
            toolkit(self.client, timeout_ms=50)
        with self.assertRaisesRegex(ValueError, r"^no agent-tools tool named send_email; the tools are list_emails, "):
            toolkit(self.client, tools=["get_email", "send_email"])
        self.assertEqual(["search_emails", "get_email"],
                         [t.name for t in toolkit(self.client, tools=["search_emails", "get_email"])])

    def test_a_scripted_agent_reads_mail_and_events_and_is_told_what_it_got_wrong(self):
        def search_and_list(messages):
            return AIMessage("", tool_calls=[
                tool_call(name="search_emails", args={"query": "見積書", "max_results": 1}, id="s1"),
                tool_call(name="list_events", args={"time_min": "2026-06-02"}, id="e1")])

        def read_the_email_and_ask_badly(messages):
            found = json.loads(messages[-2].content)  # as a model reads it: the content, not the artifact
            return AIMessage("", tool_calls=[
                tool_call(name="get_email", args={"message_id": found["emails"][0]["id"]}, id="g1"),
                tool_call(name="list_emails", args={"max_results": 0}, id="l1"),
                tool_call(name="get_event", args={"calendar_id": "primary"}, id="v1")])

        conversation = run_agent(ScriptedModel(search_and_list, read_the_email_and_ask_badly,
                                               lambda messages: AIMessage("The quote came; your day has 3 events.")),
                                 self.tools, "Did the quote come, and what is on 2 June?")
        answers = {m.tool_call_id: m for m in conversation if isinstance(m, ToolMessage)}
        self.assertEqual(["s1", "e1", "g1", "l1", "v1"], list(answers))
        for call_id in ("s1", "e1", "g1"):
            answer = answers[call_id]
            self.assertEqual("success", answer.status, answer.content)
            self.assertEqual(json.dumps(answer.artifact["data"], ensure_ascii=False, separators=(",", ":")),
                             answer.content)  # compact JSON of the data; the whole answer is the artifact
            self.assertEqual({"data", "backend", "duration_ms"}, set(answer.artifact))
        self.assertIn("見積書", answers["g1"].content)
        self.assertEqual("get_email", answers["g1"].name)
        self.assertEqual(["On-call: platform", "Daily stand-up", "Gym"],
                         [e["summary"] for e in json.loads(answers["e1"].content)["events"]])

        bad = answers["l1"]
        self.assertEqual("error", bad.status)
        self.assertEqual("invalid_argument: max_results must be 1..500, got 0 (number)", bad.content)
        self.assertIsNone(bad.artifact)
        missing = answers["v1"]
        self.assertEqual("error", missing.status)
        self.assertTrue(missing.content.startswith("invalid_argument:"), missing.content)
        self.assertIn("event_id", missing.content)
        for message in (bad, missing):
            self.assertNotIn("Traceback", message.content)
        self.assertEqual("The quote came; your day has 3 events.", conversation[-1].content)

    def test_the_tools_answer_in_an_async_loop_calls_at_once(self):
        async def both():
            return await asyncio.gather(
                self.tool("list_emails").ainvoke(tool_call(name="list_emails", args={"max_results": 4}, id="a1")),
                self.tool("list_calendars").ainvoke(tool_call(name="list_calendars", args={}, id="a2")))

        emails, calendars = asyncio.run(both())
        self.assertEqual(4, len(json.loads(emails.content)["emails"]))
        self.assertEqual("me@example.com", json.loads(calendars.content)["calendars"][0]["id"])

    @unittest.skipIf(NO_CHAT_MODEL, NO_CHAT_MODEL or "")
    def test_the_loop_runs_the_same_with_langchains_fake_chat_model(self):
        model = FakeMessagesListChatModel(responses=[
            AIMessage("", tool_calls=[tool_call(name="list_emails", args={"max_results": 2}, id="f1"),
                                      tool_call(name="log_habit", args={"habit": "no such habit"}, id="f2")]),
            AIMessage("Two emails; that habit does not exist.")])
        conversation = run_agent(model, self.tools, "Anything new? And log my no such habit.")
        listed, logged = [m for m in conversation if isinstance(m, ToolMessage)]
        self.assertEqual("success", listed.status, listed.content)
        self.assertEqual(2, len(json.loads(listed.content)["emails"]))
        self.assertEqual("error", logged.status)
        self.assertTrue(logged.content.startswith("not_found:"), logged.content)


@unittest.skipIf(NO_LANGCHAIN, NO_LANGCHAIN or "")
class UntypedSchemaTest(unittest.TestCase):
    def test_a_param_a_model_could_not_type_is_refused_naming_the_tool_and_the_param(self):
        cases = [({"type": "object"}, "params.filters is an object without properties"),
                 ({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
                  "params.filters allows untyped fields"),
                 ({"type": "array"}, "params.filters is an array without an item type"),
                 ({"type": "array", "items": {"type": "object", "properties": {"x": {}}}}, "params.filters[].x has no type"),
                 ({"description": "anything"}, "params.filters has no type")]
        for schema, message in cases:
            with self.subTest(schema=schema):
                listing = ListedTools({"type": "object", "properties": {"filters": schema}, "additionalProperties": False})
                with self.assertRaisesRegex(ValueError, "^the schema of find_things at " + re.escape(message)):
                    toolkit(listing)


class ListedTools:
    """A client whose registry lists one tool, find_things, with the params schema given (nothing is called)."""

    last_error = None

    def __init__(self, params_schema):
        self._listing = {"data": [{"command": "things.find", "name": "find_things", "description": "Finds things.",
                                   "params_schema": params_schema}], "backend": "registry", "duration_ms": 0.0}

    def tools(self, timeout=None):
        return self._listing

    def call(self, command, params=None, timeout=None):
        raise AssertionError("nothing is called when a toolkit is made")


if __name__ == "__main__":
    unittest.main()
