/**
 * The tool protocol, part of the published API: a {@link dev.agenttools.tool.Tool} with its
 * {@link dev.agenttools.tool.ToolSpec} (name, description, JSON Schema of its params), the
 * {@link dev.agenttools.tool.ToolCall} and {@link dev.agenttools.tool.ToolResult} records, the one error type
 * {@link dev.agenttools.tool.ToolException} and its kinds, the {@link dev.agenttools.tool.ToolRegistry} with its one
 * call path (deadline, interceptors, listeners), the wire protocol ({@link dev.agenttools.tool.ToolProtocol}, served
 * line by line by the {@code serve} package; what it tells a remote caller of an internal failure,
 * {@link dev.agenttools.tool.InternalErrors}) and the bounded fan-out tools use
 * ({@link dev.agenttools.tool.FanOut}). It imports nothing else of ours. {@link dev.agenttools.tool.Diagnostics}, the
 * one place our library code writes to stderr, is public for the other packages only: not part of the API.
 */
package dev.agenttools.tool;
