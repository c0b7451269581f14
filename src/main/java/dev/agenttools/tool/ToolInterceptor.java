package dev.agenttools.tool;

/**
 * A step around every tool call that may change its outcome (the fallback), installed once in the
 * registry instead of in each tool. Steps that only watch (tracking) are {@link CallListener}s.
 */
@FunctionalInterface
public interface ToolInterceptor {
    /**
     * The one fallback router all modes share: a call that fails on its fast path for a reason a surer path may not
     * meet is run again the tool's surer way ({@link Tool#fallback}) within what is left of its deadline, and answers
     * with backend {@code fallback}.
     */
    static ToolInterceptor fallback() {
        return new FallbackInterceptor();
    }

    /** @throws InterruptedException as {@link Tool#call} does */
    ToolResult intercept(ToolCall call, Tool next) throws InterruptedException;
}
