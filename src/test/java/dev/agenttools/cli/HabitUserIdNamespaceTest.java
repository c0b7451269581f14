package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code agent-tools server} behind a trusted backend ({@code AGENT_TOOLS_HABIT_USER_PARAM=on}), over real HTTP: a
 * {@code user_id} lives in a namespace of its own, so a caller naming {@code user_id} {@code me@example.com} never
 * reaches the habits me@example.com keeps with its own Google token, and {@code ALICE} is {@code alice}.
 */
@Tag("process")
class HabitUserIdNamespaceTest {
    private static final String KEY = "the-backends-key";

    @Test
    void aUserIdNeverReachesTheHabitsAnAccountKeepsWithItsOwnToken(@TempDir Path dir) throws Exception {
        try (Emulator two = Emulator.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(2).build())) {
            ProcessBuilder b = AgentToolsProcess.builder(two, "server", "--port", "0", "--drain", "5s");
            b.environment().put("AGENT_TOOLS_SERVICE_KEY_HASHES", ServerProcesses.keyHash(KEY));
            b.environment().put("AGENT_TOOLS_CALENDAR_ROOT_URL", two.rootUri().toString());
            b.environment().put("AGENT_TOOLS_HABIT_DB", dir.resolve("habits.db").toString());
            b.environment().put("AGENT_TOOLS_HABIT_USER_PARAM", "on");
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
                String me = two.tokenFor("me@example.com");
                String other = two.tokenFor("user2@example.com");
                assertThat(as.apply(me, "{\"command\": \"habit.create\", \"params\": {\"name\": \"Private\"}}")).startsWith("{\"status\":\"ok\"");
                assertThat(as.apply(me, "{\"command\": \"habit.list\", \"params\": {}}")).contains("\"Private\"");
                for (String id : new String[] {"me@example.com", "ME@example.com"}) {
                    String named = as.apply(other, "{\"command\": \"habit.list\", \"params\": {\"user_id\": \"" + id + "\"}}");
                    assertThat(named).as("user_id " + id).startsWith("{\"status\":\"ok\"").doesNotContain("Private");
                    assertThat(as.apply(other, "{\"command\": \"habit.log\", \"params\": {\"user_id\": \"" + id
                            + "\", \"habit\": \"private\"}}")).contains("\"code\":\"not_found\"");
                }
                assertThat(as.apply(other, "{\"command\": \"habit.create\", \"params\": {\"user_id\": \"ALICE\", \"name\": \"Running\"}}"))
                        .startsWith("{\"status\":\"ok\"");
                assertThat(as.apply(other, "{\"command\": \"habit.list\", \"params\": {\"user_id\": \"alice\"}}")).contains("\"Running\"");
                assertThat(as.apply(other, "{\"command\": \"habit.list\", \"params\": {\"user_id\": \"alice\\u202e\"}}"))
                        .contains("\"code\":\"invalid_argument\"").contains("user_id must be one line of plain text");
                assertThat(as.apply(me, "{\"command\": \"habit.list\", \"params\": {}}")).as("the token's own, untouched")
                        .contains("\"Private\"").doesNotContain("Running");
            } finally {
                server.destroyForcibly();
            }
        }
    }
}
