package dev.agenttools.tool;

/** A tool agents can call. Implementations are thread-safe: one instance serves concurrent calls. */
public interface Tool {
    ToolSpec spec();

    /**
     * Runs the call, within {@code call.deadline()}. The registry runs it on a virtual thread of its own and
     * interrupts it when the deadline passes; it may block.
     *
     * @throws ToolException        for every failure, with the kind that tells the caller what to do
     * @throws InterruptedException when interrupted (its deadline passed, or the process is closing)
     */
    ToolResult call(ToolCall call) throws InterruptedException;

    /**
     * A surer, slower way to make the same call, for {@link FallbackInterceptor} to try when this one failed for a
     * reason the slower way may not meet; null (the default) when the tool has none, or {@code failed} already took it.
     */
    default ToolCall fallback(ToolCall failed) {
        return null;
    }
}
