package dev.agenttools.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sends 10,000 random and mutated JSON-RPC lines to one real {@code agent-tools mcp} process, after a proper
 * initialization: every request (an object whose id is a string or a 64-bit integer) is answered exactly once with a
 * well-formed JSON-RPC response, other answers are -32700/-32600 with id null, no answer carries Java exception text,
 * a ping after the last line is still answered, and the process exits 0 at end of input. The seed is printed and
 * can be set with {@code -Dagenttools.mcpFuzzSeed=...} to replay a failure.
 */
@Tag("process")
class McpFuzzTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final int LINES = 10_000;
    private static final long DEFAULT_SEED = 20261130L;
    /** Request shapes; {@code ID} is replaced by a fresh id before mutation. */
    private static final List<String> SEEDS = List.of(
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/list\",\"params\":{}}",
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/call\",\"params\":{\"name\":\"list_emails\",\"arguments\":{\"max_results\":2}}}",
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/call\",\"params\":{\"name\":\"search_emails\",\"arguments\":{\"query\":\"from:priya\",\"max_results\":1}}}",
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/call\",\"params\":{\"name\":\"get_email\",\"arguments\":{\"message_id\":\"18c9a1b2c3d4e5f6\"}}}",
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}",
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"resources/list\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":ID}}",
            "{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{}}");
    private static final ObjectReader STRICT = Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @Test
    void everyRequestIsAnsweredOnceAndTheProcessSurvives() throws Exception {
        long seed = Long.getLong("agenttools.mcpFuzzSeed", DEFAULT_SEED);
        System.out.println("McpFuzzTest seed: " + seed + " (replay with -Dagenttools.mcpFuzzSeed=" + seed + ")");
        Random random = new Random(seed);
        List<byte[]> lines = new ArrayList<>(LINES + 3);
        lines.add(McpLines.INITIALIZE.getBytes(StandardCharsets.UTF_8));
        lines.add(McpLines.INITIALIZED.getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < LINES; i++) {
            lines.add(line(random, i));
        }
        lines.add("{\"jsonrpc\":\"2.0\",\"id\":\"final-ping\",\"method\":\"ping\"}".getBytes(StandardCharsets.UTF_8));
        Map<String, Integer> expected = new HashMap<>();
        for (byte[] line : lines) {
            String id = requestId(line);
            if (id != null) {
                expected.merge(id, 1, Integer::sum);
            }
        }

        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(10_000).build())) {
            Path stderr = Files.createTempFile("mcp-fuzz-stderr-", ".txt");
            Process p = AgentToolsProcess.builder(emulator, "mcp").redirectError(stderr.toFile()).start();
            try {
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
                Map<String, Integer> answered = new HashMap<>();
                int unidentified = 0;
                int toolResults = 0;
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String answer;
                while ((answer = out.readLine()) != null) {
                    JsonNode a = Json.MAPPER.readTree(answer);
                    assertWellFormed(a, answer, seed);
                    if (a.get("id").isNull()) {
                        unidentified++;
                        assertThat(a.get("error").get("code").asInt()).as("seed %d: %s", seed, answer).isIn(-32700, -32600);
                    } else {
                        if (a.path("result").has("content") && !a.get("result").path("isError").asBoolean()) {
                            toolResults++;
                        }
                        answered.merge(a.get("id").toString(), 1, Integer::sum);
                    }
                }
                writer.join();
                assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("seed %d: exits at end of input", seed).isTrue();
                assertThat(p.exitValue()).as("seed %d: exit status; stderr ends: %s", seed, tail(stderr)).isZero();
                assertThat(answered).as("seed %d: answers by id (JSON text) against requests sent", seed).isEqualTo(expected);
                assertThat(answered).containsKey("\"final-ping\"");
                assertThat(toolResults).as("seed %d: tool calls that really ran and succeeded", seed).isGreaterThan(100);
                assertThat(unidentified).as("seed %d: answers with id null", seed).isBetween(1, lines.size() - expected.size());
            } finally {
                p.destroyForcibly();
            }
        }
    }

    private static String tail(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        return text.substring(Math.max(0, text.length() - 4_000));
    }

    private static void assertWellFormed(JsonNode a, String text, long seed) {
        assertThat(a.path("jsonrpc").asText()).as("seed %d: %s", seed, text).isEqualTo("2.0");
        assertThat(a.has("id")).as("seed %d: %s", seed, text).isTrue();
        assertThat(a.has("result") != a.has("error")).as("seed %d: one of result and error: %s", seed, text).isTrue();
        if (a.has("error")) {
            assertThat(a.get("error").get("code").isInt()).as("seed %d: %s", seed, text).isTrue();
            assertThat(a.get("error").get("message").asText()).as("seed %d: %s", seed, text).isNotBlank()
                    .doesNotContain("Exception").doesNotContain("\tat ");
        } else {
            assertThat(a.get("result").isObject()).as("seed %d: %s", seed, text).isTrue();
        }
    }

    /**
     * The id (as JSON text) that a line's answer must carry, or null when the line is not a request: not UTF-8, not
     * one JSON object, no id, an id that is neither a string nor an integer, or a response (no method; result or error).
     */
    private static String requestId(byte[] line) {
        JsonNode node;
        try {
            String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(line)).toString();
            node = STRICT.readTree(text);
        } catch (IOException e) { // CharacterCodingException included
            return null;
        }
        if (node == null || !node.isObject()) {
            return null;
        }
        JsonNode id = node.get("id");
        if (id == null || !(id.isTextual() || id.isIntegralNumber() && id.canConvertToLong())) {
            return null;
        }
        if (!node.has("method") && (node.has("result") || node.has("error"))) {
            return null;
        }
        return id.toString();
    }

    /** A random line: garbage bytes, odd JSON values, a request with an odd id, or a mutated request. */
    private static byte[] line(Random r, int n) {
        int kind = r.nextInt(20);
        if (kind < 2) {
            byte[] junk = new byte[r.nextInt(120)];
            r.nextBytes(junk);
            return clean(junk);
        }
        if (kind == 2) {
            List<String> odd = List.of("", " ", "null", "1", "[]", "{}", "\"x\"", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                    "\u0000", "{\"jsonrpc\":\"2.0\"}", "[".repeat(2_000), "{\"a\":".repeat(1_500), "not json", "true");
            return odd.get(r.nextInt(odd.size())).getBytes(StandardCharsets.UTF_8);
        }
        String seed = SEEDS.get(r.nextInt(SEEDS.size()));
        if (kind < 5) {
            List<String> ids = List.of("null", "1.5", "{}", "[]", "true", "-" + n, "1e3", "\"\"", "12345678901234567890" + n);
            return seed.replace("ID", ids.get(r.nextInt(ids.size()))).getBytes(StandardCharsets.UTF_8);
        }
        String fresh = r.nextBoolean() ? Integer.toString(n) : "\"s" + n + "\"";
        StringBuilder b = new StringBuilder(seed.replace("ID", fresh));
        if (kind < 8) {
            return b.toString().getBytes(StandardCharsets.UTF_8); // a valid line, so tool calls really run
        }
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits && !b.isEmpty(); e++) {
            int at = r.nextInt(b.length());
            switch (r.nextInt(6)) {
                case 0 -> b.deleteCharAt(at);
                case 1 -> b.insert(at, "{}[]\",:\\0-9e".charAt(r.nextInt(12)));
                case 2 -> b.setCharAt(at, (char) (32 + r.nextInt(95)));
                case 3 -> b.insert(at, b.substring(at, Math.min(b.length(), at + r.nextInt(20))));
                case 4 -> b.insert(at, "\uD83D\uDCE7\u00e9\u3042");
                default -> {
                    byte[] bytes = b.toString().getBytes(StandardCharsets.UTF_8);
                    bytes[r.nextInt(bytes.length)] = (byte) (0x80 + r.nextInt(0x80)); // likely invalid UTF-8
                    return clean(bytes);
                }
            }
        }
        return clean(b.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] clean(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n' || bytes[i] == '\r') {
                bytes[i] = ' ';
            }
        }
        return bytes;
    }
}
