package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tracking.DynaliteAccess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long-running process killed with SIGKILL right after its last answer: every call it answered is recorded all the
 * same, once, when it is started again on the same data folder (its call journal, shipped at start).
 */
@Tag("process")
class JournalProcessTest {
    private static final String KEY = "the-backends-key";
    private static final int CALLS = 30;

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .token("process-token").build());
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    /** A server on the data folder with these tracking settings; returns once it says where it serves. */
    private record Server(Process process, int port) {
        static Server start(Path data, Map<String, String> tracking) throws Exception {
            ProcessBuilder b = AgentToolsProcess.builder(emulator, "server", "--port", "0", "--drain", "5s");
            b.environment().put("AGENT_TOOLS_SERVICE_KEY_HASHES", ServerProcesses.keyHash(KEY));
            b.environment().put("AGENT_TOOLS_CACHE", "off");
            b.environment().put("XDG_DATA_HOME", data.toString());
            b.environment().putAll(tracking);
            Process p = b.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            int port = ServerProcesses.port(p, System.err::println);
            return new Server(p, port);
        }

        void call(HttpClient http, String id) throws Exception {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/call"))
                    .header("Authorization", "Bearer " + KEY).header("X-Google-Access-Token", "process-token")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\": \"" + id + "\", \"command\": \"gmail.list-emails\","
                            + " \"params\": {\"max_results\": 2}}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        }
    }

    /** Makes the calls, kills the server the moment the last answer is in, starts another and waits for the rows. */
    private static void killAndRestart(Path data, Map<String, String> tracking, Callable<List<String>> requestIds) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        List<String> ids = new ArrayList<>();
        Server first = Server.start(data, tracking);
        try {
            for (int i = 0; i < CALLS; i++) {
                ids.add("call-" + i);
                first.call(http, ids.getLast());
            }
            first.process().destroyForcibly(); // SIGKILL, with the answers out and their records queued or being written
            assertThat(first.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            first.process().destroyForcibly();
        }
        Server second = Server.start(data, tracking);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (requestIds.call().size() < CALLS && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            ids.add("after-restart");
            second.call(http, ids.getLast());
            second.process().destroy(); // SIGTERM: flushes its own record
            assertThat(second.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            second.process().destroyForcibly();
        }
        assertThat(requestIds.call()).as("every answered call recorded, once").containsExactlyInAnyOrderElementsOf(ids);
    }

    private static List<String> sqliteIds(Path db) throws Exception {
        List<String> ids = new ArrayList<>();
        if (!Files.exists(db)) {
            return ids;
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             ResultSet rs = c.createStatement().executeQuery("SELECT request_id FROM calls")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        } catch (SQLException e) {
            if (!String.valueOf(e.getMessage()).contains("no such table")) {
                throw e;
            }
        }
        return ids;
    }

    @Test
    void aServerKilledRightAfterItsLastAnswerHasEveryCallInDynamoDbOnceAfterItsRestart(@TempDir Path dir) throws Exception {
        try (DynaliteAccess dynalite = DynaliteAccess.start();
             DynamoDbClient client = DynamoDbClient.builder().endpointOverride(dynalite.endpoint()).region(Region.US_EAST_1)
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                     .httpClient(UrlConnectionHttpClient.create()).build()) {
            Map<String, String> tracking = Map.of("AGENT_TOOLS_TRACKING", "dynamodb", "AGENT_TOOLS_DYNAMODB_ENDPOINT",
                    dynalite.endpoint().toString(), "AGENT_TOOLS_DYNAMODB_TABLE", "journal-calls", "AWS_ACCESS_KEY_ID", "local",
                    "AWS_SECRET_ACCESS_KEY", "local");
            killAndRestart(dir.resolve("data"), tracking, () -> {
                try {
                    return client.scanPaginator(ScanRequest.builder().tableName("journal-calls").build()).items().stream()
                            .map(item -> item.get("request_id").s()).toList();
                } catch (ResourceNotFoundException notYet) {
                    return List.of();
                }
            });
        }
    }

    @Test
    void aServerAnsweringThroughADynamoDbOutageHasEveryCallRecordedOnceWhenItIsBack(@TempDir Path dir)
            throws Exception {
        DynaliteAccess dynalite = DynaliteAccess.start(dir.resolve("dynalite")); // its tables on disk: they outlive it
        try (DynamoDbClient client = DynamoDbClient.builder().endpointOverride(dynalite.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build()) {
            Map<String, String> tracking = Map.of("AGENT_TOOLS_TRACKING", "dynamodb", "AGENT_TOOLS_DYNAMODB_ENDPOINT",
                    dynalite.endpoint().toString(), "AGENT_TOOLS_DYNAMODB_TABLE", "outage-calls",
                    "AWS_ACCESS_KEY_ID", "local", "AWS_SECRET_ACCESS_KEY", "local");
            // the server makes its table at its first write: until then nothing is recorded
            Callable<List<String>> recorded = () -> {
                try {
                    return client.scanPaginator(ScanRequest.builder().tableName("outage-calls").build())
                            .items().stream().map(item -> item.get("request_id").s()).toList();
                } catch (software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException e) {
                    return List.of();
                }
            };
            HttpClient http = HttpClient.newHttpClient();
            List<String> ids = new ArrayList<>();
            Server server = Server.start(dir.resolve("data"), tracking);
            try {
                for (int i = 0; i < 10; i++) {
                    ids.add("before-" + i);
                    server.call(http, ids.getLast());
                }
                waitFor(() -> recorded.call().size() == 10, "the calls before the outage recorded");
                dynalite.stop();
                for (int i = 0; i < 30; i++) {
                    ids.add("during-" + i);
                    server.call(http, ids.getLast());
                    Thread.sleep(100); // a few seconds of calls, with the writer trying again meanwhile
                }
                waitFor(() -> ready(http, server).contains("dynamodb store refused"),
                        "the outage seen by the readiness probe");
                assertThat(ready(http, server)).as("records kept, not dropped").contains("; kept, retrying");
                dynalite = dynalite.restart();
                waitFor(() -> recorded.call().size() >= ids.size(), "the calls of the outage recorded");
                server.process().destroy(); // SIGTERM
                assertThat(server.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
            } finally {
                server.process().destroyForcibly();
            }
            assertThat(recorded.call()).as("every answered call recorded, once")
                    .containsExactlyInAnyOrderElementsOf(ids);
        } finally {
            dynalite.close();
        }
    }

    /** What /readyz answers: its body when the server is not ready, else "ready". */
    private static String ready(HttpClient http, Server server) throws Exception {
        URI readyz = URI.create("http://127.0.0.1:" + server.port() + "/readyz");
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(readyz).build(),
                HttpResponse.BodyHandlers.ofString());
        return answer.statusCode() == 200 ? "ready" : answer.body();
    }

    /** Waits up to 60 s for what the server does at its own pace (no time is asserted). */
    private static void waitFor(Callable<Boolean> condition, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.call()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    @Test
    void aServerKilledRightAfterItsLastAnswerHasEveryCallInSqliteOnceAfterItsRestart(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        killAndRestart(dir.resolve("data"), Map.of("AGENT_TOOLS_TRACKING_DB", db.toString()), () -> sqliteIds(db));
    }

    @Test
    void serveKilledRightAfterItsLastAnswerHasEveryCallInSqliteOnceAfterTheNextServe(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Path data = dir.resolve("data");
        ProcessBuilder b = AgentToolsProcess.builder(emulator, "serve", "--stdio");
        b.environment().putAll(Map.of("AGENT_TOOLS_TRACKING_DB", db.toString(), "XDG_DATA_HOME", data.toString(), "AGENT_TOOLS_CACHE", "off"));
        Process serve = b.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> ids = new ArrayList<>();
        try {
            BufferedReader answers = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
            OutputStream in = serve.getOutputStream();
            for (int i = 0; i < CALLS; i++) {
                ids.add("line-" + i);
                in.write(("{\"id\": \"line-" + i + "\", \"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1}}\n")
                        .getBytes(StandardCharsets.UTF_8));
                in.flush();
                assertThat(answers.readLine()).contains("\"status\":\"ok\"");
            }
            serve.destroyForcibly();
            assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            serve.destroyForcibly();
        }
        ProcessBuilder next = AgentToolsProcess.builder(emulator, "serve", "--stdio");
        next.environment().putAll(Map.of("AGENT_TOOLS_TRACKING_DB", db.toString(), "XDG_DATA_HOME", data.toString(), "AGENT_TOOLS_CACHE", "off",
                "AGENT_TOOLS_TRACKING_FLUSH_MS", "60000"));
        Process again = next.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (OutputStream in = again.getOutputStream()) {
            in.write("{\"id\": \"next\", \"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1}}\n".getBytes(StandardCharsets.UTF_8));
        }
        ids.add("next");
        assertThat(new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("\"status\":\"ok\"");
        assertThat(again.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(sqliteIds(db)).as("every answered call recorded, once").containsExactlyInAnyOrderElementsOf(ids);
    }
}
