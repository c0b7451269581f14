package dev.agenttools.server;

import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * What every tool endpoint checks before a call runs, in this order: the service key, then room to run. Refusals are
 * answered here, counted by reason, and never echo what was presented (a key, a token).
 */
final class Gate {
    /** The end user's Google access token, per request; never logged, counted or echoed. */
    static final String GOOGLE_TOKEN_HEADER = "X-Google-Access-Token";

    private final ServiceKeys keys;
    private final Admission admission;
    private final ServiceMetrics metrics;

    Gate(ServiceKeys keys, Admission admission, ServiceMetrics metrics) {
        this.keys = keys;
        this.admission = admission;
        this.metrics = metrics;
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
