"""A small agent's tool bridge, as the article built it: the tools answer through agent-tools (one persistent
`serve --stdio`, fetched in parallel), and when agent-tools is missing or fails, the original Python implementation
answers instead (one Gmail call after another, as the article's Python did). Every call says which path answered
and how long it took, so the fallback rate shows.

    python3 agent.py            # lists the 5 newest emails, reads the newest, then reads it 3 times one process a call

Environment: AGENT_TOOLS_COMMAND (default: the image's launcher, serve --stdio), AGENT_TOOLS_GMAIL_ROOT_URL and
AGENT_TOOLS_ACCESS_TOKEN (read by agent-tools, and by the fallback).
"""
import json
import os
import shlex
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agent_tools_client import AgentToolsClient  # noqa: E402  (copied beside this file by the Containerfile)

LAUNCHER = os.environ.get("AGENT_TOOLS_LAUNCHER", "/opt/agent-tools/agent-tools")
# the installed launcher runs the runtime beside it with the image's JVM options, and the AOT cache when the image has one
DEFAULT_COMMAND = shlex.quote(LAUNCHER) + " serve --stdio"
ROOT = os.environ.get("AGENT_TOOLS_GMAIL_ROOT_URL", "https://gmail.googleapis.com/")
TOKEN = os.environ.get("AGENT_TOOLS_ACCESS_TOKEN", "")


def _gmail(path, **query):
    """One Gmail REST call, as the original Python tools made them."""
    url = urllib.parse.urljoin(ROOT, "gmail/v1/users/me/" + path) + "?" + urllib.parse.urlencode(query)
    request = urllib.request.Request(url, headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def list_emails_in_python(max_results):
    """The fallback: messages.list, then each message one after another (the N+1 the article measured)."""
    listed = _gmail("messages", maxResults=max_results, labelIds="INBOX").get("messages", [])
    emails = []
    for ref in listed:
        message = _gmail("messages/" + ref["id"], format="metadata", metadataHeaders="Subject")
        headers = {h["name"].lower(): h["value"] for h in message.get("payload", {}).get("headers", [])}
        emails.append({"id": message["id"], "subject": headers.get("subject", "(no subject)")})
    return {"emails": emails}


def call_once(command, params):
    """One tool call in a process of its own, as the article's agent spawns its Go binary: the launcher forwards it to
    its resident server (started on the first call), so later calls cost a shell start plus the call."""
    request = json.dumps({"command": command, "params": params})
    try:
        done = subprocess.run([LAUNCHER, "call"], input=request, capture_output=True, text=True, timeout=60)
        answer = json.loads(done.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if answer.get("status") != "ok":
        return None
    return {"data": answer["data"], "backend": answer["meta"]["backend"]}


def tracked(name, fast, fallback):
    """Runs the tool on agent-tools, else on the fallback; prints which answered and how long it took."""
    start = time.monotonic()
    answer = fast()
    backend = "agent-tools (%s)" % answer["backend"] if answer else "python"
    data = answer["data"] if answer else fallback()
    print("%-12s %-26s %7.1f ms" % (name, backend, (time.monotonic() - start) * 1000), file=sys.stderr)
    return data


def main():
    command = shlex.split(os.environ.get("AGENT_TOOLS_COMMAND", DEFAULT_COMMAND))
    with AgentToolsClient(command=command) as tools:
        listed = tracked("list_emails", lambda: tools.list_emails(max_results=5, agent_name="python-agent"),
                         lambda: list_emails_in_python(5))
        for email in listed["emails"]:
            print("%s  %s" % (email["id"], email.get("subject", "")))
        if listed["emails"]:
            newest = listed["emails"][0]["id"]
            detail = tracked("get_email", lambda: tools.get_email(newest, agent_name="python-agent"),
                             lambda: _gmail("messages/" + newest, format="full"))
            print("newest:", detail.get("subject") or detail.get("snippet", ""))
            # the article's way: a process per call (the first starts the launcher's resident server)
            for attempt in range(3):
                tracked("get_email/call", lambda: call_once("gmail.get-email", {"message_id": newest, "agent_name": "python-agent"}),
                        lambda: _gmail("messages/" + newest, format="full"))


if __name__ == "__main__":
    main()
