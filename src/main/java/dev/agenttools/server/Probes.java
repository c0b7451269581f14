package dev.agenttools.server;

import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a load balancer and a metrics scraper ask, without a service key (they carry none; the answers hold no address
 * and no token): {@code GET /healthz} (the process serves), {@code GET /readyz} (each upstream answers HTTP at all, and
 * the call store is writable: else 503, naming which) and {@code GET /metrics} (Prometheus' text format; only for
 * the {@code Host}s {@link MetricsHosts} allows, else 403).
 */
final class Probes extends Handler.Abstract {
    private static final Duration UPSTREAM_TIMEOUT = Duration.ofSeconds(2);
    /** A readiness answer is reused this long: probes every second must not become upstream load. */
    private static final long READY_TTL_NANOS = 2_000_000_000L;

    private final ServiceMetrics metrics;
    private final MetricsHosts metricsHosts;
    private final List<URI> upstreams;
    private final Supplier<String> storeProblem;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(UPSTREAM_TIMEOUT).build();
    private volatile Ready lastReady;

    private record Ready(long atNanos, boolean ok, String json) {
    }

    /**
     * @param upstreams    the Google API roots the tools call (an HTTP answer of any status means reachable)
     * @param storeProblem why the call store cannot take records now, or null when it can
     */
    Probes(ServiceMetrics metrics, List<URI> upstreams, Supplier<String> storeProblem, MetricsHosts metricsHosts) {
        this.metrics = metrics;
        this.metricsHosts = metricsHosts;
        this.upstreams = List.copyOf(upstreams);
        this.storeProblem = storeProblem;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        switch (path) {
            case "/healthz" -> Answers.json(response, callback, 200, "{\"status\":\"ok\"}");
            case "/readyz" -> {
                Ready ready = ready();
                Answers.json(response, callback, ready.ok() ? 200 : 503, ready.json());
            }
            case "/metrics" -> {
                if (!metricsHosts.allows(request)) {
                    metrics.refused("metrics_host");
                    Answers.error(response, callback, 403, ToolException.Kind.PERMISSION_DENIED, "/metrics answers only "
                            + "for the hosts in " + MetricsHosts.SETTING + " (by default loopback names and addresses)");
                    return true;
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                metrics.write(out);
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, metrics.contentType());
                response.write(true, ByteBuffer.wrap(out.toByteArray()), callback);
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private Ready ready() {
        Ready last = lastReady;
        if (last != null && System.nanoTime() - last.atNanos() < READY_TTL_NANOS) {
            return last;
        }
        Map<String, String> checks = new LinkedHashMap<>();
        boolean ok = true;
        for (URI upstream : upstreams) {
            String problem = reach(upstream);
            checks.put("upstream " + upstream.getScheme() + "://" + upstream.getAuthority(), problem == null ? "ok" : problem);
            ok &= problem == null;
        }
        String store = storeProblem.get();
        checks.put("call store", store == null ? "ok" : store);
        ok &= store == null;
        var json = Json.object().put("status", ok ? "ready" : "not ready");
        checks.forEach(json.putObject("checks")::put);
        Ready ready = new Ready(System.nanoTime(), ok, Json.write(json));
        lastReady = ready;
        return ready;
    }

    private String reach(URI upstream) {
        try {
            client.send(HttpRequest.newBuilder(upstream).timeout(UPSTREAM_TIMEOUT).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.discarding());
            return null;
        } catch (IOException e) {
            return "unreachable (" + e.getClass().getSimpleName() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
