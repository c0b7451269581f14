package dev.agenttools.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Objects;
import java.util.UUID;

/**
 * One request to run a tool.
 *
 * @param tool       the command name
 * @param params     the params object as the caller sent it (validated by the tool)
 * @param agentName  who is calling, for tracking; "unknown" when not given
 * @param requestId  the caller's id for this call, or a generated one
 * @param startNanos when the call started ({@link System#nanoTime()}): its deadline counts from here, so the tool's
 *                   own set-up (clients, TLS, credentials) is inside it, not before it
 * @param deadline   the call's one deadline, from {@code timeout_ms}; set by the registry as the call enters it
 *                   (null before), so every layer, interceptors included, reads the same one
 */
public record ToolCall(String tool, ObjectNode params, String agentName, String requestId, long startNanos,
                       Deadline deadline) {
    /** A call starting now. */
    public ToolCall(String tool, ObjectNode params, String agentName, String requestId) {
        this(tool, params, agentName, requestId, System.nanoTime(), null);
    }

    public ToolCall {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(params, "params");
        agentName = agentName == null || agentName.isBlank() ? "unknown" : agentName;
        requestId = requestId == null || requestId.isBlank() ? UUID.randomUUID().toString() : requestId;
    }

    public static ToolCall of(String tool, ObjectNode params) {
        return new ToolCall(tool, params, null, null);
    }

    /** This call under {@code d}. */
    public ToolCall withDeadline(Deadline d) {
        return new ToolCall(tool, params, agentName, requestId, startNanos, d);
    }

    /** The same call with other params (a fallback's), under the same deadline. */
    public ToolCall withParams(ObjectNode p) {
        return new ToolCall(tool, p, agentName, requestId, startNanos, deadline);
    }
}
