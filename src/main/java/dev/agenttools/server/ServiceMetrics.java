package dev.agenttools.server;

import dev.agenttools.tool.CallListener;
import dev.agenttools.tool.CallOutcome;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The service's metrics in Prometheus' text format, on the Prometheus Java client: per tool and backend, calls by
 * outcome and their latency; HTTP requests by endpoint and status; requests refused by admission; calls in flight and
 * waiting. Labels are tool names, backends, error codes and endpoints, never an address or a token. Thread-safe.
 */
final class ServiceMetrics implements CallListener {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter calls = Counter.builder().name("agent_tools_calls")
            .help("Tool calls answered, by tool, backend that answered (none when it failed) and code (ok or the error code)")
            .labelNames("tool", "backend", "code").register(registry);
    private final Histogram latency = Histogram.builder().name("agent_tools_call_duration_seconds")
            .help("Tool call latency as the caller saw it, fallback included")
            .labelNames("tool", "backend").classicOnly()
            .classicUpperBounds(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10, 30)
            .register(registry);
    private final Counter requests = Counter.builder().name("agent_tools_http_requests")
            .help("HTTP requests answered, by endpoint and status").labelNames("endpoint", "status").register(registry);
    private final Counter refused = Counter.builder().name("agent_tools_http_refused")
            .help("HTTP requests refused before a call ran, by reason (unauthorized, overloaded, too_large, origin, protocol_version)")
            .labelNames("reason").register(registry);
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    ServiceMetrics(Admission admission) {
        GaugeWithCallback.builder().name("agent_tools_calls_in_flight").help("Calls running now")
                .callback(c -> c.call(admission.inFlight())).register(registry);
        GaugeWithCallback.builder().name("agent_tools_calls_waiting").help("Calls waiting for a running slot")
                .callback(c -> c.call(admission.waiting())).register(registry);
    }

    @Override
    public void completed(CallOutcome outcome) {
        String tool = outcome.call().tool();
        String backend = outcome.ok() ? outcome.result().backend().wireName() : "none";
        calls.labelValues(tool, backend, outcome.ok() ? "ok" : outcome.error().kind().code()).inc();
        latency.labelValues(tool, backend).observe(outcome.duration().toNanos() / 1e9);
    }

    void answered(String endpoint, int status) {
        requests.labelValues(endpoint, Integer.toString(status)).inc();
    }

    void refused(String reason) {
        refused.labelValues(reason).inc();
    }

    String contentType() {
        return writer.getContentType();
    }

    void write(OutputStream out) throws IOException {
        writer.write(out, registry.scrape());
    }
}
