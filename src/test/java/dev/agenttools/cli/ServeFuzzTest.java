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
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sends 10,000 random and mutated lines to a real {@code serve --stdio} process: every line gets exactly one
 * well-formed answer, no answer carries a stack trace, and the process is still serving at the end.
 */
@Tag("process")
class ServeFuzzTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final int LINES = 10_000;
    private static final List<String> SEEDS = List.of(
            "{\"id\": 1, \"command\": \"tools.list\", \"params\": {}}",
            "{\"id\": \"a\", \"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"18c9a1b2c3d4e5f6\"}}",
            "{\"id\": 2, \"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2, \"strategy\": \"batch\"}}",
            "{\"id\": 3, \"command\": \"gmail.search-emails\", \"params\": {\"query\": \"from:priya\", \"max_results\": 1}}",
            "{\"command\": \"gmail.list-emails\", \"params\": {\"label\": \"Work\", \"max_results\": 1, \"timeout_ms\": 5000}}");

    @Test
    void everyLineIsAnsweredAndTheProcessSurvives() throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(10_000).build())) {
            // Room for every line, so that each valid request reaches the tools instead of being answered overloaded
            // (ServeAdmissionTest covers the limits).
            Process p = AgentToolsProcess.start(emulator, "serve", "--stdio", "--max-queued", Integer.toString(LINES));
            Random random = new Random(20261130);
            List<byte[]> lines = new ArrayList<>(LINES);
            for (int i = 0; i < LINES; i++) {
                lines.add(line(random));
            }
            Thread writer = Thread.ofVirtual().start(() -> {
                try (OutputStream in = new BufferedOutputStream(p.getOutputStream())) {
                    for (byte[] line : lines) {
                        in.write(line);
                        in.write('\n');
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            int answers = 0;
            int errors = 0;
            String answer;
            while ((answer = out.readLine()) != null) {
                JsonNode a = Json.MAPPER.readTree(answer);
                assertThat(a.get("status").asText()).isIn("ok", "error");
                if (a.get("status").asText().equals("error")) {
                    errors++;
                    assertThat(a.get("error").get("code").asText()).isNotBlank();
                    assertThat(a.get("error").get("message").asText()).isNotBlank().doesNotContain("\tat ");
                }
                answers++;
            }
            writer.join();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("the server ended cleanly at end of input").isZero();
            assertThat(answers).isEqualTo(LINES);
            assertThat(errors).isBetween(LINES / 2, LINES - 1);
        }
    }

    /** A random line: garbage bytes, a mutated valid request, or a valid request with random values. */
    private static byte[] line(Random r) {
        int kind = r.nextInt(10);
        if (kind < 2) {
            byte[] junk = new byte[r.nextInt(200)];
            r.nextBytes(junk);
            return clean(junk);
        }
        String seed = SEEDS.get(r.nextInt(SEEDS.size()));
        if (kind < 8) {
            StringBuilder b = new StringBuilder(seed);
            int edits = 1 + r.nextInt(4);
            for (int e = 0; e < edits && !b.isEmpty(); e++) {
                int at = r.nextInt(b.length());
                switch (r.nextInt(5)) {
                    case 0 -> b.deleteCharAt(at);
                    case 1 -> b.insert(at, "{}[]\",:\\0-9e".charAt(r.nextInt(12)));
                    case 2 -> b.setCharAt(at, (char) (32 + r.nextInt(95)));
                    case 3 -> b.insert(at, b.substring(at, Math.min(b.length(), at + r.nextInt(20))));
                    default -> b.insert(at, "\uD83D\uDCE7\u00e9\u3042");
                }
            }
            return clean(b.toString().getBytes(StandardCharsets.UTF_8));
        }
        Object[] values = {-1, 0, 501, 1e300, "x", "", null, true, List.of(1), "'; DROP TABLE", Long.MAX_VALUE, "ffffffffffffffffff"};
        Object v = values[r.nextInt(values.length)];
        String json = v == null ? "null" : v instanceof String s ? "\"" + s + "\"" : v instanceof List<?> ? "[1]" : v.toString();
        String field = List.of("max_results", "message_id", "query", "strategy", "timeout_ms", "label", "page_token", "bogus").get(r.nextInt(8));
        String command = List.of("gmail.list-emails", "gmail.get-email", "gmail.search-emails").get(r.nextInt(3));
        return ("{\"id\": " + r.nextInt(1000) + ", \"command\": \"" + command + "\", \"params\": {\"" + field + "\": " + json
                + ", \"max_results\": 1}}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] clean(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                bytes[i] = ' ';
            }
        }
        return bytes;
    }
}
