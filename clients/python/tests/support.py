"""What the Python tests share: the repository's launcher, an environment that never sees the developer's own
set-up, and the Gmail/Calendar emulator on a free port.

Importing this module isolates the process: no AGENT_TOOLS_* or XDG_* from the shell, and a private home with an
empty config file (so a ~/.config/agent-tools/config.properties cannot reach the servers the tests start).
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
LAUNCHER = os.path.join(ROOT, "agent-tools")
SERVE = [LAUNCHER, "serve", "--stdio"]

try:
    import agent_tools  # noqa: F401  (installed: pip install ./clients/python)
except ImportError:  # run from the source tree without installing
    sys.path.insert(0, os.path.join(ROOT, "clients", "python"))

_HOME = tempfile.mkdtemp(prefix="agent-tools-py-home-")
open(os.path.join(_HOME, "config.properties"), "w").close()
for _key in [k for k in os.environ if k.startswith("AGENT_TOOLS_") or k.startswith("XDG_")]:
    del os.environ[_key]
os.environ.update({"AGENT_TOOLS_CONFIG": os.path.join(_HOME, "config.properties"),
                   "XDG_CONFIG_HOME": os.path.join(_HOME, ".config"),
                   "XDG_DATA_HOME": os.path.join(_HOME, ".local", "share")})


def start_emulator(*flags):
    """Starts `agent-tools emulator --port 0 FLAGS...`; returns the process and its root URL."""
    process = subprocess.Popen([LAUNCHER, "emulator", "--port", "0", *flags], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("emulator listening on "):
        process.kill()
        raise RuntimeError("the emulator did not start: %r" % line)
    return process, line[len("emulator listening on "):]


def stop(process):
    process.terminate()
    process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()


def server_env(root_url, **extra):
    """The environment of a server whose Google is the emulator at root_url, with its own habit and tracking
    files and no local mail index (the backends the tests check are the fetch strategies')."""
    env = {"AGENT_TOOLS_GMAIL_ROOT_URL": root_url, "AGENT_TOOLS_CALENDAR_ROOT_URL": root_url,
           "AGENT_TOOLS_ACCESS_TOKEN": "python-token",
           "AGENT_TOOLS_TRACKING_DB": os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-"), "calls.db"),
           "AGENT_TOOLS_HABIT_DB": os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-habits-"), "habits.db"),
           "AGENT_TOOLS_CACHE": "off"}
    env.update(extra)
    return env
