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
        JsonMapper jackson = JsonMapper.builder().build();
        McpJsonMapper mapper = new JacksonMcpJsonMapper(jackson);
        JsonSchemaValidator validator = new DefaultJsonSchemaValidator(jackson);
        HttpServletStatelessServerTransport transport = HttpServletStatelessServerTransport.builder()
                .jsonMapper(mapper).messageEndpoint(path).maxRequestSize(maxBodyBytes)
                .contextExtractor(request -> {
                    String token = tokenOf.apply(request);
                    return token == null ? McpTransportContext.EMPTY : McpTransportContext.create(Map.of(TOKEN, token));
                })
                .build();
        McpToolCalls calls = new McpToolCalls(registry, mapper, validator, names);
        List<McpStatelessServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        for (ToolSpec spec : registry.specs()) {
            McpSchema.Tool tool = calls.tool(spec);
            tools.add(new McpStatelessServerFeatures.SyncToolSpecification(tool,
                    (context, request) -> calls.call(spec.name(), tool, request, (String) context.get(TOKEN), "mcp-http")));
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
