package dev.agenttools.tracking;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolInterceptor;
import dev.agenttools.tool.ToolResult;

import java.time.Instant;

/** Records every call that passes through the registry (any mode), after it finishes; never changes its outcome. */
public final class TrackingInterceptor implements ToolInterceptor {
    private final CallRecorder recorder;

    public TrackingInterceptor(CallRecorder recorder) {
        this.recorder = recorder;
    }

    @Override
    public ToolResult intercept(ToolCall call, Tool next) {
        Instant ts = Instant.now();
        long start = System.nanoTime();
        JsonNode strategyParam = call.params().get("strategy");
        String strategy = strategyParam != null && strategyParam.isTextual() ? strategyParam.asText() : "auto";
        try {
            ToolResult result = next.call(call);
            record(new CallRecord(ts, call.tool(), call.agentName(), elapsedMs(start), result.backend(), strategy, "ok", null,
                    result.items(), call.requestId()));
            return result;
        } catch (ToolException e) {
            record(new CallRecord(ts, call.tool(), call.agentName(), elapsedMs(start), null, strategy, "error",
                    e.kind().code(), 0, call.requestId()));
            throw e;
        } catch (RuntimeException e) {
            record(new CallRecord(ts, call.tool(), call.agentName(), elapsedMs(start), null, strategy, "error",
                    ToolException.Kind.INTERNAL.code(), 0, call.requestId()));
            throw e;
        }
    }

    private void record(CallRecord r) {
        try {
            recorder.record(r);
        } catch (RuntimeException e) {
            // tracking must never fail a call
        }
    }

    private static double elapsedMs(long start) {
        return (System.nanoTime() - start) / 1e6;
    }
}
