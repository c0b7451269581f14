package dev.agenttools.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.InternalErrors;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.Map;
import java.util.function.Function;

/**
 * What both MCP transports do with a tool call (stdio: {@link McpStdioServer}; HTTP: {@link McpHttpEndpoint}): the
 * registry's tools as MCP tools, the arguments checked against the tool's input schema, the call made, and failures
 * answered as tool errors ({@code isError: true}) whose text starts with the error code, never as protocol errors.
 */
final class McpToolCalls {
    private final ToolRegistry registry;
    private final McpJsonMapper mapper;
    private final JsonSchemaValidator validator;
    private final Function<String, String> mcpName;
    private final InternalErrors internals;

    /** @param internals what a caller is told of an internal failure (over HTTP: words and an error id) */
    McpToolCalls(ToolRegistry registry, McpJsonMapper mapper, JsonSchemaValidator validator, Map<String, String> names,
                 InternalErrors internals) {
        this.internals = internals;
        this.registry = registry;
        this.mapper = mapper;
        this.validator = validator;
        this.mcpName = command -> ToolProtocol.toolName(names, command);
    }

    Function<String, String> mcpName() {
        return mcpName;
    }

    McpSchema.Tool tool(ToolSpec spec) {
        return McpSchema.Tool.builder(mcpName.apply(spec.name()), mapper, Json.write(spec.inputSchema()))
                .description(spec.description()).build();
    }

    /**
     * Calls {@code command} with the request's arguments.
     *
     * @param accessToken the caller's Google token, set as the call's {@code access_token} over any in the arguments
     *                    (null: the arguments' own, else the registry's default)
     * @param agent       the agent name recorded when the arguments name none
     */
    McpSchema.CallToolResult call(String command, McpSchema.Tool tool, McpSchema.CallToolRequest request, String accessToken,
                                  String agent) {
        Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
        JsonSchemaValidator.ValidationResponse valid = validator.validate(tool.inputSchema(), arguments);
        if (!valid.valid()) {
            return error(ToolException.Kind.INVALID_ARGUMENT.code() + ": the arguments of " + tool.name()
                    + " do not match its input schema: " + valid.errorMessage().replaceFirst("^Validation failed: ", ""));
        }
        try {
            ObjectNode params = Json.MAPPER.valueToTree(arguments);
            if (accessToken != null) {
                params.put("access_token", accessToken);
            }
            String named = params.path("agent_name").isTextual() ? params.get("agent_name").asText() : agent;
            ToolResult result = registry.call(new ToolCall(command, params, named, null));
            return McpSchema.CallToolResult.builder()
                    .addTextContent(Json.write(result.data()))
                    .structuredContent(Json.MAPPER.convertValue(result.data(), Map.class))
                    .meta(Map.of("backend", result.backend().wireName(), "duration_ms", result.duration().toNanos() / 1e6))
                    .isError(false).build();
        } catch (ToolException e) {
            // when to try again, as the tool protocol's retry_after_ms: in the result's _meta, for a client's backoff
            Long retryAfterMs = e.retryAfterMs();
            return error(e.kind().code() + ": " + internals.message(command, e),
                    retryAfterMs == null ? null : Map.of("retry_after_ms", retryAfterMs));
        } catch (RuntimeException e) {
            return error("internal: " + internals.unexpected(command, e).replaceFirst("^internal error: ", ""));
        }
    }

    static McpSchema.CallToolResult error(String text) {
        return error(text, null);
    }

    private static McpSchema.CallToolResult error(String text, Map<String, Object> meta) {
        return McpSchema.CallToolResult.builder().addTextContent(text).meta(meta).isError(true).build();
    }
}
