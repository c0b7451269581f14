"""The client's old single-module name, kept so that `from agent_tools_client import AgentToolsClient` still works:
the client is agent_tools.client now (pip install ./clients/python)."""

from agent_tools.client import AgentToolsClient  # noqa: F401

__all__ = ["AgentToolsClient"]
