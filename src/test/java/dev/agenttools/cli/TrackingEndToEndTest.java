package dev.agenttools.cli;

import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.extension.RegisterExtension;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Calls made through call and serve are recorded, and `stats` reads them back, from SQLite and from DynamoDB. */
class TrackingEndToEndTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(5)).jitter(Duration.ZERO).build());
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    private static String run(Map<String, String> env, String input, String... args) throws Exception {
        ProcessBuilder b = AgentToolsProcess.builder(emulator, args).redirectError(ProcessBuilder.Redirect.DISCARD);
        b.environment().putAll(env);
        Process p = b.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    private static void makeCalls(Map<String, String> env) throws Exception {
        run(env, "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2, \"agent_name\": \"e2e\"}}", "call");
        run(env, "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}", "call");
        run(env, """
                {"id": 1, "command": "gmail.list-emails", "params": {"max_results": 1, "strategy": "batch"}}
                {"id": 2, "command": "gmail.search-emails", "params": {"query": "has:attachment", "max_results": 1}}
                {"id": 3, "command": "gmail.list-emails", "params": {"max_results": 999}}
                """, "serve", "--stdio");
    }

    private static void assertStats(Map<String, String> env) throws Exception {
        JsonNode stats = Json.MAPPER.readTree(run(env, "", "stats", "--since", "1h", "--format", "json"));
        JsonNode rows = stats.get("rows");
        JsonNode listAll = null;
        for (JsonNode r : rows) {
            if (r.get("tool").asText().equals("gmail.list-emails") && r.get("backend").asText().equals("all")) {
                listAll = r;
            }
        }
        assertThat(listAll).as("stats rows: %s", rows).isNotNull();
        assertThat(listAll.get("calls").asInt()).isEqualTo(3);
        assertThat(listAll.get("error_rate").asDouble()).isCloseTo(1 / 3.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(rows.findValuesAsText("backend")).contains("batch", "concurrent");
        assertThat(rows.findValuesAsText("tool")).contains("gmail.get-email", "gmail.search-emails");
        String table = run(env, "", "stats", "--since", "1h");
        assertThat(table).contains("gmail.list-emails", "p50 ms", "all");
    }

    @Test
    void recordsCallsInSqliteAndReportsThem(@TempDir Path dir) throws Exception {
        Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING_DB", dir.resolve("calls.db").toString());
        makeCalls(env);
        assertStats(env);
    }

    @Test
    void recordsCallsInDynamoDbAndReportsThem() throws Exception {
        try (var dynalite = dev.agenttools.tracking.DynaliteAccess.start()) {
            Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING", "dynamodb", "AGENT_TOOLS_DYNAMODB_ENDPOINT",
                    dynalite.endpoint().toString(), "AGENT_TOOLS_DYNAMODB_TABLE", "e2e-calls");
            makeCalls(env);
            assertStats(env);
        }
    }

    @Test
    void statsRejectsBadFlagsNamingThem() throws Exception {
        ProcessBuilder b = AgentToolsProcess.builder(emulator, "stats", "--since", "yesterday");
        Process p = b.start();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(err).contains("--since must be a number with m, h, d or w");
        assertThat(stdout).as("nothing on stdout").isEmpty();
    }
}
