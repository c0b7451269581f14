package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code agent-tools server} as an operator starts it: a process of its own, configured by the environment, stopped by SIGTERM. */
@Tag("process")
class ServerCommandTest {
    private static final String KEY = "the-backends-key";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;

    @BeforeAll
    static void start() {
        // the emulator accepts exactly the token the server process is configured with: the server must not use it
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .token("process-token").build());
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    @Test
    void servesCallsWithTheUsersTokenOnlyAndStopsOnSigterm() throws Exception {
        ProcessBuilder b = AgentToolsProcess.builder(emulator, "server", "--port", "0", "--drain", "5s");
        b.environment().put("AGENT_TOOLS_SERVICE_KEY_HASHES", ServerProcesses.keyHash(KEY));
        b.environment().put("AGENT_TOOLS_CALENDAR_ROOT_URL", emulator.rootUri().toString());
        Process server = b.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            int port = ServerProcesses.port(server, l -> { }); // the rest of its stderr drained
            HttpClient http = HttpClient.newHttpClient();
            URI call = URI.create("http://127.0.0.1:" + port + "/v1/call");
            String list = "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}";
            HttpResponse<String> withoutToken = http.send(HttpRequest.newBuilder(call).header("Authorization", "Bearer " + KEY)
                    .POST(HttpRequest.BodyPublishers.ofString(list)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(withoutToken.statusCode()).as("the process's own token is never a caller's").isEqualTo(401);
            assertThat(withoutToken.body()).contains("X-Google-Access-Token");
            HttpResponse<String> withToken = http.send(HttpRequest.newBuilder(call).header("Authorization", "Bearer " + KEY)
                    .header("X-Google-Access-Token", "process-token")
                    .POST(HttpRequest.BodyPublishers.ofString(list)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(withToken.statusCode()).isEqualTo(200);
            assertThat(withToken.body()).startsWith("{\"status\":\"ok\"").contains("\"emails\"");
            // the registry's pacing counts what /metrics shows: one account paced, named nowhere
            String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("agent_tools_paced_accounts{api=\"gmail\"} 1.0")
                    .contains("agent_tools_quota_waits_total{api=\"gmail\"}")
                    .doesNotContain("process-token").doesNotContain(EmulatorConfig.DEFAULT_USER);
            server.destroy(); // SIGTERM
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped within its drain").isTrue();
            assertThat(server.exitValue()).isIn(0, 143);
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void refusesToStartWithoutAServiceKeyOrWithABadLimit() throws Exception {
        for (String[] args : new String[][] {{"server", "--port", "0"}, {"server", "--port", "0", "--max-in-flight", "0"}}) {
            ProcessBuilder b = AgentToolsProcess.builder(emulator, args);
            if (args.length > 3) {
                b.environment().put("AGENT_TOOLS_SERVICE_KEY_HASHES", ServerProcesses.keyHash(KEY));
            }
            Process p = b.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(err).isEqualTo(Main.CONFIGURATION);
            assertThat(err).contains(args.length > 3 ? "--max-in-flight must be 1..100000" : "AGENT_TOOLS_SERVICE_KEYS")
                    .doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    @Test
    void refusesAnUnknownWayOfSharingTheQuotaNamingTheSettingAndItsValues() throws Exception {
        ProcessBuilder b = AgentToolsProcess.builder(emulator, "server", "--port", "0");
        b.environment().put("AGENT_TOOLS_SERVICE_KEY_HASHES", ServerProcesses.keyHash(KEY));
        b.environment().put("AGENT_TOOLS_SHARED_STATE", "dynamodb");
        b.environment().put("AGENT_TOOLS_SHARED_QUOTA", "exact");
        Process p = b.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(err).isEqualTo(Main.CONFIGURATION);
        assertThat(err).contains("AGENT_TOOLS_SHARED_QUOTA must be shares or bucket, got exact")
                .doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void keepsEachEndUsersHabitsByTheGoogleAccountOfTheirToken(@TempDir Path dir) throws Exception {
        try (Emulator two = Emulator.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(2).build())) {
            ProcessBuilder b = AgentToolsProcess.builder(two, "server", "--port", "0", "--drain", "5s");
            b.environment().put("AGENT_TOOLS_SERVICE_KEY_HASHES", ServerProcesses.keyHash(KEY));
            b.environment().put("AGENT_TOOLS_CALENDAR_ROOT_URL", two.rootUri().toString());
            b.environment().put("AGENT_TOOLS_HABIT_DB", dir.resolve("habits.db").toString());
            b.environment().put("AGENT_TOOLS_HABIT_USER", "operator"); // a service of many users never uses it
            Process server = b.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            try {
                int port = ServerProcesses.port(server, l -> { });
                HttpClient http = HttpClient.newHttpClient();
                URI call = URI.create("http://127.0.0.1:" + port + "/v1/call");
                BiFunction<String, String, String> as = (token, request) -> {
                    try {
                        return http.send(HttpRequest.newBuilder(call).header("Authorization", "Bearer " + KEY)
                                .header("X-Google-Access-Token", token).POST(HttpRequest.BodyPublishers.ofString(request)).build(),
                                HttpResponse.BodyHandlers.ofString()).body();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                };
                String ann = two.tokenFor("me@example.com");
                String bob = two.tokenFor("user2@example.com");
                assertThat(as.apply(ann, "{\"command\": \"habit.create\", \"params\": {\"name\": \"Running\"}}")).startsWith("{\"status\":\"ok\"");
                String list = "{\"command\": \"habit.list\", \"params\": {}}";
                assertThat(as.apply(ann, list)).contains("\"Running\"");
                assertThat(as.apply(bob, list)).as("another account's token").startsWith("{\"status\":\"ok\"").doesNotContain("Running");
                assertThat(as.apply(bob, "{\"command\": \"habit.list\", \"params\": {\"user_id\": \"me@example.com\"}}"))
                        .as("no trusted backend: a caller cannot name another user").contains("invalid_argument").contains("user_id");
            } finally {
                server.destroyForcibly();
            }
        }
    }
}
