"""agent-tools from Python: a client of one persistent `agent-tools serve --stdio` (sync and asyncio), an optional
Python fallback for the Gmail tools (agent_tools.fallback, extra "fallback") and call tracking into agent-tools'
own store (tracked_tool). The core needs only the standard library."""

from .aio import AsyncAgentToolsClient
from .client import AgentToolsClient
from .tracking import tracked_tool

__all__ = ["AgentToolsClient", "AsyncAgentToolsClient", "tracked_tool"]
