package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.CallListener;
import dev.agenttools.tool.CallOutcome;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code agent_name}, recorded with every call, is bounded at the edge of every transport alike: the in-process call
 * and serve (the tool protocol), {@code /v1/call} and {@code /mcp} over real HTTP. A name past the bound is
 * {@code invalid_argument} naming the field and the limit, and reaches no listener (the trackers are listeners), so
 * nothing stores it; lengths count code points, as the schema's {@code maxLength} does.
 */
class AgentNameBoundTest {
    private static final String KEY = "service-key-one";
    private static final String TOKEN = "t";
    private static final String RUNNER = "\uD83C\uDFC3"; // U+1F3C3: one code point, two UTF-16 units

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static Emulator emulator;
    private static ToolRegistry registry;
    private static HttpService service;
    private static URI base;
    /** Every agent name a listener saw: what the trackers would store. */
    private static final List<String> recorded = new CopyOnWriteArrayList<>();
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .token(TOKEN).build());
        Path keys = dir.resolve("keys");
        Files.writeString(keys, "sha256:" + ServiceKeys.hash(KEY) + "\n");
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 10, 10, 64 * 1024, Duration.ofSeconds(5), keys,
                null, Set.of(), List.of(emulator.rootUri()));
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        CallListener recording = (CallOutcome o) -> recorded.add(o.call().agentName());
        registry = Tools.builder().rootUrl(emulator.rootUri().toString()).listener(metrics).listener(recording).build();
        service = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
        base = URI.create("http://127.0.0.1:" + service.port());
    }

    @AfterAll
    static void stop() {
        service.close();
        registry.close();
    }

    private static String listWith(String agentName) {
        return "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1, \"agent_name\": " + Json.write(Json.MAPPER.valueToTree(agentName)) + "}}";
    }

    private static HttpResponse<String> call(String body) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve("/v1/call")).header("Authorization", "Bearer " + KEY)
                .header(Gate.GOOGLE_TOKEN_HEADER, TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static boolean allBounded() {
        return recorded.stream().allMatch(n -> n.codePointCount(0, n.length()) <= 100);
    }

    @Test
    void aLongAgentNameIsRefusedOverV1CallAndStoredNowhere() throws Exception {
        HttpResponse<String> refused = call(listWith("x".repeat(30_000)));
        assertThat(refused.statusCode()).isEqualTo(400);
        JsonNode error = Json.MAPPER.readTree(refused.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("invalid_argument");
        assertThat(error.path("message").asText()).isEqualTo("agent_name must be 1..100 characters (Unicode code points), got 30000");
        assertThat(call(listWith(RUNNER.repeat(101))).body()).contains("got 101");
        HttpResponse<String> emoji = call(listWith(RUNNER.repeat(100)));
        assertThat(emoji.statusCode()).as("100 code points, 200 UTF-16 units: " + emoji.body()).isEqualTo(200);
        assertThat(recorded).contains(RUNNER.repeat(100));
        HttpResponse<String> bidi = call(listWith("mail-agent\u202Etxt.exe"));
        assertThat(bidi.statusCode()).isEqualTo(400);
        assertThat(bidi.body()).contains("agent_name must be one line of plain text").contains("U+202E");
        HttpResponse<String> number = call("{\"command\": \"gmail.list-emails\", \"params\": {\"agent_name\": 7}}");
        assertThat(number.body()).contains("agent_name must be a string");
        assertThat(allBounded()).as("what a tracker was given: %s", recorded.size()).isTrue();
        assertThat(recorded).noneMatch(n -> n.contains("\u202E"));
    }

    @Test
    void aLongAgentNameIsRefusedOverMcpAndTheSchemaSaysTheBound() throws Exception {
        var mapper = new JacksonMcpJsonMapper(tools.jackson.databind.json.JsonMapper.builder().build());
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(base.toString())
                .endpoint("/mcp").jsonMapper(mapper)
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + KEY).header(Gate.GOOGLE_TOKEN_HEADER, TOKEN))
                .build();
        try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build()) {
            client.initialize();
            McpSchema.Tool list = client.listTools().tools().stream().filter(t -> t.name().equals("list_emails")).findFirst().orElseThrow();
            JsonNode schema = Json.MAPPER.valueToTree(list.inputSchema());
            assertThat(schema.path("properties").path("agent_name").path("maxLength").asInt()).as(schema.toString()).isEqualTo(100);
            McpSchema.CallToolResult refused = client.callTool(McpSchema.CallToolRequest.builder("list_emails")
                    .arguments(Map.of("max_results", 1, "agent_name", "y".repeat(20_000))).build());
            assertThat(refused.isError()).isTrue();
            String text = ((McpSchema.TextContent) refused.content().get(0)).text();
            assertThat(text).startsWith("invalid_argument:").contains("agent_name").contains("100");
            McpSchema.CallToolResult emoji = client.callTool(McpSchema.CallToolRequest.builder("list_emails")
                    .arguments(Map.of("max_results", 1, "agent_name", RUNNER.repeat(100))).build());
            assertThat(emoji.isError()).as(emoji.toString()).isFalse();
            McpSchema.CallToolResult zeroWidth = client.callTool(McpSchema.CallToolRequest.builder("list_emails")
                    .arguments(Map.of("max_results", 1, "agent_name", "mail\u200Bagent")).build());
            assertThat(((McpSchema.TextContent) zeroWidth.content().get(0)).text()).startsWith("invalid_argument:")
                    .contains("agent_name must be one line of plain text").contains("U+200B");
        }
        assertThat(allBounded()).isTrue();
        assertThat(recorded).noneMatch(n -> n.startsWith("yyy"));
    }

    @Test
    void aLongAgentNameIsRefusedInProcessAsServeAndCallAnswerIt() throws Exception {
        ToolProtocol protocol = new ToolProtocol(registry, Tools.SHORT_NAMES);
        ToolProtocol.Answer answer = protocol.answer(listWith("z".repeat(101)), System.nanoTime(), TOKEN);
        assertThat(answer.json().path("error").path("message").asText())
                .isEqualTo("agent_name must be 1..100 characters (Unicode code points), got 101");
        assertThat(answer.exitStatus()).isEqualTo(2);
        JsonNode schema = protocol.answer("{\"command\": \"tools.list\"}").json().path("data").get(1).path("params_schema");
        assertThat(schema.path("properties").path("agent_name").path("maxLength").asInt()).isEqualTo(100);
        ToolProtocol.Answer longId = protocol.answer("{\"id\": \"" + "i".repeat(101) + "\", \"command\": \"tools.list\"}");
        assertThat(longId.json().path("error").path("message").asText())
                .isEqualTo("id must be at most 100 characters (Unicode code points), got 101");
        assertThat(longId.json().has("id")).as("not echoed back").isFalse();
        assertThat(allBounded()).isTrue();
    }
}
