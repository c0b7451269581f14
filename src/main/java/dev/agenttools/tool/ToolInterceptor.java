package dev.agenttools.tool;

/**
 * A cross-cutting step around every tool call (timing, tracking, fallback...), installed once in the
 * registry instead of in each tool.
 */
@FunctionalInterface
public interface ToolInterceptor {
    ToolResult intercept(ToolCall call, Tool next);
}
