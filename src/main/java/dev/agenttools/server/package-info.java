/**
 * {@code agent-tools server}: the tools over HTTP for trusted agent backends and MCP clients (the JSON tool protocol at
 * {@code /v1/call}, MCP Streamable HTTP at {@code /mcp}, health and Prometheus metrics), with service keys, admission
 * limits and a graceful drain. Internal: not part of the published API.
 */
package dev.agenttools.server;
