"""The agent-tools tools as LangChain structured tools, in one line (needs the `langchain` extra: langchain-core).

    from agent_tools import AgentToolsClient
    from agent_tools.langchain import toolkit
    tools = toolkit(AgentToolsClient(), agent_name="mail-agent")   # list_emails, search_emails, get_email, ...
    model = chat_model.bind_tools(tools)

The tools are the registry's own, read once from `tools.list` (every command with its JSON Schema), so a tool added
to agent-tools reaches the model without a change here. Each is named as the MCP server names it (`tools.list`'s
`name`: `list_emails`, `free_busy`, `log_habit`), a name OpenAI and Gemini accept as a function name.

What must not reach the model stays with the toolkit: `access_token`, `timeout_ms`, `strategy` and `agent_name`
are taken out of every schema the model sees and added to each call of a tool that has them. A tool call that sets
one of them anyway is refused (a model must not choose the account or the deadline).

A tool answers with `response_format="content_and_artifact"`: the content (what the model reads) is the answer's
data as compact JSON, the artifact the whole answer (`{"data", "backend", "duration_ms"}`). A failed call is an
error tool message (`status="error"`) whose text is agent-tools' error, code first, naming the param or the cause
(`invalid_argument: max_results must be 1..500, got 0`); never a stack trace.

The schemas are the registry's JSON Schemas as they are (the server checks every call against them and says what
is wrong), made portable on the way: a nullable type (`["number", "null"]`) is written as `anyOf`, as pydantic writes
an Optional field (langchain-google-genai 4.4 turns the list into STRING, and anyOf into a nullable NUMBER), and a schema with an untyped node (an object without properties, a free-form map, an
array without item type) is refused when the toolkit is made, naming the tool and the param, since Gemini and
OpenAI's strict mode reject them.

Thread safety: the tools share the client, which is thread-safe; a toolkit holds no other state once made. In an
async loop a tool's `ainvoke` runs the call on LangChain's thread pool, so calls made at once run at once.
"""

import copy
import inspect
import json
import re

__all__ = ["AgentToolsToolkit", "toolkit", "HIDDEN_SETTINGS"]

#: The params the toolkit sets and the model never sees.
HIDDEN_SETTINGS = ("access_token", "timeout_ms", "strategy", "agent_name")

_INSTALL = "pip install agent-tools[langchain]"
# What OpenAI accepts as a function name, and Gemini too when it starts with a letter or an underscore.
_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
# Seconds the client waits past the call's own deadline: the server answers `deadline` first, with its reason.
_CLIENT_SLACK_SECONDS = 5.0


def toolkit(client, **settings):
    """The tools of `client`'s registry as LangChain StructuredTools: `AgentToolsToolkit(client, ...).get_tools()`."""
    return AgentToolsToolkit(client, **settings).get_tools()


class AgentToolsToolkit:
    """The registry's tools as LangChain StructuredTools sharing one client, with the settings the model must not
    choose held here. Made once (it asks `tools.list` then); `get_tools()` gives the same tools each time."""

    def __init__(self, client, access_token=None, timeout_ms=None, strategy=None, agent_name=None, tools=None):
        """
        client: an AgentToolsClient (or anything with its call(command, params, timeout) and tools() and last_error)
        access_token: the Google access token every call is made with (default: the server's configured sign-in)
        timeout_ms: each call's deadline in milliseconds (default: the server's, 30,000)
        strategy: how lists are fetched: auto, sequential, concurrent or batch (default: auto)
        agent_name: who is calling, recorded with every call for `agent-tools stats`
        tools: the names of the tools to give (e.g. ["search_emails", "get_email"]; default: all)
        """
        if inspect.iscoroutinefunction(getattr(client, "tools", None)):
            raise TypeError("toolkit takes the sync AgentToolsClient (safe from LangChain's threads: in an async agent "
                            "loop LangChain runs these tools on its thread pool), not %s" % type(client).__name__)
        StructuredTool, ToolException = _langchain()
        self._client = client
        answer = client.tools()
        if answer is None:
            raise RuntimeError("cannot list the agent-tools tools (tools.list): %s" % client.last_error)
        specs = [spec for spec in answer["data"] if spec["command"] != "tools.list"]
        self._settings = {key: value for key, value in (("access_token", access_token), ("timeout_ms", timeout_ms),
                                                          ("strategy", strategy), ("agent_name", agent_name))
                          if value is not None}
        _check_settings(self._settings, specs)
        wait = None if timeout_ms is None else timeout_ms / 1000.0 + _CLIENT_SLACK_SECONDS
        named = {}
        for spec in specs:
            name = _tool_name(spec)
            if name in named:
                raise ValueError("%s and %s have one tool name, %s" % (named[name]["command"], spec["command"], name))
            named[name] = spec
        if tools is not None:
            unknown = [name for name in tools if name not in named]
            if unknown:
                raise ValueError("no agent-tools tool named %s; the tools are %s"
                                 % (", ".join(unknown), ", ".join(named)))
            named = {name: named[name] for name in tools}
        self._tools = [self._tool(StructuredTool, ToolException, name, spec, wait) for name, spec in named.items()]

    def get_tools(self):
        """The StructuredTools, in tools.list's order (a new list each time; the tools are shared)."""
        return list(self._tools)

    def _tool(self, StructuredTool, ToolException, name, spec, wait):
        command = spec["command"]
        schema = spec["params_schema"]
        properties = schema.get("properties", {})
        settings = {key: value for key, value in self._settings.items() if key in properties}
        hidden = [key for key in HIDDEN_SETTINGS if key in properties]
        client = self._client

        def run(**args):
            chosen = [key for key in hidden if key in args]
            if chosen:
                raise ToolException("invalid_argument: %s cannot be set by a tool call; the application sets it"
                                    % " and ".join(chosen))
            answer = client.call(command, dict(args, **settings), timeout=wait)
            if answer is None:
                raise ToolException(client.last_error or "%s failed without a reason" % command)
            return json.dumps(answer["data"], ensure_ascii=False, separators=(",", ":")), answer

        return StructuredTool(name=name, description=spec["description"], args_schema=_model_schema(name, schema),
                              func=run, response_format="content_and_artifact", handle_tool_error=True,
                              metadata={"agent_tools_command": command})


def _langchain():
    try:
        from langchain_core.tools import StructuredTool, ToolException
    except ImportError as e:
        raise ImportError("agent_tools.langchain needs langchain-core, which is not installed (%s): %s"
                          % (e, _INSTALL)) from e
    return StructuredTool, ToolException


def _tool_name(spec):
    name = spec.get("name") or re.sub(r"[^A-Za-z0-9_-]", "_", spec["command"])  # a server older than tools.list's name
    if not _TOOL_NAME.match(name):
        raise ValueError("the tool name %r of %s is not one models accept (letters, digits, _ and -, at most 64, "
                         "not starting with a digit or -)" % (name, spec["command"]))
    return name


def _check_settings(settings, specs):
    """Checks each held setting against the schemas of the tools that take it, once, here: a bad one would
    otherwise fail every call with an error the model cannot fix."""
    for key, value in settings.items():
        schemas = [spec["params_schema"]["properties"][key] for spec in specs
                   if key in spec["params_schema"].get("properties", {})]
        for schema in schemas:
            allowed = schema.get("enum")
            if allowed is not None and value not in allowed:
                raise ValueError("%s must be one of %s, got %r" % (key, ", ".join(allowed), value))
            if schema.get("type") == "integer":
                if not isinstance(value, int) or isinstance(value, bool):
                    raise ValueError("%s must be an integer, got %r" % (key, value))
                low, high = schema.get("minimum"), schema.get("maximum")
                if (low is not None and value < low) or (high is not None and value > high):
                    raise ValueError("%s must be %s..%s, got %r" % (key, low, high, value))
            if schema.get("type") == "string" and not isinstance(value, str):
                raise ValueError("%s must be a string, got %s" % (key, type(value).__name__))


def _model_schema(name, params_schema):
    """The schema the model sees: the params' JSON Schema without the held settings, made portable."""
    schema = copy.deepcopy(params_schema)
    schema.pop("description", None)  # "Params of ..."; LangChain puts the tool's description there
    for key in HIDDEN_SETTINGS:
        schema.get("properties", {}).pop(key, None)
    if "required" in schema:
        schema["required"] = [key for key in schema["required"] if key not in HIDDEN_SETTINGS]
    schema.setdefault("properties", {})
    _portable(schema, name, "params", top=True)
    return schema


def _portable(node, name, path, top=False):
    """Rewrites `node` in place so every provider's converter reads it, and refuses what they would reject."""
    kind = node.get("type")
    if isinstance(kind, list):
        # ["number", "null"]: Gemini's converter reads one type (a list becomes STRING), so the null becomes anyOf's
        # second branch, as pydantic writes an Optional field; the constraints go with the non-null type
        others = [k for k in kind if k != "null"]
        if len(others) != 1 or len(kind) != 2:
            raise ValueError("the schema of %s at %s has types %s; one type, or one and null, is portable"
                             % (name, path, kind))
        branch = {key: node.pop(key) for key in list(node) if key not in ("description", "default", "title")}
        branch["type"] = others[0]
        _portable(branch, name, path)
        node["anyOf"] = [branch, {"type": "null"}]
        return
    if "anyOf" in node:
        for i, branch in enumerate(node["anyOf"]):
            _portable(branch, name, "%s.anyOf[%d]" % (path, i))
        return
    if kind is None:
        raise ValueError("the schema of %s at %s has no type; models' function schemas need one" % (name, path))
    if kind == "object":
        properties = node.get("properties")
        if not properties and not top:
            raise ValueError("the schema of %s at %s is an object without properties; models' function schemas "
                             "need typed fields" % (name, path))
        extra = node.get("additionalProperties", False)
        if extra is not False:
            raise ValueError("the schema of %s at %s allows untyped fields (additionalProperties %s)"
                             % (name, path, json.dumps(extra)))
        for key, sub in (properties or {}).items():
            _portable(sub, name, "%s.%s" % (path, key))
    elif kind == "array":
        if "items" not in node:
            raise ValueError("the schema of %s at %s is an array without an item type" % (name, path))
        _portable(node["items"], name, "%s[]" % path)
