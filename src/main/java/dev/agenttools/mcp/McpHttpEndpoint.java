package dev.agenttools.mcp;

import dev.agenttools.tool.Diagnostics;
import dev.agenttools.tool.InternalErrors;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolSpec;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The tool registry as an MCP Streamable HTTP endpoint, stateless (any instance answers any request: no session is
 * kept between requests), on the MCP SDK's servlet transport. What the SDK does not check (who calls, the protocol
 * version, the origin) the service checks before the request reaches this servlet. Public only for the service's
 * package (internal).
 */
public final class McpHttpEndpoint implements AutoCloseable {
    private static final String CALLER = "agent-tools.caller";
    private static final String PENDING = "agent-tools.pending-answer";

    /**
     * Internal failures over HTTP: words and an error id for the caller, the detail in the server's log (stderr). Read
     * at each failure, so that it follows a redirected System.err.
     */
    private static final InternalErrors INTERNALS = InternalErrors.logged(line -> Diagnostics.line("agent-tools server: " + line));

    private final HttpServletStatelessServerTransport transport;
    private final McpStatelessSyncServer server;
    private final McpRequestCheck check;

    private McpHttpEndpoint(HttpServletStatelessServerTransport transport, McpStatelessSyncServer server, McpRequestCheck check) {
        this.transport = transport;
        this.server = server;
        this.check = check;
    }

    /**
     * @param names         MCP tool name by registry command
     * @param path          where the servlet is mounted (the SDK's message endpoint)
     * @param maxBodyBytes  the largest request body read
     * @param callerOf      who the HTTP request runs as (its Google token; in the server's OAuth mode, what the token's
     *                      scope allows and what happens when Google refuses the user's token)
     */
    public static McpHttpEndpoint create(ToolRegistry registry, Map<String, String> names, String version, String path,
                                         int maxBodyBytes, Function<HttpServletRequest, McpCaller> callerOf) {
        JsonMapper jackson = JsonMapper.builder().build();
        McpJsonMapper mapper = new JacksonMcpJsonMapper(jackson);
        JsonSchemaValidator validator = new DefaultJsonSchemaValidator(jackson);
        HttpServletStatelessServerTransport transport = HttpServletStatelessServerTransport.builder()
                .jsonMapper(mapper).messageEndpoint(path).maxRequestSize(maxBodyBytes)
                .contextExtractor(request -> {
                    Map<String, Object> context = new HashMap<>();
                    McpCaller caller = callerOf.apply(request);
                    if (caller != null) {
                        context.put(CALLER, caller);
                    }
                    if (request.getAttribute(PENDING) instanceof PendingAnswer pending) {
                        context.put(PENDING, pending);
                    }
                    return context.isEmpty() ? McpTransportContext.EMPTY : McpTransportContext.create(context);
                })
                .build();
        McpToolCalls calls = new McpToolCalls(registry, mapper, validator, names, INTERNALS);
        List<McpStatelessServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        for (ToolSpec spec : registry.specs()) {
            McpSchema.Tool tool = calls.tool(spec);
            tools.add(new McpStatelessServerFeatures.SyncToolSpecification(tool,
                    (context, request) -> call(calls, spec.name(), tool, request,
                            context.get(CALLER) instanceof McpCaller c ? c : McpCaller.of(null),
                            context.get(PENDING) instanceof PendingAnswer p ? p : null)));
        }
        McpStatelessSyncServer server = McpServer.sync(transport).serverInfo("agent-tools", version)
                .jsonMapper(mapper)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions(Instructions.of(registry.specs(), calls.mcpName()))
                // the call runs on the request's own (virtual) thread: no hop to Reactor's pool
                .immediateExecution(true)
                .validateToolInputs(false) // checked by McpToolCalls, so that the text starts with invalid_argument
                .tools(tools).build();
        return new McpHttpEndpoint(transport, server, new McpRequestCheck(maxBodyBytes, mapper));
    }

    /**
     * One tools/call: refused when the caller may not call the tool; run with the caller's Google token; and when
     * Google refuses that token, run once more with the fresh one the caller gets, or refused over HTTP when the
     * caller says the user must sign in again.
     */
    private static McpSchema.CallToolResult call(McpToolCalls calls, String command, McpSchema.Tool tool,
                                                 McpSchema.CallToolRequest request, McpCaller caller, PendingAnswer pending) {
        try {
            caller.mayCall(command);
        } catch (McpCaller.Refusal refusal) {
            if (pending == null || !pending.refuse(refusal)) {
                return McpToolCalls.error("permission_denied: the caller may not call " + tool.name());
            }
            return McpToolCalls.error("permission_denied: answered over HTTP"); // never sent: the HTTP answer replaces it
        }
        String token = caller.googleToken();
        McpSchema.CallToolResult result = calls.call(command, tool, request, token, "mcp-http");
        if (Boolean.TRUE.equals(result.isError()) && result.content().getFirst() instanceof McpSchema.TextContent text
                && text.text().startsWith("unauthenticated:")) {
            try {
                String fresh = caller.afterGoogleRefused(token);
                if (fresh != null) {
                    result = calls.call(command, tool, request, fresh, "mcp-http");
                }
            } catch (McpCaller.Refusal refusal) {
                if (pending != null) {
                    pending.refuse(refusal); // when the answer is committed already, the tool error stands
                }
            }
        }
        return result;
    }

    /** The servlet to mount at the path given to {@link #create}. */
    public HttpServlet servlet() {
        return new Answering(transport, check, INTERNALS);
    }

    @Override
    public void close() {
        server.closeGracefully();
    }

    /**
     * A request's HTTP answer while the transport handles it: set to a refusal by a tool call, it replaces what the
     * transport writes after the call (the stateless transport writes only once the handler has returned).
     */
    private static final class PendingAnswer {
        private final HttpServletResponse response;
        private volatile McpCaller.Refusal refusal;

        PendingAnswer(HttpServletResponse response) {
            this.response = response;
        }

        /** Whether the refusal will be the answer (false: the answer has gone out already). */
        boolean refuse(McpCaller.Refusal r) {
            if (response.isCommitted()) {
                return false;
            }
            refusal = r;
            return true;
        }
    }

    /**
     * The transport's servlet behind our checks: a request that is not a well-formed JSON-RPC POST is answered here
     * ({@link McpRequestCheck}); what the transport answers is held and sent as it is, or in our words when it is an
     * error ({@link SdkAnswer}); a tool call's refusal replaces it as the request's HTTP answer. Nothing the SDK or the
     * servlet container throws reaches the caller as a page: it is an internal error with an id in the server's log.
     */
    private static final class Answering extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient HttpServletStatelessServerTransport transport;
        private final transient McpRequestCheck check;
        private final transient InternalErrors internals;

        Answering(HttpServletStatelessServerTransport transport, McpRequestCheck check, InternalErrors internals) {
            this.transport = transport;
            this.check = check;
            this.internals = internals;
        }

        @Override
        public void init(ServletConfig config) throws ServletException {
            super.init(config);
            transport.init(config);
        }

        @Override
        public void destroy() {
            transport.destroy();
            super.destroy();
        }

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            switch (check.check(request)) {
                case McpRequestCheck.Outcome.Refuse refuse -> {
                    if (refuse.error().status() == 405) {
                        response.setHeader("Allow", "POST");
                    }
                    refuse.error().write(response);
                }
                case McpRequestCheck.Outcome.Pass pass -> answer(request, response, pass);
            }
        }

        private void answer(HttpServletRequest request, HttpServletResponse response, McpRequestCheck.Outcome.Pass pass)
                throws IOException {
            PendingAnswer pending = new PendingAnswer(response);
            request.setAttribute(PENDING, pending);
            SdkAnswer held = new SdkAnswer(response);
            try {
                transport.service((jakarta.servlet.ServletRequest) new ReadBody(request, pass.body()), held);
            } catch (ServletException | IOException | RuntimeException e) {
                if (!response.isCommitted()) {
                    new JsonRpcError(500, pass.id(), JsonRpcError.INTERNAL_ERROR, internals.unexpected("MCP " + pass.method(), e))
                            .write(response);
                }
                return;
            }
            McpCaller.Refusal refusal = pending.refusal;
            if (refusal == null) {
                held.send(response, pass.id(), pass.method(), internals);
                return;
            }
            response.setStatus(refusal.status());
            if (refusal.wwwAuthenticate() != null) {
                // a page reads it through the Access-Control-Expose-Headers McpGate put on every answer to its origin
                response.setHeader("WWW-Authenticate", refusal.wwwAuthenticate());
            }
            response.setHeader("Cache-Control", "no-store");
            response.setContentType("application/json");
            response.setCharacterEncoding("UTF-8");
            PrintWriter out = response.getWriter();
            out.write(refusal.json());
            out.write('\n');
            out.flush();
        }
    }
}
