package dev.agenttools.tracking;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.CallListener;
import dev.agenttools.tool.CallOutcome;

import java.time.Instant;

/**
 * Records every call the registry finished (any mode) with the duration the caller was shown; never changes its
 * outcome.
 */
public final class TrackingListener implements CallListener {
    private final CallRecorder recorder;

    public TrackingListener(CallRecorder recorder) {
        this.recorder = recorder;
    }

    @Override
    public void completed(CallOutcome o) {
        double ms = o.duration().toNanos() / 1e6;
        // when the call started, on the wall clock: now minus its duration
        Instant ts = Instant.now().minusNanos(o.duration().toNanos());
        JsonNode strategyParam = o.call().params().get("strategy");
        String strategy = strategyParam != null && strategyParam.isTextual() ? strategyParam.asText() : "auto";
        CallRecord r = o.ok()
                ? new CallRecord(ts, o.call().tool(), o.call().agentName(), ms, o.result().backend().wireName(), strategy, "ok", null,
                o.result().items(), o.call().requestId())
                : new CallRecord(ts, o.call().tool(), o.call().agentName(), ms, null, strategy, "error",
                o.error().kind().code(), 0, o.call().requestId());
        recorder.record(r);
    }
}
