package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Settings;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The JIT warm-up of a process that serves many calls: its setting, and a process that warms up while it serves. */
@Tag("process")
class JitWarmUpTest {
    @Test
    void isOffUnlessTheSettingSaysOnAndABadValueIsNamed() {
        assertThat(JitWarmUp.enabled(Settings.from(Map.of()))).as("opt-in").isFalse();
        assertThat(JitWarmUp.enabled(Settings.from(Map.of("AGENT_TOOLS_WARMUP", "on")))).isTrue();
        assertThat(JitWarmUp.enabled(Settings.from(Map.of("AGENT_TOOLS_WARMUP", " OFF ")))).isFalse();
        assertThatThrownBy(() -> JitWarmUp.enabled(Settings.from(Map.of("AGENT_TOOLS_WARMUP", "later"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AGENT_TOOLS_WARMUP must be on or off, got later");
    }

    @Test
    void makesItsCallsInThisProcessOverTlsAndEnds() {
        Duration took = JitWarmUp.run(5);
        // a failed warm-up ends at once and quietly; five rounds over TLS take longer than starting nothing
        assertThat(took).isPositive();
    }

    @Test
    void aServeProcessWarmingUpAnswersItsCallsWithNothingElseOnStdout() throws Exception {
        try (Emulator emulator = Emulator.start(EmulatorConfig.builder().latency(Duration.ofMillis(20)).build())) {
            ProcessBuilder b = AgentToolsProcess.builder(emulator, "serve", "--stdio").redirectError(ProcessBuilder.Redirect.DISCARD);
            b.environment().put("AGENT_TOOLS_WARMUP", "on");
            Process p = b.start();
            OutputStream in = p.getOutputStream();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                List<JsonNode> answers = new ArrayList<>();
                // spread over the warm-up's start (half a second after the process is ready) and its rounds
                for (int i = 0; i < 12; i++) {
                    in.write(("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5, \"strategy\": \"concurrent\"}}\n")
                            .getBytes(StandardCharsets.UTF_8));
                    in.flush();
                    answers.add(Json.MAPPER.readTree(out.readLine()));
                    Thread.sleep(100);
                }
                in.close(); // end of input: serve exits once its calls are answered
                assertThat(answers).allSatisfy(a -> {
                    assertThat(a.path("status").asText()).isEqualTo("ok");
                    assertThat(a.path("data").path("emails")).hasSize(5);
                });
                assertThat(out.readLine()).as("nothing but answers on stdout").isNull();
            }
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
        }
    }
}
