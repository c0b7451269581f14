package dev.agenttools.cli;

import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.extension.RegisterExtension;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End to end with a client we did not write: the MCP Inspector's CLI ({@code @modelcontextprotocol/inspector},
 * installed by the build from src/test/node) starts {@code agent-tools mcp} and lists and calls its tools.
 */
@Tag("process")
class McpInspectorTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    @TempDir
    static Path home;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(5)).jitter(Duration.ZERO).build());
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    private static JsonNode inspect(String... method) throws Exception {
        Path dir = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        Path launcher = dir.resolve("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
        assertThat(launcher).as("the MCP Inspector (the build runs 'npm ci' in %s)", dir).exists();
        List<String> command = new ArrayList<>(List.of("node", launcher.toString(), "--cli",
                "-e", "AGENT_TOOLS_GMAIL_ROOT_URL=" + emulator.rootUri(), "-e", "AGENT_TOOLS_ACCESS_TOKEN=inspector-token",
                "-e", "AGENT_TOOLS_TRACKING_DB=" + AgentToolsProcess.TRACKING_DB));
        command.addAll(AgentToolsProcess.javaCommand("mcp"));
        command.addAll(List.of(method));
        ProcessBuilder b = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        AgentToolsProcess.isolate(b.environment());
        b.environment().put("HOME", home.toString()); // the Inspector keeps a catalog under ~/.mcp-inspector
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        int start = out.indexOf('{');
        assertThat(start).as("JSON from the Inspector: %s", out).isGreaterThanOrEqualTo(0);
        return Json.MAPPER.readTree(out.substring(start, out.lastIndexOf('}') + 1).lines()
                .takeWhile(l -> !l.startsWith("{\"error\"")).reduce("", (a, l) -> a + l + "\n"));
    }

    @Test
    void listsAndCallsTheToolsThroughTheInspector() throws Exception {
        JsonNode list = inspect("--method", "tools/list");
        // each tool's own name (findValues would also find the habit tools' "name" param in their schemas)
        assertThat(list.get("tools").valueStream().map(t -> t.path("name").asText()).toList()).containsExactlyInAnyOrder("list_emails", "search_emails", "get_email",
                "list_calendars", "list_events", "get_event", "free_busy", "create_habit", "update_habit", "archive_habit", "restore_habit", "log_habit", "list_habits", "habit_history");

        JsonNode call = inspect("--method", "tools/call", "--tool-name", "search_emails", "--tool-arg", "query=has:attachment",
                "--tool-arg", "max_results=2");
        assertThat(call.path("isError").asBoolean(false)).isFalse();
        JsonNode data = Json.MAPPER.readTree(call.get("content").get(0).get("text").asText());
        assertThat(data.get("emails")).hasSize(2);
        assertThat(data.get("emails").get(0).get("has_attachments").asBoolean()).isTrue();

        JsonNode missing = inspect("--method", "tools/call", "--tool-name", "get_email", "--tool-arg", "message_id=00000000000000ab");
        assertThat(missing.get("isError").asBoolean()).isTrue();
        assertThat(missing.get("content").get(0).get("text").asText()).startsWith("not_found:");

        // an argument that breaks the input schema: a tool error with the code first, like every other
        JsonNode invalid = inspect("--method", "tools/call", "--tool-name", "get_email", "--tool-arg", "message_id=nope!");
        assertThat(invalid.get("isError").asBoolean()).isTrue();
        assertThat(invalid.get("content").get(0).get("text").asText()).startsWith("invalid_argument: ").contains("message_id");
    }
}
