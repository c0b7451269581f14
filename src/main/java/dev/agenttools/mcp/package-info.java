/**
 * The MCP server over stdio, internal: the registry's tools as MCP tools; the only package that imports the MCP
 * SDK. Imports {@code tool}.
 */
package dev.agenttools.mcp;
