package dev.agenttools.tracking;

import java.time.Instant;
import java.util.Objects;

/**
 * The facts kept about one tool call. Never holds params, data or tokens.
 *
 * @param backend   what answered (sequential, concurrent, batch, fallback), or null when the call failed first
 * @param strategy  the strategy the caller asked for (auto when none)
 * @param status    {@code ok} or {@code error}
 * @param errorCode the error code (invalid_argument...) when status is error, else null
 * @param items     emails in the answer (0 on error)
 */
record CallRecord(Instant ts, String toolName, String agentName, double durationMs, String backend,
                         String strategy, String status, String errorCode, int items, String requestId) {
    public CallRecord {
        Objects.requireNonNull(ts, "ts");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(status, "status");
        agentName = agentName == null ? "unknown" : agentName;
        strategy = strategy == null ? "auto" : strategy;
        requestId = requestId == null ? "" : requestId;
    }

    public boolean ok() {
        return status.equals("ok");
    }
}
