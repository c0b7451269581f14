"""Every command the registry has has a helper on both clients, taking the command's required params: a tool
added to the registry fails this test until agent_tools/_tools.py has it."""

import inspect
import unittest

from support import start_emulator, stop, tools_env

from agent_tools import AgentToolsClient, AsyncAgentToolsClient
from agent_tools import _tools


class ToolsTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator, root = start_emulator("--latency", "0ms", "--jitter", "0ms")
        client = AgentToolsClient(env=tools_env(root))
        try:
            listed = client.tools()
            assert listed is not None, client.last_error
            cls.registry = {t["command"]: t["params_schema"] for t in listed["data"]}
        finally:
            client.close()

    @classmethod
    def tearDownClass(cls):
        stop(cls.emulator)

    def test_every_registry_command_has_a_helper_and_no_helper_names_a_command_it_lacks(self):
        table = {command for command, _, _ in _tools.TOOLS}
        self.assertEqual([], sorted(set(self.registry) - table), "commands of tools.list without a helper in _tools.TOOLS")
        self.assertEqual([], sorted(table - set(self.registry)), "helpers of commands tools.list does not have")

    def test_each_helper_takes_its_commands_required_params_first(self):
        for command, name, required in _tools.TOOLS:
            schema = self.registry[command]
            self.assertEqual(sorted(schema.get("required", [])), sorted(required), command)
            for param in required:
                self.assertIn(param, schema.get("properties", {}), command)
            for cls in (AgentToolsClient, AsyncAgentToolsClient):
                method = getattr(cls, name)
                self.assertEqual(["self", *required, "timeout", "params"], list(inspect.signature(method).parameters),
                                 "%s.%s" % (cls.__name__, name))
            self.assertTrue(inspect.iscoroutinefunction(getattr(AsyncAgentToolsClient, name)), name)


if __name__ == "__main__":
    unittest.main()
