package dev.agenttools.gmail;

import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Set;
import java.util.stream.Collectors;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static dev.agenttools.gmail.GmailToolsTest.fastSettings;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing a registry stops the HTTP client its Gmail tools made, threads and all: a one-shot process then exits
 * at once (a live JDK HttpClient's selector thread, in native code, holds the JVM's exit up by 300 ms), and the
 * resident server's dropped sessions leave nothing running.
 */
class ClosingTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    private static Set<Thread> httpClientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("HttpClient-"))
                .collect(Collectors.toSet());
    }

    @Test
    void closingTheRegistryStopsTheHttpClientItsToolsMade() throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Set<Thread> before = httpClientThreads();
            ToolRegistry tools = Tools.builder().gmail(fastSettings(emulator)).defaultAccessToken("t").build();
            assertThat(tools.call(new ToolCall("gmail.list-emails", Json.object().put("max_results", 2), "test", null))
                    .data().get("emails")).hasSize(2);
            Set<Thread> ours = httpClientThreads();
            ours.removeAll(before);
            assertThat(ours).as("the HTTP client's threads while it is open").isNotEmpty();

            tools.close();
            for (Thread t : ours) {
                t.join(10_000);
            }
            assertThat(ours).noneMatch(Thread::isAlive);
        }
    }
}
