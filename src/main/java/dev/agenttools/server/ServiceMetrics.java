package dev.agenttools.server;

import dev.agenttools.google.PacingStats;
import dev.agenttools.tool.CallListener;
import dev.agenttools.tool.CallOutcome;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The service's metrics in Prometheus' text format, on the Prometheus Java client: per tool and backend, calls by
 * outcome and their latency; HTTP requests by endpoint and status; requests refused by admission; calls in flight and
 * waiting; per Google API, the pacing's quota waits, Google's rate-limit refusals by kind, and how many accounts are
 * paced, at learned limits below the configured ones, or at a share. Labels are tool names, backends, error codes,
 * endpoints, APIs and kinds, never an address, an account or a token. Thread-safe.
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
            .help("HTTP requests refused before a call ran, by reason (unauthorized, invalid_token, insufficient_scope, unavailable, overloaded, too_large, origin, protocol_version, user_rate, address_rate, ambiguous, metrics_host)")
            .labelNames("reason").register(registry);
    private final Counter connectionsClosed = Counter.builder().name("agent_tools_connections_closed")
            .help("Connections the server closed to bound a caller, by reason (header_timeout: a request's headers took too long; address_limit: too many connections from one address)")
            .labelNames("reason").register(registry);
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final PacingStats pacingStats;
    /**
     * The pacing as read for the scrape under way: read once in {@link #write}, so that the accounts are walked once a
     * scrape, not once per metric that shows them.
     */
    private volatile List<PacingStats.Snapshot> pacing = List.of();

    ServiceMetrics(Admission admission, PacingStats pacingStats) {
        this.pacingStats = pacingStats;
        GaugeWithCallback.builder().name("agent_tools_calls_in_flight").help("Calls running now")
                .callback(c -> c.call(admission.inFlight())).register(registry);
        GaugeWithCallback.builder().name("agent_tools_calls_waiting").help("Calls waiting for a running slot")
                .callback(c -> c.call(admission.waiting())).register(registry);
        CounterWithCallback.builder().name("agent_tools_quota_waits")
                .help("Google API requests that waited in their account's pacer (for quota, a free slot, its turn or a Retry-After pause), by API")
                .labelNames("api").callback(c -> pacing.forEach(p -> c.call(p.waits(), p.api()))).register(registry);
        CounterWithCallback.builder().name("agent_tools_quota_wait_seconds")
                .help("Seconds Google API requests waited in their account's pacer, by API")
                .labelNames("api").callback(c -> pacing.forEach(p -> c.call(p.waitSeconds(), p.api()))).register(registry);
        CounterWithCallback.builder().name("agent_tools_rate_limited")
                .help("Rate-limit refusals Google answered, by API and kind (quota or concurrency)")
                .labelNames("api", "kind").callback(c -> pacing.forEach(p -> {
                    c.call(p.quotaRefusals(), p.api(), "quota");
                    c.call(p.concurrencyRefusals(), p.api(), "concurrency");
                })).register(registry);
        CounterWithCallback.builder().name("agent_tools_quota_refused")
                .help("Calls refused at once (rate_limited, with retry_after_ms) because their account's quota could not serve them before their deadline, by API")
                .labelNames("api").callback(c -> pacing.forEach(p -> c.call(p.refusedForTime(), p.api()))).register(registry);
        GaugeWithCallback.builder().name("agent_tools_paced_accounts")
                .help("Accounts whose calls are paced now (the most recently used, up to 1000 per API), by API")
                .labelNames("api").callback(c -> pacing.forEach(p -> c.call(p.accounts(), p.api()))).register(registry);
        GaugeWithCallback.builder().name("agent_tools_accounts_limited")
                .help("Paced accounts whose learned limit is below the configured one, by API and limit (rate or concurrency)")
                .labelNames("api", "limit").callback(c -> pacing.forEach(p -> {
                    c.call(p.rateBelowConfigured(), p.api(), "rate");
                    c.call(p.concurrencyBelowConfigured(), p.api(), "concurrency");
                })).register(registry);
        GaugeWithCallback.builder().name("agent_tools_accounts_shared")
                .help("Paced accounts served by several instances at once, each pacing at its share (by demand), by API")
                .labelNames("api").callback(c -> pacing.forEach(p -> c.call(p.shared(), p.api()))).register(registry);
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

    void connectionClosed(String reason) {
        connectionsClosed.labelValues(reason).inc();
    }

    String contentType() {
        return writer.getContentType();
    }

    void write(OutputStream out) throws IOException {
        pacing = pacingStats.snapshot();
        writer.write(out, registry.scrape());
    }
}
