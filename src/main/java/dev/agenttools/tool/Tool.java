package dev.agenttools.tool;

/** A tool agents can call. Implementations are thread-safe: one instance serves concurrent calls. */
public interface Tool {
    ToolSpec spec();

    /**
     * Runs the call.
     *
     * @throws ToolException for every failure, with the kind that tells the caller what to do
     */
    ToolResult call(ToolCall call);
}
