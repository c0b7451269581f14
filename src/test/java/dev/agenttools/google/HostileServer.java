package dev.agenttools.google;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A Google-shaped server on a loopback port that answers only the routes a test gives it, each with the JSON its
 * function makes of the request's query: enough to be wrong on purpose (a page token that never changes) where the
 * emulator is right. Counts the requests of each route; anything else is a 404 in Google's error shape. Routes may be
 * replaced while it runs (a server that behaves again). Thread-safe.
 */
public final class HostileServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, Function<Map<String, String>, String>> routes = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    public HostileServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(threads);
        server.createContext("/", this::answer);
        server.start();
    }

    /** Answers GETs of {@code path} (no leading slash, no query: {@code calendar/v3/users/me/calendarList}) with 200 and the JSON. */
    public HostileServer route(String path, Function<Map<String, String>, String> json) {
        routes.put("/" + path, json);
        return this;
    }

    /** Requests of {@code path} so far. */
    public int calls(String path) {
        AtomicInteger n = calls.get("/" + path);
        return n == null ? 0 : n.get();
    }

    /** The root URL to give the tools: {@code http://127.0.0.1:<port>/}. */
    public String rootUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getRawPath();
            calls.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
            Function<Map<String, String>, String> route = routes.get(path);
            int status = route == null ? 404 : 200;
            String body = route == null ? "{\"error\": {\"code\": 404, \"message\": \"Not Found\", \"errors\": [{\"reason\": \"notFound\"}]}}"
                    : route.apply(query(exchange.getRequestURI().getRawQuery()));
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            out.put(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
        threads.close();
    }
}
