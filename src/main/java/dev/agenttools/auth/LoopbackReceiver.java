package dev.agenttools.auth;

import com.google.api.client.extensions.java6.auth.oauth2.VerificationCodeReceiver;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Catches the consent page's redirect on {@code http://127.0.0.1:PORT/Callback} (a free port) and checks that it
 * carries the {@code state} this sign-in sent, so an answer another page or program sends to the port is refused
 * (RFC 6749 section 10.12; Google's installed-app guide). It replaces the official {@code LocalServerReceiver},
 * which reads only {@code code} and {@code error} and so cannot check the state; the answer page and the JDK
 * server are the same. One use: {@link #getRedirectUri} starts it, {@link #waitForCode} waits for the first
 * answer on the callback path, {@link #stop} stops it. Thread-safe.
 */
final class LoopbackReceiver implements VerificationCodeReceiver {
    private static final String CALLBACK_PATH = "/Callback";
    private final String expectedState;
    private final CountDownLatch answered = new CountDownLatch(1);
    private volatile Map<String, String> answer;
    private HttpServer server;

    /** @param expectedState the {@code state} put in the consent URL; the redirect must carry it back unchanged */
    LoopbackReceiver(String expectedState) {
        this.expectedState = expectedState;
    }

    @Override
    public synchronized String getRedirectUri() throws IOException {
        if (server == null) {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext(CALLBACK_PATH, this::callback);
            server.start();
        }
        return "http://127.0.0.1:" + server.getAddress().getPort() + CALLBACK_PATH;
    }

    private void callback(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals(CALLBACK_PATH) || answered.getCount() == 0) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            Map<String, String> params = query(exchange.getRequestURI().getRawQuery());
            String page = params.containsKey("code") && stateMatches(params.get("state"))
                    ? "Signed in. You can close this window and go back to agent-tools."
                    : "The sign-in did not complete; agent-tools says why in the terminal.";
            byte[] body = ("<html><head><title>agent-tools sign-in</title></head><body><p>" + page + "</p></body></html>")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=UTF-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
            answer = params;
            answered.countDown();
        }
    }

    /**
     * Waits for the redirect; the code when it carries one and the state matches, else an {@link AuthException} that
     * says what happened and what to run (never the code or the state).
     */
    @Override
    public String waitForCode() throws IOException {
        try {
            answered.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AuthException("the sign-in was interrupted while waiting for the browser; run 'agent-tools auth login' again");
        }
        Map<String, String> params = answer;
        if (params.get("error") != null) {
            throw new AuthException("Google did not grant access (" + params.get("error") + "); run 'agent-tools auth login' "
                    + "again and allow access on the consent page");
        }
        if (!stateMatches(params.get("state"))) {
            throw new AuthException("the sign-in answer on " + CALLBACK_PATH + " carried " + (params.get("state") == null
                    ? "no state" : "a different state") + " than this sign-in sent, so it was refused (another page or "
                    + "program may have sent it); run 'agent-tools auth login' again");
        }
        if (params.get("code") == null || params.get("code").isBlank()) {
            throw new AuthException("the sign-in answer carried no authorization code; run 'agent-tools auth login' again");
        }
        return params.get("code");
    }

    private boolean stateMatches(String state) {
        return state != null && MessageDigest.isEqual(state.getBytes(StandardCharsets.UTF_8),
                expectedState.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public synchronized void stop() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> params = new HashMap<>();
        if (raw == null) {
            return params;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            try {
                params.putIfAbsent(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                        eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException malformed) {
                // a malformed pair is left out; a missing code or state is then reported as such
            }
        }
        return params;
    }
}
