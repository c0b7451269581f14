package dev.agenttools.tracking;

import dev.agenttools.tool.Params;

import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

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
        // what callers name is bounded where it enters (the registry refuses a longer agent_name, the protocol a longer
        // id); held here too, so that no path (an old journal, a tool's own call) stores more
        agentName = agentName == null ? "unknown" : clip(agentName, Params.MAX_AGENT_NAME);
        // the strategy is the caller's param, recorded even when the tool refused it: only a word is kept as it is
        strategy = strategy == null ? "auto" : STRATEGY.matcher(strategy).matches() ? strategy : "invalid";
        requestId = requestId == null ? "" : clip(requestId, MAX_REQUEST_ID);
    }

    /** The most code points of a request id kept (the protocol refuses longer ids; generated ones are 36). */
    static final int MAX_REQUEST_ID = 100;
    private static final Pattern STRATEGY = Pattern.compile("[a-z0-9_-]{1,32}");

    private static String clip(String s, int max) {
        return s.codePointCount(0, s.length()) > max ? s.substring(0, s.offsetByCodePoints(0, max)) : s;
    }

    public boolean ok() {
        return status.equals("ok");
    }
}
