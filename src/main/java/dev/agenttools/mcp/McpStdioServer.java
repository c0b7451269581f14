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
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The tool registry as an MCP server over stdio, on the official MCP Java SDK (the only class that imports it).
 * Each tool keeps its description and input schema; failures come back as MCP tool errors
 * ({@code isError: true}) whose text names the error code, so the model can react, never as protocol errors.
 */
public final class McpStdioServer {
    private McpStdioServer() {
    }

    /**
     * Serves until the client closes stdin, then returns.
     *
     * @param names MCP tool name by registry command (MCP clients want names such as {@code list_emails})
     */
    public static void serve(ToolRegistry registry, Map<String, String> names, String version, InputStream in,
                             OutputStream out) throws InterruptedException {
        McpJsonMapper mapper = new JacksonMcpJsonMapper(tools.jackson.databind.json.JsonMapper.builder().build());
        CountDownLatch closed = new CountDownLatch(1);
        StdioServerTransportProvider transport = new StdioServerTransportProvider(mapper, new EndAware(in, closed), out);
        List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        for (ToolSpec spec : registry.specs()) {
            String name = names.getOrDefault(spec.name(), spec.name().replaceAll("[^A-Za-z0-9_-]", "_"));
            McpSchema.Tool tool = McpSchema.Tool.builder().name(name).description(spec.description())
                    .inputSchema(mapper, Json.write(spec.inputSchema())).build();
            tools.add(new McpServerFeatures.SyncToolSpecification(tool, (exchange, request) -> call(registry, spec.name(), request)));
        }
        McpSyncServer server = McpServer.sync(transport).serverInfo("agent-tools", version)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions("Gmail tools: list_emails (by label), search_emails (Gmail search syntax), get_email (one whole email).")
                .tools(tools).build();
        closed.await();
        server.closeGracefully();
    }

    private static McpSchema.CallToolResult call(ToolRegistry registry, String command, McpSchema.CallToolRequest request) {
        try {
            ObjectNode params = request.arguments() == null ? Json.object() : Json.MAPPER.valueToTree(request.arguments());
            String agent = params.path("agent_name").isTextual() ? params.get("agent_name").asText() : "mcp";
            ToolResult result = registry.call(new ToolCall(command, params, agent, null));
            return McpSchema.CallToolResult.builder()
                    .addTextContent(Json.write(result.data()))
                    .structuredContent(Json.MAPPER.convertValue(result.data(), Map.class))
                    .meta(Map.of("backend", result.backend(), "duration_ms", result.duration().toNanos() / 1e6))
                    .isError(false).build();
        } catch (ToolException e) {
            return McpSchema.CallToolResult.builder().addTextContent(e.kind().code() + ": " + e.getMessage()).isError(true).build();
        } catch (RuntimeException e) {
            return McpSchema.CallToolResult.builder().addTextContent("internal: " + e.getClass().getSimpleName()).isError(true).build();
        }
    }

    /** Tells the server loop when the client has closed our stdin. */
    private static final class EndAware extends FilterInputStream {
        private final CountDownLatch closed;

        EndAware(InputStream in, CountDownLatch closed) {
            super(in);
            this.closed = closed;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b < 0) {
                closed.countDown();
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            int n = super.read(buffer, off, len);
            if (n < 0) {
                closed.countDown();
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            closed.countDown();
            super.close();
        }
    }
}
