package dev.agenttools.server;

import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.util.Set;

/**
 * In front of the MCP endpoint, what MCP's Streamable HTTP transport asks of a server and the SDK's servlet does not
 * check: the service key (401 with {@code WWW-Authenticate}); the {@code Origin} of a browser's request (403 unless
 * allowed: a page must not reach the tools through a user's browser, DNS rebinding included); the
 * {@code MCP-Protocol-Version} (400 when not one this server speaks); room to run (503).
 */
final class McpGate extends Handler.Wrapper {
    static final String PATH = "/mcp";
    /** The versions the MCP SDK in use speaks. */
    static final Set<String> PROTOCOL_VERSIONS = Set.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

    private final Gate gate;
    private final Set<String> allowedOrigins;

    McpGate(Gate gate, Set<String> allowedOrigins, Handler mcp) {
        super(mcp);
        this.gate = gate;
        this.allowedOrigins = Set.copyOf(allowedOrigins);
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
        if (!gate.admitKey(request, response, callback, PATH)) {
            return true;
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
