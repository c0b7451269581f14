package dev.agenttools.tool;

import java.time.Duration;

/**
 * What a finished call came to, timed once by the registry: the duration the caller sees in {@code meta.duration_ms}
 * is the one listeners (call tracking) record, fallback included.
 *
 * @param call     the call, with its deadline
 * @param result   the answer, or null when it failed
 * @param error    why it failed, or null when it succeeded
 * @param duration from the call's start to its answer
 */
public record CallOutcome(ToolCall call, ToolResult result, ToolException error, Duration duration) {
    public boolean ok() {
        return error == null;
    }
}
