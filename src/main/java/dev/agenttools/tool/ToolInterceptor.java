package dev.agenttools.tool;

/**
 * A step around every tool call that may change its outcome (the fallback), installed once in the
 * registry instead of in each tool. Steps that only watch (tracking) are {@link CallListener}s.
 */
@FunctionalInterface
public interface ToolInterceptor {
    /** @throws InterruptedException as {@link Tool#call} does */
    ToolResult intercept(ToolCall call, Tool next) throws InterruptedException;
}
