package dev.agenttools.tool;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.Objects;

/**
 * A successful tool answer.
 *
 * @param data     the tool's output (the same JSON whichever backend answered)
 * @param backend  what answered (a fetch strategy, the local mail index or the fallback path)
 * @param items    how many items the answer holds (results listed, 1 for a single item), for tracking
 * @param duration wall time of the call, from its start to its answer (set by the registry)
 */
public record ToolResult(JsonNode data, Backend backend, int items, Duration duration) {
    /** A tool's answer: the registry sets its duration. */
    public ToolResult(JsonNode data, Backend backend, int items) {
        this(data, backend, items, Duration.ZERO);
    }

    public ToolResult {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(duration, "duration");
    }

    public ToolResult withDuration(Duration d) {
        return new ToolResult(data, backend, items, d);
    }
}
