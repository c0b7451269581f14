"""A small agent's tool bridge, as the article built it: the tools answer through agent-tools (one persistent
`serve --stdio`, fetched in parallel), and when agent-tools is missing or fails, the original Python implementation
answers instead (the package's GmailFallback: one Gmail call after another, as the article's Python did), in the
same shape. Every call is tracked (@tracked_tool): agent-tools records the calls it answered, the decorator the ones
Python answered, into the same store, so `agent-tools stats` shows the fallback rate beside the tools' own rows.
Each call also says on stderr which path answered and how long it took.

    python3 agent.py            # lists the 5 newest emails, reads the newest, then reads it 3 times one process a call

Environment: AGENT_TOOLS_COMMAND (default: the image's launcher, serve --stdio), AGENT_TOOLS_LAUNCHER (the launcher
the one-process-a-call reads run), AGENT_TOOLS_GMAIL_ROOT_URL and AGENT_TOOLS_ACCESS_TOKEN (read by agent-tools, and
by the fallback), and agent-tools' tracking settings (AGENT_TOOLS_TRACKING_DB, XDG_DATA_HOME, ...), read alike by
both. Needs the client package with its fallback extra: pip install './clients/python[fallback]'.
"""
import json
import os
import shlex
import subprocess
import sys
import time

from agent_tools import AgentToolsClient, tracked_tool
from agent_tools.fallback import GET, GmailFallback

AGENT = "python-agent"
LAUNCHER = os.environ.get("AGENT_TOOLS_LAUNCHER", "/opt/agent-tools/agent-tools")
# the installed launcher runs the runtime beside it with the image's JVM options, and the AOT cache when the image has one
DEFAULT_COMMAND = shlex.quote(LAUNCHER) + " serve --stdio"
TIMEOUT = 30.0

# the article's original Python implementation, kept as the fallback: answers in the tools' own shape
FALLBACK = GmailFallback.from_environment()
TOOLS = AgentToolsClient(command=shlex.split(os.environ.get("AGENT_TOOLS_COMMAND", DEFAULT_COMMAND)),
                         timeout=TIMEOUT, fallback=FALLBACK)


def say(name, answer, started):
    """Which path answered (agent-tools and its backend, or python) and how long the call took, on stderr."""
    backend = "python" if answer is None or answer["backend"] == "python" else "agent-tools (%s)" % answer["backend"]
    print("%-12s %-26s %7.1f ms" % (name, backend, (time.monotonic() - started) * 1000), file=sys.stderr)


@tracked_tool(AGENT)
def list_emails(max_results):
    """The tools, else the client's Python fallback (recorded under gmail.list-emails, backend python)."""
    return TOOLS.list_emails(max_results=max_results)


@tracked_tool(AGENT)
def get_email(message_id):
    return TOOLS.get_email(message_id)


def call_once(command, params):
    """One tool call in a process of its own, as the article's agent spawns its Go binary: the launcher forwards it to
    its resident server (started on the first call), so later calls cost a shell start plus the call. agent-tools
    records the call itself (agent_name is sent). The answer in the clients' shape, or None."""
    request = json.dumps({"command": command, "params": dict(params, agent_name=AGENT)})
    try:
        done = subprocess.run([LAUNCHER, "call"], input=request, capture_output=True, text=True, timeout=TIMEOUT + 5)
        answer = json.loads(done.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if not isinstance(answer, dict) or answer.get("status") != "ok":
        return None
    meta = answer.get("meta") or {}
    return {"data": answer.get("data"), "backend": meta.get("backend"), "duration_ms": meta.get("duration_ms")}


@tracked_tool(AGENT, tool=GET)
def get_email_in_python(message_id):
    """The fallback of a one-process call: a Python tool of its own, recorded as gmail.get-email, backend python
    (an error it answers is recorded as an error of the Python path)."""
    answer = FALLBACK.answer(GET, {"message_id": message_id}, TIMEOUT)
    if "error" in answer:
        raise RuntimeError("python fallback: %s: %s" % (answer["error"]["code"], answer["error"]["message"]))
    return answer


def main():
    with TOOLS:
        started = time.monotonic()
        listed = list_emails(5)
        say("list_emails", listed, started)
        if listed is None:
            sys.exit("list_emails failed: %s" % TOOLS.last_error)
        for email in listed["data"]["emails"]:
            print("%s  %s" % (email["id"], email.get("subject", "")))
        if not listed["data"]["emails"]:
            return
        newest = listed["data"]["emails"][0]["id"]
        started = time.monotonic()
        detail = get_email(newest)
        say("get_email", detail, started)
        if detail is None:
            sys.exit("get_email failed: %s" % TOOLS.last_error)
        print("newest:", detail["data"].get("subject") or detail["data"].get("snippet", ""))
        # the article's way: a process per call (the first starts the launcher's resident server)
        for _ in range(3):
            started = time.monotonic()
            try:
                answer = call_once(GET, {"message_id": newest}) or get_email_in_python(newest)
            except RuntimeError as e:
                sys.exit("get_email/call failed: %s" % e)
            say("get_email/call", answer, started)
            print("newest again:", answer["data"].get("subject") or answer["data"].get("snippet", ""))


if __name__ == "__main__":
    main()
