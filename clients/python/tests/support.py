"""What the Python tests share: the repository's launcher, an environment isolated from the developer's own set-up,
and an emulator on a free port. Run from the repository root after a build: scripts/build/python-tests (or
python3 -m unittest discover -s clients/python/tests -v with the package importable)."""

import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
LAUNCHER = os.path.join(ROOT, "agent-tools")

try:
    import agent_tools  # noqa: F401  (installed: pip install ./clients/python)
except ImportError:
    sys.path.insert(0, os.path.join(HERE, ".."))  # the source folder, when run without installing

# The processes these tests start never see the developer's own set-up: no AGENT_TOOLS_* from the shell, and a
# private home with an empty config file (so a ~/.config/agent-tools/config.properties cannot reach them).
HOME = tempfile.mkdtemp(prefix="agent-tools-py-home-")
open(os.path.join(HOME, "config.properties"), "w").close()
for _key in [k for k in os.environ if k.startswith("AGENT_TOOLS_") or k.startswith("XDG_")]:
    del os.environ[_key]
# the clients' default server: this checkout's launcher (an installed package does not sit in the checkout)
os.environ.update({"AGENT_TOOLS_COMMAND": "%s serve --stdio" % shlex.quote(LAUNCHER),
                   "AGENT_TOOLS_CONFIG": os.path.join(HOME, "config.properties"),
                   "XDG_CONFIG_HOME": os.path.join(HOME, ".config"),
                   "XDG_DATA_HOME": os.path.join(HOME, ".local", "share"),
                   # the JVMs these tests start (emulators, serve, the launcher's server) compile with C1 only: C2's
                   # compiles are seconds of CPU each that a test's few calls never earn back (the suite shares two
                   # cores with the JUnit tests, the container test and the scale test)
                   "AGENT_TOOLS_JAVA_OPTS": "-XX:TieredStopAtLevel=1"})


def start_emulator(*flags):
    """An emulator on a free port: (its process, its root URL)."""
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


def tools_env(root_url, **more):
    """Server variables for the emulator at root_url, with stores of the test's own."""
    env = {"AGENT_TOOLS_GMAIL_ROOT_URL": root_url, "AGENT_TOOLS_CALENDAR_ROOT_URL": root_url,
           "AGENT_TOOLS_ACCESS_TOKEN": "python-token",
           "AGENT_TOOLS_TRACKING_DB": os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-"), "calls.db"),
           "AGENT_TOOLS_HABIT_DB": os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-habits-"), "habits.db"),
           # the backends these tests check are the fetch strategies'; the index has its own test
           "AGENT_TOOLS_CACHE": "off"}
    env.update(more)
    return env


# the server command the clients start in these tests: this checkout's launcher
SERVE = [LAUNCHER, "serve", "--stdio"]
# the LangChain tests' name for it
server_env = tools_env


def stand_in(*flags):
    """The command line of a misbehaving stand-in for serve --stdio (stand_in_server.py says what it can do)."""
    return [sys.executable, os.path.join(HERE, "stand_in_server.py"), *flags]
