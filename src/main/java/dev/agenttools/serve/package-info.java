/**
 * The JSON-lines server, part of the published API: {@link dev.agenttools.serve.StdioServer} answers the tool protocol
 * ({@link dev.agenttools.tool.ToolProtocol}) one request per line on a stream, concurrently and bounded, reading its
 * lines with {@link dev.agenttools.serve.BoundedLines} (which the MCP server's stdio transport reads with too). It
 * imports only {@code tool}.
 */
package dev.agenttools.serve;
