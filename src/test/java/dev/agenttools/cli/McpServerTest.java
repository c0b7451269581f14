package dev.agenttools.cli;

import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.tool.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code agent-tools mcp} driven by the MCP Java SDK's own client over stdio, against the emulator. */
class McpServerTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    private static McpSyncClient client;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(5)).jitter(Duration.ZERO).build());
        List<String> command = AgentToolsProcess.javaCommand("mcp");
        Map<String, String> env = AgentToolsProcess.isolate(new java.util.HashMap<>());
        env.putAll(Map.of("AGENT_TOOLS_GMAIL_ROOT_URL", emulator.rootUri().toString(), "AGENT_TOOLS_ACCESS_TOKEN", "mcp-token",
                "AGENT_TOOLS_TRACKING_DB", AgentToolsProcess.TRACKING_DB.toString()));
        ServerParameters server = ServerParameters.builder(command.getFirst())
                .args(command.subList(1, command.size())).env(env).build();
        var mapper = new JacksonMcpJsonMapper(tools.jackson.databind.json.JsonMapper.builder().build());
        client = McpClient.sync(new StdioClientTransport(server, mapper)).requestTimeout(Duration.ofSeconds(30)).build();
        client.initialize();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.closeGracefully();
        }
        emulator.close();
    }

    @Test
    void listsTheToolsWithDescriptionsAndSchemas() {
        List<McpSchema.Tool> tools = client.listTools().tools();
        assertThat(tools).extracting(McpSchema.Tool::name).containsExactlyInAnyOrder("list_emails", "search_emails", "get_email");
        McpSchema.Tool search = tools.stream().filter(t -> t.name().equals("search_emails")).findFirst().orElseThrow();
        assertThat(search.description()).contains("Gmail's search syntax");
        Map<String, Object> schema = search.inputSchema();
        assertThat(schema.get("required").toString()).isEqualTo("[query]");
        assertThat(((Map<?, ?>) schema.get("properties")).keySet()).map(Object::toString).contains("query", "max_results", "strategy");
    }

    @Test
    void callsAToolAndReturnsItsJson() throws Exception {
        McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest("list_emails", Map.of("max_results", 3)));
        assertThat(result.isError()).isFalse();
        String text = ((McpSchema.TextContent) result.content().getFirst()).text();
        assertThat(Json.MAPPER.readTree(text).get("emails")).hasSize(3);
    }

    @Test
    void reportsFailuresAsToolErrors() {
        McpSchema.CallToolResult bad = client.callTool(new McpSchema.CallToolRequest("get_email", Map.of("message_id", "nope!")));
        assertThat(bad.isError()).isTrue();
        // the SDK checks arguments against the tool's input schema before our own validation runs
        assertThat(((McpSchema.TextContent) bad.content().getFirst()).text()).contains("message_id");
        McpSchema.CallToolResult missing = client.callTool(new McpSchema.CallToolRequest("get_email", Map.of("message_id", "00000000000000ab")));
        assertThat(missing.isError()).isTrue();
        assertThat(((McpSchema.TextContent) missing.content().getFirst()).text()).startsWith("not_found:");
    }
}
