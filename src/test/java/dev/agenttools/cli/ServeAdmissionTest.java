package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real {@code serve --stdio} process sent far more requests than its limits against a slow Gmail: every request gets
 * exactly one answer, the excess ones {@code overloaded} at once, Gmail never sees more calls than the limit, and the
 * process ends cleanly at end of input.
 */
@Tag("process")
class ServeAdmissionTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final int REQUESTS = 400;

    @Test
    void answersOverloadedPastItsLimitsAndRunsOnlyWhatItAdmitted() throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofSeconds(2)).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(10_000).build())) {
            ProcessBuilder b = AgentToolsProcess.builder(emulator, "serve", "--stdio", "--max-in-flight", "4")
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            b.environment().put("AGENT_TOOLS_SERVE_MAX_QUEUED", "8");
            Process p = b.start();
            Thread writer = Thread.ofVirtual().start(() -> {
                try (OutputStream in = new BufferedOutputStream(p.getOutputStream())) {
                    for (int i = 0; i < REQUESTS; i++) {
                        // an unknown id: one messages.get each, answered not_found after the emulator's 2 s
                        in.write(("{\"id\": " + i + ", \"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}\n")
                                .getBytes(StandardCharsets.UTF_8));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            Map<Integer, JsonNode> answers = new HashMap<>();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                JsonNode a = Json.MAPPER.readTree(line);
                assertThat(answers.put(a.get("id").asInt(), a)).as("a second answer for id %s", a.get("id")).isNull();
            }
            writer.join();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("the server ended cleanly at end of input").isZero();

            assertThat(answers).as("one answer per request, none lost").hasSize(REQUESTS);
            long overloaded = answers.values().stream().filter(a -> a.path("error").path("code").asText().equals("overloaded")).count();
            long run = answers.values().stream().filter(a -> a.path("error").path("code").asText().equals("not_found")).count();
            assertThat(overloaded + run).as("every answer is overloaded or the call's own: %s", answers.values()).isEqualTo(REQUESTS);
            assertThat(run).as("4 running + 8 queued were admitted at least").isGreaterThanOrEqualTo(12);
            assertThat(overloaded).as("requests arrive far faster than 4 calls per 2 s finish").isGreaterThan(REQUESTS / 2);
            // and the users.getProfile the server sends, beside the calls, to learn who the token is: once, or twice when
            // the first, at this emulator's 2 s a call, outlived its own time limit on a loaded machine (seen: 14 for 12)
            assertThat(emulator.counters().apiCalls()).as("Gmail saw only the admitted calls").isBetween(run, run + 2);
            assertThat(emulator.counters().peakInFlight()).as("never more than --max-in-flight at once").isLessThanOrEqualTo(4 + 1);
        }
    }

    @Test
    void rejectsALimitOutOfRangeNamingIt() throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().build())) {
            ProcessBuilder b = AgentToolsProcess.builder(emulator, "serve", "--stdio");
            b.environment().put("AGENT_TOOLS_SERVE_MAX_IN_FLIGHT", "0");
            Process p = b.start();
            p.getOutputStream().close();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(2);
            assertThat(err).contains("AGENT_TOOLS_SERVE_MAX_IN_FLIGHT must be a whole number 1..10000, got 0");
        }
    }
}
