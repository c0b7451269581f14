/**
 * {@code agent-tools server}: the tools over HTTP for trusted agent backends and MCP clients (the JSON tool protocol at
 * {@code /v1/call}, MCP Streamable HTTP at {@code /mcp}, health and Prometheus metrics), with service keys, admission
 * limits and a graceful drain; and what its instances behind a load balancer share on DynamoDB (each account's quota
 * bucket and pacing leases). Internal: not part of the published API.
 */
package dev.agenttools.server;
