package dev.agenttools.tool;

/** A tool agents can call. Implementations are thread-safe: one instance serves concurrent calls. */
public interface Tool {
    ToolSpec spec();

    /**
     * Runs the call, within {@code call.deadline()}.
     *
     * @throws ToolException for every failure, with the kind that tells the caller what to do
     */
    ToolResult call(ToolCall call);

    /**
     * A surer, slower way to make the same call, for {@link FallbackInterceptor} to try when this one failed for a
     * reason the slower way may not meet; null (the default) when the tool has none, or {@code failed} already took it.
     */
    default ToolCall fallback(ToolCall failed) {
        return null;
    }
}
