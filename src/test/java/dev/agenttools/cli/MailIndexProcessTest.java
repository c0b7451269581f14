package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mail index outlives the process: one-shot {@code call}s in JVMs of their own share one index file, the second
 * answering from it in one round trip, with the answer a call without the index gives; `cache status|clear` see it.
 */
@Tag("process")
class MailIndexProcessTest {
    private record Run(String out, String err) {
    }

    private static Run run(Emulator emulator, Path index, String input, String... args) throws Exception {
        ProcessBuilder b = AgentToolsProcess.builder(emulator, args);
        b.environment().put("AGENT_TOOLS_CACHE_DB", index.toString());
        Path err = index.resolveSibling("stderr-" + System.nanoTime() + ".txt");
        Process p = b.redirectError(err.toFile()).start();
        try (var in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(out, Files.readString(err));
    }

    @Test
    void oneShotCallsShareTheIndexAcrossProcesses(@TempDir Path dir) throws Exception {
        try (Emulator emulator = Emulator.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(6_000_000).maxConcurrent(1_000).build())) {
            Path index = dir.resolve("mail-index.db");
            String list = "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5}}";
            JsonNode first = Json.MAPPER.readTree(run(emulator, index, list, "call").out());
            long before = emulator.counters().apiCalls();
            Run second = run(emulator, index, list, "call");
            JsonNode warm = Json.MAPPER.readTree(second.out());
            assertThat(emulator.counters().apiCalls() - before).as("messages.list and history.list: %s", second.err()).isEqualTo(2);
            assertThat(warm.get("meta").get("backend").asText()).isEqualTo("index");
            assertThat(warm.get("data")).isEqualTo(first.get("data"));
            JsonNode off = Json.MAPPER.readTree(run(emulator, index,
                    "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5, \"cache\": \"off\"}}", "call").out());
            assertThat(off.get("data")).isEqualTo(first.get("data"));

            assertThat(run(emulator, index, "", "cache", "status").out()).contains(index.toString(), emulator.rootUri() + "|me@example.com: 5 messages");
            assertThat(run(emulator, index, "", "cache", "clear").out()).contains("cleared " + index);
            assertThat(run(emulator, index, "", "cache", "status").out()).contains("no account");
        }
    }
}
