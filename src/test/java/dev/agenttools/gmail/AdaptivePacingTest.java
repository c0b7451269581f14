package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.EmulatorCounters;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.CallTimeouts;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.agenttools.gmail.GmailToolsTest.obj;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client learns limits lower than it was told: a new Google project's 600-units-a-minute user quota and a
 * per-user concurrency of 2, met with the default settings (15,000 units, 20 in flight).
 */
class AdaptivePacingTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    /** list_emails of 10: one messages.list and ten messages.get, the fewest calls it can take. */
    private static final int MIN_CALLS_PER_LIST = 11;

    @Test
    void defaultSettingsLearnATightQuotaAndConcurrencyWithFewRefusals() throws Exception {
        int lists = Integer.getInteger("agenttools.adaptiveLists", 4);
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().quotaPerMinute(600).maxConcurrent(2).build())) {
            ToolRegistry tools = Tools.builder().gmail(GmailSettings.forRoot(emulator.rootUri().toString())).defaultAccessToken("t").build();
            StringBuilder seen = new StringBuilder();
            for (int i = 0; i < lists; i++) {
                long start = System.nanoTime();
                JsonNode data = tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\": 10}"))).data();
                long ms = (System.nanoTime() - start) / 1_000_000;
                seen.append(String.format("list %d: %d ms, %d calls so far%n", i + 1, ms, emulator.counters().apiCalls()));
                assertThat(data.get("emails")).as(seen.toString()).hasSize(10);
                assertThat(data.has("errors")).as(seen.toString()).isFalse();
                assertThat(ms).as("within the default deadline\n" + seen).isLessThan(CallTimeouts.DEFAULT_TIMEOUT.toMillis());
            }
            EmulatorCounters c = emulator.counters();
            System.out.printf("adaptive pacing, %d lists of 10 at 600 units/min, 2 in flight: %d API calls (%.2f x the "
                            + "minimum), %d quota and %d concurrency refusals%n%s", lists, c.apiCalls(),
                    c.apiCalls() / (double) (lists * MIN_CALLS_PER_LIST), c.quotaRejections(), c.concurrencyRejections(), seen);
            assertThat(c.apiCalls()).as(seen.toString()).isLessThanOrEqualTo((long) (1.5 * lists * MIN_CALLS_PER_LIST));
        }
    }
}
