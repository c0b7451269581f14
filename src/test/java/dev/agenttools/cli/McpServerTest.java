package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code agent-tools mcp} driven by the MCP Java SDK's own client over stdio, against the emulator. */
@Tag("process")
class McpServerTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    private static McpSyncClient client;
    private static McpSchema.InitializeResult initialized;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(5)).jitter(Duration.ZERO).build());
        List<String> command = AgentToolsProcess.javaCommand("mcp");
        Map<String, String> env = AgentToolsProcess.isolate(new HashMap<>());
        env.putAll(Map.of("AGENT_TOOLS_GMAIL_ROOT_URL", emulator.rootUri().toString(), "AGENT_TOOLS_ACCESS_TOKEN", "mcp-token",
                "AGENT_TOOLS_CALENDAR_ROOT_URL", emulator.rootUri().toString(),
                "AGENT_TOOLS_TRACKING_DB", AgentToolsProcess.TRACKING_DB.toString(),
                // habits in a file of this class's own, in the private home: never the developer's, nor another class's
                "AGENT_TOOLS_HABIT_DB", AgentToolsProcess.HOME.resolve("mcp-habits.db").toString()));
        ServerParameters server = ServerParameters.builder(command.getFirst())
                .args(command.subList(1, command.size())).env(env).build();
        var mapper = new JacksonMcpJsonMapper(tools.jackson.databind.json.JsonMapper.builder().build());
        client = McpClient.sync(new StdioClientTransport(server, mapper)).requestTimeout(Duration.ofSeconds(30)).build();
        initialized = client.initialize();
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
        assertThat(tools).extracting(McpSchema.Tool::name).containsExactlyInAnyOrder("list_emails", "search_emails", "get_email",
                "list_calendars", "list_events", "get_event", "free_busy", "create_habit", "update_habit", "archive_habit", "restore_habit", "log_habit", "list_habits", "habit_history");
        McpSchema.Tool search = tools.stream().filter(t -> t.name().equals("search_emails")).findFirst().orElseThrow();
        assertThat(search.description()).contains("Gmail's search syntax");
        Map<String, Object> schema = search.inputSchema();
        assertThat(schema.get("required").toString()).isEqualTo("[query]");
        assertThat(((Map<?, ?>) schema.get("properties")).keySet()).map(Object::toString).contains("query", "max_results", "strategy");
    }

    @Test
    void instructionsNameEveryToolServedByFamily() {
        String instructions = initialized.instructions();
        assertThat(client.listTools().tools()).allSatisfy(tool -> assertThat(instructions).contains(tool.name() + " ("));
        assertThat(instructions).contains("Gmail: list_emails (List the newest emails with a Gmail label (INBOX by default))")
                .contains("Calendar: list_calendars (").contains("timeout_ms").doesNotContain("\n");
    }

    @Test
    void callsAToolAndReturnsItsJson() throws Exception {
        McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder("list_emails").arguments(Map.of("max_results", 3)).build());
        assertThat(result.isError()).isFalse();
        String text = ((McpSchema.TextContent) result.content().getFirst()).text();
        assertThat(Json.MAPPER.readTree(text).get("emails")).hasSize(3);
    }

    @Test
    void callsACalendarToolWithAListParam() throws Exception {
        McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder("list_events")
                .arguments(Map.of("time_min", "2026-06-02", "calendar_ids", List.of("primary", "c_work.example@group.calendar.google.com"),
                        "strategy", "batch")).build());
        assertThat(result.isError()).as(result.toString()).isFalse();
        JsonNode events = Json.MAPPER.readTree(((McpSchema.TextContent) result.content().getFirst()).text()).get("events");
        assertThat(events.findValuesAsText("summary")).containsExactly("Daily stand-up", "Gym");
        McpSchema.CallToolResult bad = client.callTool(McpSchema.CallToolRequest.builder("list_events")
                .arguments(Map.of("calendar_ids", "primary")).build());
        assertThat(bad.isError()).isTrue();
        assertThat(((McpSchema.TextContent) bad.content().getFirst()).text()).startsWith("invalid_argument: ").contains("calendar_ids");
    }

    @Test
    void tracksAHabitThroughToolCallsAndAnswersBadInputAsAToolError() throws Exception {
        JsonNode created = data(client.callTool(McpSchema.CallToolRequest.builder("create_habit").arguments(Map.of("name", "Running",
                "schedule", "weekdays", "days", List.of("mon", "wed", "fri", "sat"), "target_amount", 5, "target_unit", "km",
                "time_zone", "Asia/Tokyo")).build()));
        assertThat(created.get("id").asText()).startsWith("hab_");
        assertThat(created.get("schedule").get("days")).hasSize(4);
        // "I went running" on a day it is due (days are Tokyo's), named as the user says it
        LocalDate today = LocalDate.now(ZoneId.of("Asia/Tokyo"));
        LocalDate due = today.minusDays(1);
        while (due.getDayOfWeek() == DayOfWeek.TUESDAY || due.getDayOfWeek() == DayOfWeek.THURSDAY
                || due.getDayOfWeek() == DayOfWeek.SUNDAY) {
            due = due.minusDays(1);
        }
        McpSchema.CallToolRequest ran = McpSchema.CallToolRequest.builder("log_habit").arguments(Map.of("habit", "running",
                "date", due.toString(), "amount", 6.5)).build();
        data(client.callTool(ran));
        JsonNode logged = data(client.callTool(ran)); // a client's retry: still one record
        assertThat(logged.get("date").asText()).isEqualTo(due.toString());
        assertThat(logged.get("status").get("longest_streak").asInt()).isEqualTo(1);

        JsonNode listed = data(client.callTool(McpSchema.CallToolRequest.builder("list_habits").arguments(Map.of()).build()));
        assertThat(listed.get("count").asInt()).isEqualTo(1);
        assertThat(listed.get("habits").get(0).get("status").get("longest_streak").asInt()).isEqualTo(1);
        JsonNode history = data(client.callTool(McpSchema.CallToolRequest.builder("habit_history").arguments(Map.of("habit",
                created.get("id").asText(), "from", due.toString(), "to", due.toString())).build()));
        assertThat(history.get("days").get(0).get("state").asText()).isEqualTo("done");
        assertThat(history.get("days").get(0).get("amount").asDouble()).isEqualTo(6.5);
        assertThat(history.get("done").asInt()).isEqualTo(1);

        String future = today.plusDays(2).toString(); // two days on: not today by the time the call runs, even at midnight
        McpSchema.CallToolResult ahead = client.callTool(McpSchema.CallToolRequest.builder("log_habit")
                .arguments(Map.of("habit", "Running", "date", future)).build());
        assertThat(ahead.isError()).isTrue();
        assertThat(((McpSchema.TextContent) ahead.content().getFirst()).text()).startsWith("invalid_argument: date " + future)
                .contains("in the future", "Asia/Tokyo");
        // refused by the input schema's enum before the tool runs: the same shape
        McpSchema.CallToolResult hourly = client.callTool(McpSchema.CallToolRequest.builder("create_habit")
                .arguments(Map.of("name", "Water", "schedule", "hourly")).build());
        assertThat(hourly.isError()).isTrue();
        assertThat(((McpSchema.TextContent) hourly.content().getFirst()).text()).startsWith("invalid_argument: ").contains("schedule");
        McpSchema.CallToolResult unknown = client.callTool(McpSchema.CallToolRequest.builder("log_habit")
                .arguments(Map.of("habit", "Swimming")).build());
        assertThat(unknown.isError()).isTrue();
        assertThat(((McpSchema.TextContent) unknown.content().getFirst()).text()).startsWith("not_found: habit: ").contains("Swimming");
    }

    private static JsonNode data(McpSchema.CallToolResult result) throws Exception {
        assertThat(result.isError()).as(result.toString()).isFalse();
        return Json.MAPPER.readTree(((McpSchema.TextContent) result.content().getFirst()).text());
    }

    @Test
    void reportsFailuresAsToolErrors() {
        McpSchema.CallToolResult bad = client.callTool(McpSchema.CallToolRequest.builder("get_email").arguments(Map.of("message_id", "nope!")).build());
        assertThat(bad.isError()).isTrue();
        // the input schema is checked before our own validation runs; its errors carry the code like every other
        assertThat(((McpSchema.TextContent) bad.content().getFirst()).text()).startsWith("invalid_argument: ").contains("message_id");
        McpSchema.CallToolResult missing = client.callTool(McpSchema.CallToolRequest.builder("get_email").arguments(Map.of("message_id", "00000000000000ab")).build());
        assertThat(missing.isError()).isTrue();
        assertThat(((McpSchema.TextContent) missing.content().getFirst()).text()).startsWith("not_found:");
    }

    @Test
    void answersEveryMalformedLineAndKeepsServing() throws Exception {
        try (McpLines mcp = McpLines.initialized(emulator)) {
            Map<String, Integer> bad = new LinkedHashMap<>();
            bad.put("not json", -32700);
            bad.put("\u0000", -32700);
            bad.put("[]", -32600);
            bad.put("{}", -32600);
            bad.put("1", -32600);
            bad.put("null", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":1}{\"jsonrpc\":\"2.0\",\"id\":2}", -32700);
            bad.put("[".repeat(100_000), -32700);
            bad.put("\"" + "x".repeat(2 << 20) + "\"", -32600); // over the 1 MB line limit: skipped to its end
            for (Map.Entry<String, Integer> line : bad.entrySet()) {
                mcp.send(line.getKey());
                JsonNode answer = mcp.next();
                assertThat(answer.get("error").get("code").asInt()).as("the code for %.40s", line.getKey()).isEqualTo(line.getValue());
                assertThat(answer.has("id") && answer.get("id").isNull()).as("id null for %.40s", line.getKey()).isTrue();
            }
            mcp.sendBytes(new byte[] {'{', (byte) 0xff, (byte) 0xfe, '}'});
            assertThat(mcp.next().get("error").get("code").asInt()).as("invalid UTF-8").isEqualTo(-32700);

            mcp.send("{\"id\":3,\"method\":\"ping\"}");
            assertThat(error(mcp.next(), 3)).isEqualTo(-32600); // no jsonrpc member
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"no/such\"}");
            assertThat(error(mcp.next(), 4)).isEqualTo(-32601);
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\"}");
            assertThat(error(mcp.next(), 5)).isEqualTo(-32602);
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":[1]}");
            assertThat(error(mcp.next(), 6)).isEqualTo(-32602);
            mcp.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99}}",
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
            JsonNode ping = mcp.next();
            assertThat(ping.get("id").asInt()).as("the notification got no answer; the ping did").isEqualTo(2);
            assertThat(ping.get("result").isObject()).isTrue();
            assertThat(mcp.endInput()).isZero();
        }
    }

    @Test
    void exitsAtEndOfInputAfterAnsweringTheCallsInFlight() throws Exception {
        try (McpLines mcp = McpLines.initialized(emulator)) {
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"list_emails\",\"arguments\":{\"max_results\":2}}}",
                    "not json");
            assertThat(mcp.endInput()).isZero();
            List<JsonNode> answers = new ArrayList<>(List.of(mcp.next()));
            answers.addAll(mcp.rest());
            assertThat(answers).hasSize(2);
            JsonNode call = answers.stream().filter(a -> a.path("id").asInt() == 7).findFirst().orElseThrow();
            assertThat(call.get("result").get("isError").asBoolean()).isFalse();
        }
    }

    @Test
    void answersRequestsBeforeInitializeWithAnError() throws Exception {
        try (McpLines mcp = new McpLines(emulator)) {
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
            JsonNode early = mcp.next();
            assertThat(error(early, 1)).isEqualTo(-32600);
            assertThat(early.get("error").get("message").asText()).startsWith("server not initialized");
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
            assertThat(mcp.next().get("result").isObject()).as("ping is allowed before initialize").isTrue();
            mcp.send(McpLines.INITIALIZE);
            assertThat(mcp.next().get("result").get("protocolVersion").asText()).isNotBlank();
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
            assertThat(error(mcp.next(), 3)).as("before notifications/initialized").isEqualTo(-32600);
            mcp.send(McpLines.INITIALIZED, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
            assertThat(mcp.next().get("result").get("tools")).hasSize(14);
            assertThat(mcp.endInput()).isZero();
        }
    }

    @Test
    void rejectsInitializeWithoutParamsAsInvalidParams() throws Exception {
        try (McpLines mcp = new McpLines(emulator)) {
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}",
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":7}}");
            for (int id = 1; id <= 2; id++) {
                JsonNode answer = mcp.next();
                assertThat(error(answer, id)).isEqualTo(-32602);
                assertThat(answer.get("error").get("message").asText()).contains("protocolVersion")
                        .doesNotContain("Exception").doesNotContain("null");
            }
            mcp.send(McpLines.INITIALIZE);
            assertThat(mcp.next().get("result").get("serverInfo").get("name").asText()).isEqualTo("agent-tools");
            assertThat(mcp.endInput()).isZero();
        }
    }

    @Test
    void answersPingsWhileToolCallsAreQueued() throws Exception {
        int calls = 1_000;
        try (Emulator slow = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(20)).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(10_000).build());
             McpLines mcp = McpLines.initialized(slow)) {
            StringBuilder lines = new StringBuilder();
            for (int i = 0; i < calls; i++) {
                lines.append("{\"jsonrpc\":\"2.0\",\"id\":").append(i)
                        .append(",\"method\":\"tools/call\",\"params\":{\"name\":\"list_emails\",\"arguments\":{\"max_results\":1}}}\n");
            }
            lines.append("{\"jsonrpc\":\"2.0\",\"id\":\"ping\",\"method\":\"ping\"}");
            mcp.send(lines.toString());
            int before = 0;
            while (!mcp.next().path("id").asText().equals("ping")) {
                before++;
            }
            // the SDK's transport answered the ping only once all but 256 calls were done (after ~745 answers here)
            System.out.println("answersPingsWhileToolCallsAreQueued: " + before + " tool answers came before the ping's");
            assertThat(before).as("tool answers written before the ping's").isLessThan(calls / 2);
            assertThat(mcp.endInput()).isZero();
        }
    }

    private static int error(JsonNode answer, int id) {
        assertThat(answer.get("id").asInt()).isEqualTo(id);
        assertThat(answer.has("result")).isFalse();
        return answer.get("error").get("code").asInt();
    }
}
