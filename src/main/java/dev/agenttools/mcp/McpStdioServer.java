package dev.agenttools.mcp;

import dev.agenttools.tool.InternalErrors;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolSpec;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The tool registry as an MCP server over stdio, on the official MCP Java SDK (this package is the only one that
 * imports it).
 * Each tool keeps its description and input schema; failures come back as MCP tool errors
 * ({@code isError: true}) whose text starts with the error code ({@code invalid_argument: ...}), so the model can
 * react, never as protocol errors. The SDK's own stdio transport is replaced by {@link LineTransport} (why: there); the calls are
 * {@link McpToolCalls}'.
 */
public final class McpStdioServer {
    private McpStdioServer() {
    }

    /**
     * Serves until the client closes stdin and the calls in flight are answered, then returns. Never throws on bad
     * input: every bad line is answered (see {@link LineTransport} for the codes) and reading goes on.
     *
     * @param names MCP tool name by registry command (MCP clients want names such as {@code list_emails})
     * @param log   where diagnostics go (stderr; stdout is the protocol's)
     */
    public static void serve(ToolRegistry registry, Map<String, String> names, String version, InputStream in,
                             OutputStream out, Consumer<String> log) throws IOException, InterruptedException {
        JsonMapper jackson = JsonMapper.builder().build();
        McpJsonMapper mapper = new JacksonMcpJsonMapper(jackson);
        JsonSchemaValidator validator = new DefaultJsonSchemaValidator(jackson);
        LineTransport transport = new LineTransport(mapper, jackson, in, out, log);
        McpToolCalls calls = new McpToolCalls(registry, mapper, validator, names,
                InternalErrors.SHOWN); // the user's own machine: the whole detail (see InternalErrors)
        List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        for (ToolSpec spec : registry.specs()) {
            McpSchema.Tool tool = calls.tool(spec);
            tools.add(new McpServerFeatures.SyncToolSpecification(tool,
                    (exchange, request) -> calls.call(spec.name(), tool, request, null, "mcp")));
        }
        McpSyncServer server = McpServer.sync(transport).serverInfo("agent-tools", version)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions(Instructions.of(registry.specs(), calls.mcpName()))
                // the transport runs each call on its own virtual thread, bounded; no second hop to Reactor's pool
                .immediateExecution(true)
                // checked in call() instead, so that the error text starts with invalid_argument like every other
                .validateToolInputs(false)
                .tools(tools).build();
        try {
            transport.run();
        } finally {
            server.closeGracefully();
        }
    }
}
