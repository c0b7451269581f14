package dev.agenttools.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Set;

/**
 * The one fallback router all modes share: a call on a fast strategy that fails for a reason a slower path may
 * not hit (upstream errors, rate limits, internal errors) is run again with
 * {@code strategy: sequential}; the answer then says {@code backend: fallback}. Errors the caller must fix
 * (bad params, unknown ids, sign-in) are not retried: they would fail the same way.
 */
public final class FallbackInterceptor implements ToolInterceptor {
    public static final String BACKEND = "fallback";
    /** Not DEADLINE: the caller's time is spent, and a second run would double what they allowed. */
    private static final Set<ToolException.Kind> FALL_BACK_ON = Set.of(ToolException.Kind.UPSTREAM,
            ToolException.Kind.RATE_LIMITED, ToolException.Kind.INTERNAL);

    @Override
    public ToolResult intercept(ToolCall call, Tool next) {
        try {
            return next.call(call);
        } catch (ToolException e) {
            JsonNode strategy = call.params().get("strategy");
            boolean fast = strategy == null || !strategy.isTextual() || !strategy.asText().equals("sequential");
            boolean hasStrategy = next.spec().inputSchema().path("properties").has("strategy");
            if (!fast || !hasStrategy || !FALL_BACK_ON.contains(e.kind()) || (strategy != null && !strategy.isTextual())) {
                throw e;
            }
            ObjectNode params = call.params().deepCopy();
            params.put("strategy", "sequential");
            System.err.println("agent-tools: " + call.tool() + " failed on the fast path (" + e.kind().code()
                    + "); falling back to sequential");
            // the same start: the second run gets what is left of the caller's timeout_ms, not a fresh one
            ToolResult slow = next.call(new ToolCall(call.tool(), params, call.agentName(), call.requestId(), call.startNanos()));
            return new ToolResult(slow.data(), BACKEND, slow.items(), slow.duration());
        }
    }
}
