package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What another process of the same user does to the SQLite files of a running {@code serve} (the call store and the
 * mail index, and the files SQLite keeps beside them) costs at most a record or the index, never the process or its
 * JSON-lines protocol.
 */
@Tag("process")
class StoreFaultsProcessTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    /** Truncates, empties or replaces whatever SQLite keeps beside the stores, over and over, until stopped. */
    private static Thread adversary(Path dir, AtomicBoolean stop, AtomicLong faults) {
        return Thread.ofPlatform().daemon().start(() -> {
            long round = 0;
            while (!stop.get()) {
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path p : files.filter(f -> f.getFileName().toString().matches(".*\\.db-(shm|wal|journal)")).toList()) {
                        try {
                            if (round % 3 == 2) {
                                Files.delete(p); // replaced by an empty file of someone else's making
                                Files.createFile(p);
                            } else {
                                try (FileChannel c = FileChannel.open(p, StandardOpenOption.WRITE)) {
                                    c.truncate(round % 3 == 0 ? 0 : Math.min(c.size(), 8));
                                }
                            }
                            faults.incrementAndGet();
                        } catch (IOException e) {
                            // gone meanwhile: the next round finds what is there then
                        }
                    }
                } catch (IOException e) {
                    // the folder is being changed under us: try again
                }
                round++;
                Thread.onSpinWait();
            }
        });
    }

    @Test
    void serveOutlivesTheStoresSideFilesTruncatedOrReplacedByAnotherProcess(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(1_000).build())) {
            ProcessBuilder b = AgentToolsProcess.builder(emulator, "serve", "--stdio");
            b.environment().put("AGENT_TOOLS_CACHE_DB", dir.resolve("mail-index.db").toString());
            b.environment().put("AGENT_TOOLS_TRACKING_DB", dir.resolve("calls.db").toString());
            Path err = Files.createTempFile("agent-tools-stderr-", ".txt");
            Process serve = b.redirectError(err.toFile()).start();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong faults = new AtomicLong();
            List<String> lines = new ArrayList<>();
            int calls = 40;
            OutputStream in = serve.getOutputStream();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8))) {
                // the stores exist and are in use before the adversary starts
                in.write("{\"id\": 0, \"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 3}}\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
                lines.add(out.readLine());
                Thread attacker = adversary(dir, stop, faults);
                for (int i = 1; i < calls; i++) {
                    String params = i % 4 == 3 ? "{\"max_results\": 3, \"cache\": \"refresh\"}" : "{\"max_results\": 3}";
                    in.write(("{\"id\": " + i + ", \"command\": \"gmail.list-emails\", \"params\": " + params + "}\n")
                            .getBytes(StandardCharsets.UTF_8));
                    in.flush();
                    String line = out.readLine();
                    if (line == null) {
                        break; // the process died: the assertions below say how
                    }
                    lines.add(line);
                    Thread.sleep(20); // the recorder's writer thread writes the call's record meanwhile
                }
                stop.set(true);
                attacker.join(10_000);
                in.close();
                for (String line; (line = out.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // a dead process's pipe: the assertions below say how it ended
            } finally {
                stop.set(true);
                try {
                    in.close();
                } catch (IOException e) {
                    // the process is gone already
                }
            }
            assertThat(serve.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String stderr = Files.readString(err);
            Files.deleteIfExists(err);
            assertThat(serve.exitValue()).as("serve's exit; stderr:\n%s", stderr).isZero();
            assertThat(lines).as("one answer per call; stderr:\n%s", stderr).hasSize(calls);
            for (String line : lines) {
                JsonNode answer = Json.MAPPER.readTree(line);
                assertThat(answer.isObject()).as(line).isTrue();
                assertThat(answer.path("status").asText()).as(line).isEqualTo("ok");
                assertThat(answer.path("data").path("emails")).as(line).hasSize(3);
            }
            assertThat(faults.get()).as("the adversary found files to damage").isPositive();
        }
    }
}
