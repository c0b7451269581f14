"""Which launcher the clients run by default (agent_tools._launcher): only one they can trust. The package is copied
where pip --target or an unpacked wheel would put it, beside launchers planted as another user would plant them
(the tests run as root: "another user" is a file chown-ed to nobody, and folders whose modes let others write)."""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

import support  # noqa: F401  (an environment isolated from the developer's)

import agent_tools
from agent_tools import _launcher

PACKAGE = os.path.dirname(os.path.abspath(agent_tools.__file__))
# clients/python: the package's sources, as a checkout holds them (the tests may run against an installed copy)
SOURCES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOBODY = 65534
# A launcher that does what a planted one would do (notes that it ran, with the token it saw), then answers
# like serve --stdio with a forged answer.
PLANTED = textwrap.dedent("""\
    #!%s
    import json, os, sys
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ran"), "a") as f:
        f.write(os.environ.get("AGENT_TOOLS_ACCESS_TOKEN", "") + "\\n")
    for line in sys.stdin:
        request = json.loads(line)
        print(json.dumps({"id": request["id"], "status": "ok", "data": {"forged": True}, "meta": {}}), flush=True)
    """) % sys.executable

# Run in a process of its own with the copied package first on sys.path: which command the client picks, and what a
# call answers with it.
PROBE = textwrap.dedent("""\
    import json, sys
    import agent_tools, agent_tools.client as client
    assert agent_tools.__file__.startswith(sys.argv[1]), agent_tools.__file__
    try:
        command, error = client.default_command(), None
    except client.LauncherNotFound as e:
        command, error = None, str(e)
    tools = client.AgentToolsClient(timeout=float(sys.argv[2]), start_timeout=float(sys.argv[2]))
    answer = tools.call("tools.list")
    tools.close()

    async def asynchronously():  # the asyncio client picks its command alike
        a = agent_tools.AsyncAgentToolsClient(timeout=float(sys.argv[2]), start_timeout=float(sys.argv[2]))
        try:
            return await a.call("tools.list"), a.last_error
        finally:
            await a.close()

    import asyncio
    aio_answer, aio_error = asyncio.run(asynchronously())
    print(json.dumps({"command": command, "error": error, "answer": answer, "last_error": tools.last_error,
                      "code": tools.last_error_code, "aio_answer": aio_answer, "aio_error": aio_error}))
    """)


def make_folder(path, mode, owner=0):
    os.makedirs(path, exist_ok=True)
    os.chown(path, owner, owner)
    os.chmod(path, mode)
    return path


def plant(folder, mode=0o755, owner=NOBODY, pom=True):
    """A launcher (and a pom.xml beside it) in folder, owned by owner."""
    launcher = os.path.join(folder, "agent-tools")
    with open(launcher, "w") as f:
        f.write(PLANTED)
    os.chown(launcher, owner, owner)
    os.chmod(launcher, mode)
    if pom:
        with open(os.path.join(folder, "pom.xml"), "w") as f:
            f.write("<project/>")
    return launcher


def copy_package(site):
    """The installed package copied to site/agent_tools (as pip --target site would put it)."""
    os.makedirs(site, exist_ok=True)
    # without the checkout the tests' own install recorded: each test says which checkout, if any, there is
    shutil.copytree(PACKAGE, os.path.join(site, "agent_tools"), ignore=shutil.ignore_patterns("__pycache__", "_checkout.txt"))
    return site


@unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0, "planting another user's file takes root (chown)")
class DefaultLauncherTest(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix="agent-tools-py-launcher-")
        self.addCleanup(shutil.rmtree, self.base, True)
        self.empty_path = make_folder(os.path.join(self.base, "empty-bin"), 0o755)

    def probe(self, site, path=None, timeout=20):
        env = {k: v for k, v in os.environ.items() if k != "AGENT_TOOLS_COMMAND"}
        env.update({"PYTHONPATH": site, "PATH": path or self.empty_path, "AGENT_TOOLS_ACCESS_TOKEN": "secret-token-1",
                    "AGENT_TOOLS_AOT": "off", "AGENT_TOOLS_TRACKING": "none"})
        done = subprocess.run([sys.executable, "-c", PROBE, site, str(timeout)], env=env, capture_output=True, text=True,
                              timeout=timeout + 60)
        self.assertEqual(0, done.returncode, done.stderr)
        return json.loads(done.stdout)

    def assert_refused(self, outcome, launcher, why):
        self.assertIsNone(outcome["command"])
        self.assertIsNone(outcome["answer"])
        self.assertEqual("unavailable", outcome["code"])
        for words in ("no agent-tools launcher to run", "set AGENT_TOOLS_COMMAND", "command=[...]", "PATH",
                      launcher + " is not run", why):
            self.assertIn(words, outcome["last_error"])
        self.assertIsNone(outcome["aio_answer"])
        self.assertEqual(outcome["last_error"], outcome["aio_error"])
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(launcher), "ran")), "the planted launcher ran")

    def test_another_users_launcher_in_a_sticky_shared_folder_is_never_run(self):
        # the probe's form: the package under /tmp/X/Y/agent_tools, another user's /tmp/agent-tools
        shared = make_folder(os.path.join(self.base, "tmp"), 0o1777)
        launcher = plant(shared)
        site = copy_package(make_folder(os.path.join(make_folder(os.path.join(shared, "X"), 0o755), "Y"), 0o755))
        self.assert_refused(self.probe(site), launcher, "belongs to nobody (uid 65534), neither to you nor to root")

    def test_a_launcher_in_a_folder_anyone_may_write_is_never_run_even_when_it_is_ours(self):
        for mode in (0o777, 0o1777):
            with self.subTest(mode=oct(mode)):
                shared = make_folder(os.path.join(self.base, "shared-%o" % mode), mode)
                launcher = plant(shared, owner=0)
                site = copy_package(os.path.join(shared, "clients", "python"))
                self.assert_refused(self.probe(site), launcher, "others may write there")

    def test_a_launcher_others_may_write_is_never_run(self):
        checkout = make_folder(os.path.join(self.base, "checkout"), 0o755)
        launcher = plant(checkout, mode=0o777, owner=0)
        site = copy_package(os.path.join(checkout, "clients", "python"))
        self.assert_refused(self.probe(site), launcher, "others may write it")

    def test_a_checkout_below_a_folder_others_may_write_is_never_run(self):
        open_folder = make_folder(os.path.join(self.base, "open"), 0o777)
        checkout = make_folder(os.path.join(open_folder, "checkout"), 0o755)
        launcher = plant(checkout, owner=0)
        site = copy_package(os.path.join(checkout, "clients", "python"))
        self.assert_refused(self.probe(site), launcher, open_folder + " has mode drwxrwxrwx")

    def test_a_launcher_without_a_pom_beside_it_is_no_checkout(self):
        checkout = make_folder(os.path.join(self.base, "not-a-checkout"), 0o755)
        launcher = plant(checkout, owner=0, pom=False)
        site = copy_package(os.path.join(checkout, "clients", "python"))
        self.assert_refused(self.probe(site), launcher, "no pom.xml beside it")

    def test_a_checkout_right_in_a_sticky_shared_folder_is_never_run(self):
        shared = make_folder(os.path.join(self.base, "tmp"), 0o1777)
        checkout = make_folder(os.path.join(shared, "checkout"), 0o755)
        launcher = plant(checkout, owner=0)
        site = copy_package(os.path.join(checkout, "clients", "python"))
        self.assert_refused(self.probe(site), launcher, "a shared folder is no place for a checkout")

    def test_a_checkout_that_proves_itself_is_run_through_a_sticky_folder_above_it(self):
        # a private checkout in a private folder in the sticky shared one: nobody else can replace it, so it is run
        shared = make_folder(os.path.join(self.base, "tmp"), 0o1777)
        checkout = make_folder(os.path.join(make_folder(os.path.join(shared, "mine"), 0o700), "checkout"), 0o755)
        launcher = plant(checkout, owner=0)
        site = copy_package(os.path.join(checkout, "clients", "python"))
        outcome = self.probe(site)
        self.assertEqual([os.path.realpath(launcher), "serve", "--stdio"], outcome["command"])
        self.assertEqual({"forged": True}, outcome["answer"]["data"], outcome["last_error"])
        self.assertEqual({"forged": True}, outcome["aio_answer"]["data"], outcome["aio_error"])

    def test_agent_tools_on_path_is_run_when_there_is_no_checkout(self):
        bin_folder = make_folder(os.path.join(self.base, "bin"), 0o755)
        launcher = plant(bin_folder, owner=0, pom=False)
        site = copy_package(make_folder(os.path.join(self.base, "site", "a", "b"), 0o755))
        outcome = self.probe(site, path=bin_folder)
        self.assertEqual([launcher, "serve", "--stdio"], outcome["command"])
        self.assertEqual({"forged": True}, outcome["answer"]["data"], outcome["last_error"])

    def test_a_link_on_path_to_the_checkouts_launcher_answers(self):
        # the natural install, ln -s /path/to/checkout/agent-tools ~/bin/agent-tools: the launcher follows the link
        # to its checkout (it used to look for the jar beside the link and spin until the client gave up)
        bin_folder = make_folder(os.path.join(self.base, "bin"), 0o755)
        os.symlink(support.LAUNCHER, os.path.join(bin_folder, "agent-tools"))
        site = copy_package(make_folder(os.path.join(self.base, "site", "a", "b"), 0o755))
        outcome = self.probe(site, path=bin_folder + os.pathsep + "/usr/bin:/bin", timeout=240)
        self.assertEqual([os.path.join(bin_folder, "agent-tools"), "serve", "--stdio"], outcome["command"])
        self.assertIsNotNone(outcome["answer"], outcome["last_error"])
        self.assertIn("gmail.list-emails", [t["command"] for t in outcome["answer"]["data"]])
        self.assertFalse(os.path.exists(os.path.join(bin_folder, "target")), "nothing built beside the link")

    def pip_install(self, checkout):
        """`pip install --target site checkout/clients/python`, from a copy of this package's sources."""
        sources = os.path.join(checkout, "clients", "python")
        shutil.copytree(SOURCES, sources, ignore=shutil.ignore_patterns(
            "__pycache__", "build", "*.egg-info", "tests"))
        site = make_folder(os.path.join(self.base, "site-packages"), 0o755)
        # with pip's build isolation, as a user's install builds (setuptools from the index, cached after the first)
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check",
                               "--target", site, sources], capture_output=True, text=True, timeout=300,
                              # pip's own configuration (its package index) is under the user's real XDG config folder
                              env={k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"})
        if "No matching distribution found for setuptools" in done.stderr:
            self.skipTest("this Python's pip finds no setuptools to build with (scripts/build/python-tests' venv does)")
        self.assertEqual(0, done.returncode, done.stdout + done.stderr)
        return site

    def test_a_package_pip_installed_from_a_checkout_runs_that_checkouts_launcher(self):
        # pip copies the package into site-packages, away from its checkout: the build records the checkout, and the
        # launcher there is run once the checkout proves itself as one the package sat in would have to
        checkout = make_folder(os.path.join(self.base, "home", "checkout"), 0o755)
        launcher = plant(checkout, owner=0)
        site = self.pip_install(checkout)
        with open(os.path.join(site, "agent_tools", "_checkout.txt"), encoding="utf-8") as f:
            self.assertEqual(checkout, f.read().strip())
        outcome = self.probe(site)
        self.assertEqual([os.path.realpath(launcher), "serve", "--stdio"], outcome["command"])
        self.assertEqual({"forged": True}, outcome["answer"]["data"], outcome["last_error"])

    def test_a_recorded_checkout_that_does_not_prove_itself_is_never_run(self):
        checkout = make_folder(os.path.join(self.base, "home", "checkout"), 0o755)
        launcher = plant(checkout)  # another user's
        site = self.pip_install(checkout)
        self.assert_refused(self.probe(site), launcher, "belongs to nobody (uid 65534), neither to you nor to root")

    def test_with_nothing_trusted_the_call_fails_unavailable_naming_what_to_set(self):
        site = copy_package(make_folder(os.path.join(self.base, "site", "a", "b"), 0o755))
        outcome = self.probe(site)
        self.assertIsNone(outcome["command"])
        self.assertEqual("unavailable", outcome["code"])
        self.assertIn("no agent-tools launcher to run: AGENT_TOOLS_COMMAND is not set, agent-tools is not on PATH; set "
                      "AGENT_TOOLS_COMMAND", outcome["last_error"])
        self.assertEqual(outcome["error"], outcome["last_error"])


class CommandFromTheEnvironmentTest(unittest.TestCase):
    def test_a_path_alone_is_run_as_serve(self):
        # what most people set first; it used to start the launcher with no command, which printed its help and exited
        for set_to, expected in (("'/opt/agent tools/agent-tools'", ["/opt/agent tools/agent-tools", "serve", "--stdio"]),
                                 ("java -jar agent-tools.jar", ["java", "-jar", "agent-tools.jar", "serve", "--stdio"]),
                                 ("agent-tools serve --stdio", ["agent-tools", "serve", "--stdio"])):
            with self.subTest(set_to=set_to):
                self.assertEqual(expected, _launcher.default_command(env={"AGENT_TOOLS_COMMAND": set_to}))


if __name__ == "__main__":
    unittest.main()
