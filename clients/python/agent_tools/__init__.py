"""agent-tools for Python agents: a client of `agent-tools serve --stdio` (standard library only) and, with the
`langchain` extra, the tools as LangChain structured tools (`agent_tools.langchain`)."""

from .client import AgentToolsClient

__all__ = ["AgentToolsClient"]
