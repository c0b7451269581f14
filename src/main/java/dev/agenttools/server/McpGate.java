package dev.agenttools.server;

import dev.agenttools.mcp.McpCaller;
import dev.agenttools.server.oauth.AuthorizationServer;
import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.util.Set;

/**
 * In front of the MCP endpoint, what MCP's Streamable HTTP transport asks of a server and the SDK's servlet does not
 * check: the service key, or with MCP authorization the server's own OAuth token (401 with {@code WWW-Authenticate}
 * either way; the OAuth one names the protected resource metadata, RFC 9728); the {@code Origin} of a browser's request (403 unless
 * allowed: a page must not reach the tools through a user's browser, DNS rebinding included); the
 * {@code MCP-Protocol-Version} (400 when not one this server speaks); room to run (503).
 */
final class McpGate extends Handler.Wrapper {
    static final String PATH = "/mcp";
    /** The versions the MCP SDK in use speaks. */
    static final Set<String> PROTOCOL_VERSIONS = Set.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

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
        if (authorization == null) {
            if (!gate.admitKey(request, response, callback, PATH)) {
                return true;
            }
        } else {
            switch (authorization.check(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
                case AuthorizationServer.Check.Refused refused -> {
                    if (refused.wwwAuthenticate() != null) {
                        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, refused.wwwAuthenticate());
                    }
                    response.getHeaders().put(HttpHeader.ACCESS_CONTROL_EXPOSE_HEADERS, "WWW-Authenticate");
                    gate.refuseJson(response, callback, PATH, refused.status(), refused.reason(), refused.json());
                    return true;
                }
                case AuthorizationServer.Check.Admitted admitted -> request.setAttribute(CALLER_ATTRIBUTE, caller(admitted));
            }
        }
        String version = request.getHeaders().get("MCP-Protocol-Version");
        if (version != null && !PROTOCOL_VERSIONS.contains(version)) {
            gate.refuse(response, callback, PATH, 400, ToolException.Kind.INVALID_ARGUMENT, "protocol_version",
                    "MCP-Protocol-Version " + (version.length() > 40 ? version.substring(0, 40) + "..." : version)
                            + " is not supported; this server speaks " + String.join(", ", new java.util.TreeSet<>(PROTOCOL_VERSIONS)));
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
