package dev.agenttools.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
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
import java.util.function.Function;

/**
 * The tool registry as an MCP server over stdio, on the official MCP Java SDK (this package is the only one that
 * imports it).
 * Each tool keeps its description and input schema; failures come back as MCP tool errors
 * ({@code isError: true}) whose text starts with the error code ({@code invalid_argument: ...}), so the model can
 * react, never as protocol errors. The SDK's own stdio transport is replaced by {@link LineTransport} (why: there).
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
        List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        Function<String, String> mcpName = command -> names.getOrDefault(command, command.replaceAll("[^A-Za-z0-9_-]", "_"));
        for (ToolSpec spec : registry.specs()) {
            String name = mcpName.apply(spec.name());
            McpSchema.Tool tool = McpSchema.Tool.builder(name, mapper, Json.write(spec.inputSchema()))
                    .description(spec.description()).build();
            tools.add(new McpServerFeatures.SyncToolSpecification(tool,
                    (exchange, request) -> call(registry, spec.name(), tool, validator, request)));
        }
        McpSyncServer server = McpServer.sync(transport).serverInfo("agent-tools", version)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions(Instructions.of(registry.specs(), mcpName))
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

    private static McpSchema.CallToolResult call(ToolRegistry registry, String command, McpSchema.Tool tool,
                                                 JsonSchemaValidator validator, McpSchema.CallToolRequest request) {
        Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
        JsonSchemaValidator.ValidationResponse valid = validator.validate(tool.inputSchema(), arguments);
        if (!valid.valid()) {
            return error(ToolException.Kind.INVALID_ARGUMENT.code() + ": the arguments of " + tool.name()
                    + " do not match its input schema: " + valid.errorMessage().replaceFirst("^Validation failed: ", ""));
        }
        return call(registry, command, request);
    }

    private static McpSchema.CallToolResult error(String text) {
        return McpSchema.CallToolResult.builder().addTextContent(text).isError(true).build();
    }

    private static McpSchema.CallToolResult call(ToolRegistry registry, String command, McpSchema.CallToolRequest request) {
        try {
            ObjectNode params = request.arguments() == null ? Json.object() : Json.MAPPER.valueToTree(request.arguments());
            String agent = params.path("agent_name").isTextual() ? params.get("agent_name").asText() : "mcp";
            ToolResult result = registry.call(new ToolCall(command, params, agent, null));
            return McpSchema.CallToolResult.builder()
                    .addTextContent(Json.write(result.data()))
                    .structuredContent(Json.MAPPER.convertValue(result.data(), Map.class))
                    .meta(Map.of("backend", result.backend().wireName(), "duration_ms", result.duration().toNanos() / 1e6))
                    .isError(false).build();
        } catch (ToolException e) {
            return error(e.kind().code() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            return error("internal: " + e.getClass().getSimpleName());
        }
    }
}
