package dev.agenttools.server;

import dev.agenttools.mcp.McpCaller;
import dev.agenttools.server.oauth.AuthorizationServer;
import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

/**
 * In front of the MCP endpoint, what MCP's Streamable HTTP transport asks of a server and the SDK's servlet does not
 * check: the service key, or with MCP authorization the server's own OAuth token (401 with {@code WWW-Authenticate}
 * either way; the OAuth one names the protected resource metadata, RFC 9728); the {@code Origin} of a browser's request (403 unless
 * allowed: a page must not reach the tools through a user's browser, DNS rebinding included; an allowed one is answered
 * with CORS headers, its preflight included, so that a browser-based MCP client can use the endpoint); the
 * {@code MCP-Protocol-Version} (400 when not one this server speaks); the rates per client address and per user (429,
 * {@link Gate}); room to run (503).
 */
final class McpGate extends Handler.Wrapper {
    static final String PATH = "/mcp";
    /** The versions the MCP SDK in use speaks. */
    static final Set<String> PROTOCOL_VERSIONS = Set.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

    /** The request headers of MCP's HTTP transport a page may send (CORS preflight). */
    static final String ALLOW_HEADERS = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID";
    /** The answer headers a page's script may read. */
    static final String EXPOSE_HEADERS = "WWW-Authenticate, Mcp-Session-Id";
    /** How long a browser may reuse a preflight's answer. */
    static final Duration PREFLIGHT_MAX_AGE = Duration.ofHours(1);

    /** The request attribute that carries an OAuth token's caller (its user's Google token, its scope) to the MCP servlet. */
    static final String CALLER_ATTRIBUTE = "agent-tools.mcp-caller";

    private final Gate gate;
    private final Set<String> allowedOrigins;
    private final AuthorizationServer authorization;

    /** @param authorization the issuer of the tokens /mcp takes (null: /mcp takes service keys) */
    McpGate(Gate gate, Set<String> allowedOrigins, AuthorizationServer authorization, Handler mcp) {
        super(mcp);
        this.gate = gate;
        this.allowedOrigins = Set.copyOf(allowedOrigins);
        this.authorization = authorization;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!PATH.equals(Request.getPathInContext(request))) {
            return false;
        }
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        if (origin != null && !allowedOrigins.contains(origin)) {
            gate.refuse(response, callback, PATH, 403, ToolException.Kind.PERMISSION_DENIED, "origin",
                    "requests from this Origin are not allowed (the server's AGENT_TOOLS_SERVER_ALLOWED_ORIGINS)");
            return true;
        }
        if (origin != null) {
            allowOrigin(response, origin);
            if (HttpMethod.OPTIONS.is(request.getMethod())) {
                // a browser's preflight carries no Authorization (the Fetch standard leaves credentials out of it),
                // so it is answered before the token check; the request it announces is checked in full
                preflight(response, callback);
                return true;
            }
        }
        // after the CORS headers, so that an allowed page can read a 429 too
        if (!gate.admitAddress(request, response, callback, PATH, authorization == null)) {
            return true;
        }
        if (authorization == null) {
            if (!gate.admitKey(request, response, callback, PATH)
                    || !gate.admitUser(Gate.tokenUser(gate.googleToken(request)), response, callback, PATH)) {
                return true;
            }
        } else {
            switch (authorization.check(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
                case AuthorizationServer.Check.Refused refused -> {
                    if (refused.wwwAuthenticate() != null) {
                        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, refused.wwwAuthenticate());
                    }
                    gate.refuseJson(response, callback, PATH, refused.status(), refused.reason(), refused.json());
                    return true;
                }
                case AuthorizationServer.Check.Admitted admitted -> {
                    if (!gate.admitUser("account:" + admitted.account(), response, callback, PATH)) {
                        return true;
                    }
                    request.setAttribute(CALLER_ATTRIBUTE, caller(admitted));
                }
            }
        }
        String version = request.getHeaders().get("MCP-Protocol-Version");
        if (version != null && !PROTOCOL_VERSIONS.contains(version)) {
            gate.refuse(response, callback, PATH, 400, ToolException.Kind.INVALID_ARGUMENT, "protocol_version",
                    "MCP-Protocol-Version " + (version.length() > 40 ? version.substring(0, 40) + "..." : version)
                            + " is not supported; this server speaks " + String.join(", ", new TreeSet<>(PROTOCOL_VERSIONS)));
            return true;
        }
        if (!"POST".equals(request.getMethod())) {
            return countAnswer(request, response, callback);
        }
        if (!gate.enter(response, callback, PATH)) {
            return true;
        }
        boolean handled = false;
        try {
            handled = countAnswer(request, response, new Callback.Nested(callback) {
                @Override
                public void succeeded() {
                    gate.leave();
                    super.succeeded();
                }

                @Override
                public void failed(Throwable x) {
                    gate.leave();
                    super.failed(x);
                }
            });
            return handled;
        } finally {
            if (!handled) {
                gate.leave();
            }
        }
    }

    /**
     * What lets a page of an allowed origin read the answer (CORS): that origin named back (never {@code *}: the list
     * is the point), and the headers a client must read: the 401's {@code WWW-Authenticate}, which starts its sign-in,
     * and the session id.
     */
    private static void allowOrigin(Response response, String origin) {
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        response.getHeaders().add(HttpHeader.VARY, "Origin");
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSE_HEADERS);
    }

    /** The answer to a preflight from an allowed origin: the methods and headers of MCP's HTTP transport. */
    private void preflight(Response response, Callback callback) {
        response.setStatus(204);
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, DELETE, OPTIONS");
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_HEADERS, authorization == null
                ? ALLOW_HEADERS + ", " + Gate.GOOGLE_TOKEN_HEADER : ALLOW_HEADERS);
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_MAX_AGE, Long.toString(PREFLIGHT_MAX_AGE.toSeconds()));
        gate.answered(PATH, 204);
        response.write(true, null, callback);
    }

    /**
     * What a tools/call of the admitted token may do: only the tools its scope allows (else 403 insufficient_scope);
     * and when Google refuses the user's token in the call (how a grant revoked at Google shows first), the token is
     * renewed at once and the call runs again, or, when Google refuses the renewal too, the request is answered 401,
     * which sends the MCP client to sign the user in again.
     */
    private McpCaller caller(AuthorizationServer.Check.Admitted admitted) {
        return new McpCaller() {
            @Override
            public String googleToken() {
                return admitted.googleAccessToken();
            }

            @Override
            public void mayCall(String command) throws Refusal {
                AuthorizationServer.Check.Refused refused = authorization.scopeRefusal(admitted, command);
                if (refused != null) {
                    throw refusal(refused);
                }
            }

            @Override
            public String afterGoogleRefused(String token) throws Refusal {
                return switch (authorization.afterGoogleRefused(admitted, token)) {
                    case AuthorizationServer.Check.Admitted renewed -> renewed.googleAccessToken();
                    case AuthorizationServer.Check.Refused refused -> throw refusal(refused);
                    case null -> null;
                };
            }
        };
    }

    private McpCaller.Refusal refusal(AuthorizationServer.Check.Refused refused) {
        gate.refused(refused.reason());
        return new McpCaller.Refusal(refused.status(), refused.wwwAuthenticate(), refused.json());
    }

    private boolean countAnswer(Request request, Response response, Callback callback) throws Exception {
        return super.handle(request, response, new Callback.Nested(callback) {
            @Override
            public void succeeded() {
                gate.answered(PATH, response.getStatus());
                super.succeeded();
            }

            @Override
            public void failed(Throwable x) {
                gate.answered(PATH, 500);
                super.failed(x);
            }
        });
    }
}
