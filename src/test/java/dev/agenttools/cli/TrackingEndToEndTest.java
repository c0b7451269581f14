package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tracking.DynaliteAccess;
import dev.agenttools.tracking.SqliteSink;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Calls made through call and serve are recorded, and `stats` reads them back, from SQLite and from DynamoDB. */
@Tag("process")
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
        return runFully(env, input, args).out();
    }

    private record Run(int exit, String out, String err) {
    }

    /** Runs a command to its end, keeping stdout and stderr. */
    private static Run runFully(Map<String, String> env, String input, String... args) throws Exception {
        Path err = Files.createTempFile("agent-tools-stderr-", ".txt");
        try {
            ProcessBuilder b = AgentToolsProcess.builder(emulator, args).redirectError(err.toFile());
            // the backends these tests count are the fetch strategies': without the mail index, which would answer
            // repeated lists itself (its own backend, "index": MailIndexTest)
            b.environment().put("AGENT_TOOLS_CACHE", "off");
            b.environment().putAll(env);
            Process p = b.start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(input.getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return new Run(p.exitValue(), out, Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private static final String LIST = "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1}}";

    private static void makeCalls(Map<String, String> env) throws Exception {
        run(env, "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2, \"agent_name\": \"e2e\"}}", "call");
        run(env, "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}", "call");
        run(env, "{\"command\": \"calendar.list-calendars\", \"params\": {}}", "call"); // the longest tool name
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
        assertThat(listAll.get("error_rate").asDouble()).isCloseTo(1 / 3.0, Offset.offset(1e-9));
        assertThat(rows.findValuesAsText("backend")).contains("batch", "concurrent");
        assertThat(rows.findValuesAsText("tool")).contains("gmail.get-email", "gmail.search-emails");
        String table = run(env, "", "stats", "--since", "1h");
        assertThat(table).contains("gmail.list-emails", "calendar.list-calendars", "p50 ms", "all");
        // fixed-width columns, each as wide as its longest value: every line of the table is as long as its header
        List<String> lines = table.lines().toList();
        assertThat(lines).as(table).allSatisfy(line -> assertThat(line).hasSize(lines.getFirst().length()));
    }

    @Test
    void recordsCallsInSqliteAndReportsThem(@TempDir Path dir) throws Exception {
        // a generous exit flush: this test is about what gets recorded, and a busy machine writes slowly
        Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING_DB", dir.resolve("calls.db").toString(),
                "AGENT_TOOLS_TRACKING_FLUSH_MS", "60000");
        makeCalls(env);
        assertStats(env);
    }

    @Test
    void recordsCallsInDynamoDbAndReportsThem() throws Exception {
        try (var dynalite = DynaliteAccess.start()) {
            Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING", "dynamodb", "AGENT_TOOLS_DYNAMODB_ENDPOINT",
                    dynalite.endpoint().toString(), "AGENT_TOOLS_DYNAMODB_TABLE", "e2e-calls", "AGENT_TOOLS_TRACKING_FLUSH_MS", "60000");
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
        assertThat(err).contains("Invalid value for option '--since': 'yesterday' is not a duration: write a number with ms, s, m, h, d or w");
        assertThat(stdout).as("nothing on stdout").isEmpty();
    }

    @Test
    void statsCreatesNoStoreWhereNoCallWasRecorded(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("not/yet/calls.db");
        Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING_DB", db.toString());
        Run table = runFully(env, "", "stats");
        assertThat(table.exit()).as(table.err()).isZero();
        assertThat(table.out()).contains("no calls recorded yet (no call store at " + db + ")");
        Run json = runFully(env, "", "stats", "--format", "json");
        assertThat(Json.MAPPER.readTree(json.out()).get("rows")).isEmpty();
        assertThat(dir.resolve("not")).as("stats reads; it creates no folder and no database").doesNotExist();
    }

    @Test
    void anEmptyTrackingDbRecordsInTheDefaultFile(@TempDir Path data) throws Exception {
        Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING_DB", "", "XDG_DATA_HOME", data.toString());
        assertThat(runFully(env, LIST, "call").exit()).isZero();
        assertThat(data.resolve("agent-tools/calls.db.pending")).as("the one-shot call's record, in the store's spool").exists();
        JsonNode stats = Json.MAPPER.readTree(runFully(env, "", "stats", "--since", "1h", "--format", "json").out());
        assertThat(stats.get("rows").findValuesAsText("tool")).contains("gmail.list-emails");
        assertThat(data.resolve("agent-tools/calls.db")).exists();
        assertThat(data.resolve("agent-tools/calls.db.pending")).as("stats moved it into the store").doesNotExist();
    }

    @Test
    void aOneShotCallSpoolsItsRecordLoadingNoSqliteClassAndStatsCountsIt(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Path classes = dir.resolve("classes.log");
        // the mail index (SQLite too) is off in these runs, so the class log shows tracking's own loads
        Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING_DB", db.toString(),
                "JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + classes);
        Run call = runFully(env, "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1, \"agent_name\": \"spooler\"}}", "call");
        assertThat(call.exit()).as(call.err()).isZero();
        String loaded = Files.readString(classes);
        assertThat(loaded).as("the class log works").contains("dev.agenttools.tracking.Spool ");
        assertThat(loaded).doesNotContain("org.sqlite");
        // nor any other store's or server's classes: a Gmail call loads what it uses
        assertThat(loaded).doesNotContain("software.amazon", "org.eclipse.jetty", "io.modelcontextprotocol", "org.slf4j");
        assertThat(db).doesNotExist();
        assertThat(Files.readString(dir.resolve("calls.db.pending"))).contains("\"agent_name\":\"spooler\"").hasLineCount(1);

        run(Map.of("AGENT_TOOLS_TRACKING_DB", db.toString()), "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}", "call");
        JsonNode rows = Json.MAPPER.readTree(run(Map.of("AGENT_TOOLS_TRACKING_DB", db.toString()), "", "stats", "--format", "json")).get("rows");
        assertThat(rows).as("stats: %s", rows).filteredOn(r -> r.get("backend").asText().equals("all"))
                .extracting(r -> r.get("tool").asText() + " " + r.get("calls").asInt())
                .containsExactly("gmail.get-email 1", "gmail.list-emails 1");
        assertThat(dir.resolve("calls.db.pending")).doesNotExist();
    }

    @Test
    void aStorePathThatIsNotAFileIsAConfigurationErrorNamingTheVariable(@TempDir Path dir) throws Exception {
        Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING_DB", dir.toString());
        Run call = runFully(env, LIST, "call");
        assertThat(call.exit()).isEqualTo(2);
        assertThat(Json.MAPPER.readTree(call.out()).path("error").path("message").asText())
                .contains("AGENT_TOOLS_TRACKING_DB must be a regular file or a path that does not exist yet, got " + dir);
        Run serve = runFully(env, LIST, "serve", "--stdio");
        assertThat(serve.exit()).isEqualTo(2);
        assertThat(serve.err()).contains("agent-tools serve: configuration: AGENT_TOOLS_TRACKING_DB must be a regular file");
        assertThat(serve.out()).isEmpty();
    }

    @Test
    void theExitGivesUpOnALockedStoreAndSaysSo(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        new SqliteSink(db).close(); // the store exists
        try (Connection lock = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = lock.createStatement()) {
            s.execute("BEGIN EXCLUSIVE"); // another process holds the write lock for as long as this test runs
            // serve writes the store itself (a one-shot call only appends to the spool: see the next test)
            Run serve = runFully(Map.of("AGENT_TOOLS_TRACKING_DB", db.toString(), "AGENT_TOOLS_TRACKING_FLUSH_MS", "1500"), LIST, "serve", "--stdio");
            assertThat(serve.exit()).isZero();
            assertThat(Json.MAPPER.readTree(serve.out()).path("status").asText()).isEqualTo("ok");
            // Before, the exit waited out SQLite's 10 s busy timeout and more; now it gives up after its budget
            // (the default, 5 s, in this test 1.5 s)
            assertThat(serve.err()).contains("1 call records dropped (sqlite store did not take the last 1 call records within 1500 ms of closing");
            s.execute("ROLLBACK");
        }
    }

    @Test
    void aOneShotCallIsNotHeldUpByALockedStoreAndItsRecordWaitsInTheSpool(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        new SqliteSink(db).close();
        Map<String, String> env = Map.of("AGENT_TOOLS_TRACKING_DB", db.toString(), "AGENT_TOOLS_TRACKING_FLUSH_MS", "1500");
        try (Connection lock = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = lock.createStatement()) {
            s.execute("BEGIN EXCLUSIVE");
            Run call = runFully(env, LIST, "call");
            assertThat(call.exit()).isZero();
            assertThat(call.err()).doesNotContain("dropped");
            s.execute("ROLLBACK");
        }
        JsonNode stats = Json.MAPPER.readTree(run(env, "", "stats", "--format", "json"));
        assertThat(stats.get("rows").findValuesAsText("tool")).containsOnly("gmail.list-emails");
    }

    @Test
    void theExitGivesUpOnADynamoDbThatDoesNotAnswerAndSaysSo() throws Exception {
        // Accepts connections (the kernel's backlog) but never answers a request.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Run call = runFully(Map.of("AGENT_TOOLS_TRACKING", "dynamodb", "AGENT_TOOLS_DYNAMODB_ENDPOINT",
                    "http://127.0.0.1:" + silent.getLocalPort(), "AGENT_TOOLS_TRACKING_FLUSH_MS", "1500"), LIST, "call");
            assertThat(call.exit()).isZero();
            assertThat(Json.MAPPER.readTree(call.out()).path("status").asText()).isEqualTo("ok");
            assertThat(call.err()).contains("1 call records dropped (dynamodb store did not take the last 1 call records within 1500 ms of closing");
        }
    }
}
