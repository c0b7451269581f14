package dev.agenttools.emulator.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Counters;
import dev.agenttools.emulator.api.ErrorBody;
import dev.agenttools.emulator.api.Faults;
import dev.agenttools.emulator.api.Json;
import dev.agenttools.emulator.oauth.OAuthServer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The HTTP side of the emulator: turns each Jetty request into API calls (one, or one per batch part), holds the
 * answer for the modelled latency, then writes it. Runs on virtual threads, so a sleeping call costs no
 * platform thread. Thread-safe.
 */
public final class HttpFront extends Handler.Abstract {
    static final String COUNTERS_PATH = "/emulator/v1/counters";
    private final CallGate gate;
    private final LatencyModel latency;
    private final Faults faults;
    private final Counters counters;
    private final Users users;
    private final OAuthServer oauth;
    private final RequestBody bodies;
    /** What the counters endpoint answers: the emulator's snapshot of {@code counters}, the peak and each user's. */
    private final Supplier<?> snapshot;
    /** Remote addresses of open connections that have had their first request (and paid the handshake). */
    private final Set<SocketAddress> warmConnections = ConcurrentHashMap.newKeySet();

    public HttpFront(CallGate gate, LatencyModel latency, Faults faults, Counters counters, Users users,
                     OAuthServer oauth, RequestBody bodies, Supplier<?> snapshot) {
        this.snapshot = snapshot;
        this.oauth = oauth;
        this.bodies = bodies;
        this.gate = gate;
        this.latency = latency;
        this.faults = faults;
        this.counters = counters;
        this.users = users;
    }

    public void connectionClosed(SocketAddress remote) {
        if (remote != null) {
            warmConnections.remove(remote);
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        try {
            return serve(request, response, callback);
        } catch (Exception e) {
            if (isStopping() || isStopped() || getServer() == null || getServer().isStopping() || getServer().isStopped()) {
                callback.failed(e); // the emulator is closing under a call in flight: nothing to answer, nothing to report
                return true;
            }
            // A bug of ours (or a body Jetty could not read) still gets Google's JSON, never an HTML page or a trace.
            System.err.println("emulator: failed " + request.getMethod() + " " + request.getHttpURI().getPath() + ": " + e);
            e.printStackTrace(System.err);
            if (!response.isCommitted()) {
                ApiResponse error = ErrorBody.of(e instanceof IOException
                        ? ApiError.badRequest(null, "Unreadable request body: " + e.getMessage()) : ApiError.internal());
                response.setStatus(error.status());
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, error.contentType());
                response.write(true, ByteBuffer.wrap(error.render(emptyRequest("/"))), callback);
            } else {
                callback.failed(e);
            }
            return true;
        }
    }

    private boolean serve(Request request, Response response, Callback callback) throws Exception {
        long arrived = request.getBeginNanoTime(); // the server time counts from arrival, parsing included
        String path = request.getHttpURI().getDecodedPath();
        if (path.startsWith(COUNTERS_PATH)) {
            return answerCounters(request, response, callback);
        }
        counters.httpRequests.increment();
        long delay = 0;
        SocketAddress remote = request.getConnectionMetaData().getRemoteSocketAddress();
        if (remote != null && warmConnections.add(remote)) {
            counters.handshakes.increment();
            delay += latency.handshakeNanos();
        }
        List<Runnable> releases = new ArrayList<>();
        try {
            Map<String, String> headers = new LinkedHashMap<>();
            for (HttpField f : request.getHeaders()) {
                headers.merge(f.getName(), f.getValue(), (a, b) -> a + ", " + b);
            }
            byte[] body;
            try {
                body = bodies.read(request);
            } catch (ApiError e) {
                write(response, callback, ErrorBody.of(e), emptyRequest(path), arrived + delay + latency.roundTripNanos(), releases);
                return true;
            }
            String contentType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
            String status;
            int code;
            byte[] out;
            String outType;
            Map<String, String> outHeaders;
            if (path.equals("/batch") || path.startsWith("/batch/")) {
                counters.batchRequests.increment();
                ApiRequest outer = toApiRequest(request, path, headers, body);
                List<BatchCodec.Part> parts;
                try {
                    if (!outer.method().equals("POST")) {
                        throw ApiError.methodNotAllowed(outer.method(), path);
                    }
                    parts = BatchCodec.parse(contentType, body, headers);
                } catch (ApiError e) {
                    write(response, callback, ErrorBody.of(e), outer, arrived + delay + latency.roundTripNanos(), releases);
                    return true;
                }
                List<ApiResponse> answers = new ArrayList<>(parts.size());
                for (BatchCodec.Part part : parts) {
                    answers.add(gate.call(part.request(), releases));
                }
                BatchCodec.Encoded encoded = BatchCodec.encode(parts, answers);
                delay += latency.batchNanos(parts.size()) + faults.slowness().toNanos();
                waitUntil(arrived + delay);
                release(releases);
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, encoded.contentType());
                response.write(true, ByteBuffer.wrap(encoded.body()), callback);
                return true;
            }
            ApiRequest apiRequest;
            try {
                apiRequest = toApiRequest(request, path, headers, body);
            } catch (ApiError e) {
                write(response, callback, ErrorBody.of(e), emptyRequest(path), arrived + delay + latency.roundTripNanos(), releases);
                return true;
            }
            if (OAuthServer.handles(path)) {
                write(response, callback, oauth.handle(apiRequest), apiRequest, arrived + delay + latency.roundTripNanos(), releases);
                return true;
            }
            ApiResponse answer = gate.call(apiRequest, releases);
            delay += latency.roundTripNanos() + faults.slowness().toNanos();
            write(response, callback, answer, apiRequest, arrived + delay, releases);
            return true;
        } finally {
            release(releases);
        }
    }

    /**
     * Frees the call's concurrency slots. Done before the answer is written: once a client has its answer it may
     * send the next call at once, and Gmail no longer counts the finished one.
     */
    private static void release(List<Runnable> releases) {
        releases.forEach(Runnable::run);
        releases.clear();
    }

    private void write(Response response, Callback callback, ApiResponse answer, ApiRequest request, long notBefore,
                       List<Runnable> releases) {
        byte[] body = answer.render(request);
        waitUntil(notBefore);
        release(releases);
        response.setStatus(answer.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, answer.contentType());
        response.getHeaders().put(HttpHeader.VARY, GOOGLE_VARY);
        answer.headers().forEach((k, v) -> response.getHeaders().put(k, v));
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** What Google's API front ends send as Vary on every answer (captured). */
    static final String GOOGLE_VARY = "Origin, X-Origin, Referer";

    private static void waitUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    private static ApiRequest emptyRequest(String path) {
        return new ApiRequest("GET", path, Map.of(), Map.of(), new byte[0]);
    }

    /**
     * Undoes the Java client's method override: a long GET arrives as a POST with
     * {@code X-HTTP-Method-Override: GET} and its query in a form-encoded body.
     */
    private static ApiRequest toApiRequest(Request request, String path, Map<String, String> headers, byte[] body) {
        String method = request.getMethod();
        Map<String, List<String>> params = ApiRequest.parseQuery(request.getHttpURI().getQuery());
        String override = request.getHeaders().get("X-HTTP-Method-Override");
        if (override != null && method.equals("POST")) {
            method = override.strip().toUpperCase(Locale.ROOT);
            String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
            if (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
                ApiRequest.parseQuery(new String(body, StandardCharsets.UTF_8))
                        .forEach((k, v) -> params.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
                body = new byte[0];
            }
        }
        return new ApiRequest(method, path, params, headers, body);
    }

    private boolean answerCounters(Request request, Response response, Callback callback) {
        if (request.getMethod().equals("POST") && request.getHttpURI().getDecodedPath().endsWith(":reset")) {
            counters.reset();
            users.reset();
        }
        ObjectNode node = Json.MAPPER.valueToTree(snapshot.get());
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ApiResponse.JSON_UTF8);
        response.write(true, ByteBuffer.wrap(Json.bytes(node, true)), callback);
        return true;
    }
}
