package dev.agenttools.mcp;

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
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
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
    private static final String TOKEN = "agent-tools.google-access-token";
    private static final String ON_REFUSED = "agent-tools.on-google-refusal";

    private final HttpServletStatelessServerTransport transport;
    private final McpStatelessSyncServer server;

    private McpHttpEndpoint(HttpServletStatelessServerTransport transport, McpStatelessSyncServer server) {
        this.transport = transport;
        this.server = server;
    }

    /**
     * @param names         MCP tool name by registry command
     * @param path          where the servlet is mounted (the SDK's message endpoint)
     * @param maxBodyBytes  the largest request body read
     * @param tokenOf       the caller's Google access token, from the HTTP request (null: none)
     */
    public static McpHttpEndpoint create(ToolRegistry registry, Map<String, String> names, String version, String path,
                                         int maxBodyBytes, Function<HttpServletRequest, String> tokenOf) {
        return create(registry, names, version, path, maxBodyBytes, tokenOf, request -> null);
    }

    /**
     * @param onRefused what to run, for the HTTP request, when Google refused its token in a tool call
     *                  ({@code unauthenticated}): null for nothing. The server's OAuth mode forgets the user's cached
     *                  Google token then, so that the next request finds out whether the grant was revoked.
     */
    public static McpHttpEndpoint create(ToolRegistry registry, Map<String, String> names, String version, String path,
                                         int maxBodyBytes, Function<HttpServletRequest, String> tokenOf,
                                         Function<HttpServletRequest, Runnable> onRefused) {
        JsonMapper jackson = JsonMapper.builder().build();
        McpJsonMapper mapper = new JacksonMcpJsonMapper(jackson);
        JsonSchemaValidator validator = new DefaultJsonSchemaValidator(jackson);
        HttpServletStatelessServerTransport transport = HttpServletStatelessServerTransport.builder()
                .jsonMapper(mapper).messageEndpoint(path).maxRequestSize(maxBodyBytes)
                .contextExtractor(request -> {
                    String token = tokenOf.apply(request);
                    Runnable refused = onRefused.apply(request);
                    Map<String, Object> context = new java.util.HashMap<>();
                    if (token != null) {
                        context.put(TOKEN, token);
                    }
                    if (refused != null) {
                        context.put(ON_REFUSED, refused);
                    }
                    return context.isEmpty() ? McpTransportContext.EMPTY : McpTransportContext.create(context);
                })
                .build();
        McpToolCalls calls = new McpToolCalls(registry, mapper, validator, names);
        List<McpStatelessServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        for (ToolSpec spec : registry.specs()) {
            McpSchema.Tool tool = calls.tool(spec);
            tools.add(new McpStatelessServerFeatures.SyncToolSpecification(tool,
                    (context, request) -> {
                        McpSchema.CallToolResult result = calls.call(spec.name(), tool, request, (String) context.get(TOKEN), "mcp-http");
                        if (Boolean.TRUE.equals(result.isError()) && context.get(ON_REFUSED) instanceof Runnable refused
                                && result.content().getFirst() instanceof McpSchema.TextContent text
                                && text.text().startsWith("unauthenticated:")) {
                            refused.run();
                        }
                        return result;
                    }));
        }
        McpStatelessSyncServer server = McpServer.sync(transport).serverInfo("agent-tools", version)
                .jsonMapper(mapper)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions(Instructions.of(registry.specs(), calls.mcpName()))
                // the call runs on the request's own (virtual) thread: no hop to Reactor's pool
                .immediateExecution(true)
                .validateToolInputs(false) // checked by McpToolCalls, so that the text starts with invalid_argument
                .tools(tools).build();
        return new McpHttpEndpoint(transport, server);
    }

    /** The servlet to mount at the path given to {@link #create}. */
    public HttpServlet servlet() {
        return transport;
    }

    @Override
    public void close() {
        server.closeGracefully();
    }
}
