package dev.agenttools.server;

import dev.agenttools.google.Account;
import dev.agenttools.server.oauth.RateLimiter;
import dev.agenttools.server.oauth.TrustedProxies;
import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.time.Clock;
import java.time.Duration;

/**
 * What every tool endpoint checks before a call runs, in this order: the client address's rate, the service key (or
 * token), the user's rate, then room to run. Refusals are answered here, counted by reason, and never echo what was
 * presented (a key, a token).
 */
final class Gate {
    /** The end user's Google access token, per request; never logged, counted or echoed. */
    static final String GOOGLE_TOKEN_HEADER = "X-Google-Access-Token";

    private final ServiceKeys keys;
    private final Admission admission;
    private final ServiceMetrics metrics;
    private final RateLimiter perUser;
    private final RateLimiter perAddress;
    private final TrustedProxies proxies;

    Gate(ServiceKeys keys, Admission admission, ServiceMetrics metrics, HttpService.Limits limits) {
        this.keys = keys;
        this.admission = admission;
        this.metrics = metrics;
        this.perUser = new RateLimiter(limits.userRate(), Clock.systemUTC(), HttpService.Limits.MAX_TRACKED);
        this.perAddress = new RateLimiter(limits.addressRate(), Clock.systemUTC(), HttpService.Limits.MAX_TRACKED);
        this.proxies = new TrustedProxies(limits.trustedProxies());
    }

    /**
     * True when the request's client address (the peer, or behind a trusted proxy the client it names) may make another
     * request now; else answers 429 with {@code Retry-After} and returns false. Checked before the key or token, so that
     * guesses are bounded too. A request with a trusted service key is not counted here when {@code keyExempts}: a
     * backend's one address stands for all its users, each counted per user.
     */
    boolean admitAddress(Request request, Response response, Callback callback, String endpoint, boolean keyExempts) {
        if (keyExempts && keys.accepts(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
            return true;
        }
        Duration wait = perAddress.take(proxies.clientAddress(request));
        if (wait.isZero()) {
            return true;
        }
        tooMany(response, callback, endpoint, "address_rate", wait, "too many requests to " + endpoint
                + " from this address (at most " + perAddress.rate() + ")");
        return false;
    }

    /**
     * True when {@code user} (null: no user to count) may make another request now; else answers 429 with
     * {@code Retry-After} and returns false.
     *
     * @param user the signed-in account, or {@link #tokenUser} of the Google token a call carries
     */
    boolean admitUser(String user, Response response, Callback callback, String endpoint) {
        if (user == null) {
            return true;
        }
        Duration wait = perUser.take(user);
        if (wait.isZero()) {
            return true;
        }
        tooMany(response, callback, endpoint, "user_rate", wait, "too many requests to " + endpoint
                + " for this user (at most " + perUser.rate() + ")");
        return false;
    }

    /** Whom a call with this Google token is counted as per user: the token's digest, never the token (null: none). */
    static String tokenUser(String token) {
        return token == null ? null : Account.ofToken(token).id();
    }

    /** 429 with {@code Retry-After} in whole seconds, in the endpoint's envelope ({@link #refuse}). */
    private void tooMany(Response response, Callback callback, String endpoint, String reason, Duration wait, String message) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(seconds));
        refuse(response, callback, endpoint, 429, ToolException.Kind.RATE_LIMITED, reason,
                message + "; retry after " + seconds + " s");
    }

    /** True when the request carries a trusted service key; else answers 401 and returns false. */
    boolean admitKey(Request request, Response response, Callback callback, String endpoint) {
        if (keys.accepts(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
            return true;
        }
        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"agent-tools\"");
        refuse(response, callback, endpoint, 401, ToolException.Kind.UNAUTHENTICATED, "unauthorized",
                "a service key is required: send Authorization: Bearer <key> (one whose SHA-256 hash the server lists)");
        return false;
    }

    /** The caller's Google token (null when the header is absent or blank). */
    static String googleToken(String header) {
        return header == null || header.isBlank() ? null : header.strip();
    }

    String googleToken(Request request) {
        return googleToken(request.getHeaders().get(GOOGLE_TOKEN_HEADER));
    }

    /** Takes a running slot (waiting if there is room to); else answers 503 with Retry-After and returns false. */
    boolean enter(Response response, Callback callback, String endpoint) throws InterruptedException {
        if (admission.enter()) {
            return true;
        }
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        refuse(response, callback, endpoint, 503, ToolException.Kind.OVERLOADED, "overloaded",
                "the server has no room for the call now (calls running and waiting at their limits); retry after 1 s");
        return false;
    }

    void leave() {
        admission.leave();
    }

    /**
     * Answers a refusal.
     *
     * @param reason counted in {@code agent_tools_http_refused} (null: not a refusal to count there)
     */
    void refuse(Response response, Callback callback, String endpoint, int status, ToolException.Kind kind, String reason,
                String message) {
        if (reason != null) {
            metrics.refused(reason);
        }
        metrics.answered(endpoint, status);
        if (McpGate.PATH.equals(endpoint)) {
            // MCP's envelope on /mcp: JSON-RPC, its id not read yet (a server error -32603, any other refusal -32600)
            Answers.jsonRpcError(response, callback, status, status >= 500 ? -32603 : -32600, kind.code() + ": " + message);
        } else {
            Answers.error(response, callback, status, kind, message);
        }
    }

    /** Answers a refusal whose JSON body is made already (an OAuth error), counted by {@code reason}. */
    void refuseJson(Response response, Callback callback, String endpoint, int status, String reason, String json) {
        metrics.refused(reason);
        metrics.answered(endpoint, status);
        Answers.json(response, callback, status, json);
    }

    /** Counts a refusal answered elsewhere (by the MCP servlet, for a tool call) in {@code agent_tools_http_refused}. */
    void refused(String reason) {
        metrics.refused(reason);
    }

    void answered(String endpoint, int status) {
        metrics.answered(endpoint, status);
    }
}
