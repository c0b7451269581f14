package dev.agenttools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The front door: a registry of the families named, each working on its own over the registry's one connection. */
class ToolsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO).build());
    }

    private static ObjectNode params(String json) throws Exception {
        return (ObjectNode) Json.MAPPER.readTree(json);
    }

    @Test
    void aCalendarOnlyRegistryServesTheCalendarToolsAlone() throws Exception {
        try (ToolRegistry calendar = Tools.builder().calendar(CalendarSettings.forRoot(emulator.rootUri().toString()))
                .defaultAccessToken("t").build()) {
            assertThat(calendar.specs()).extracting(ToolSpec::name).containsExactly("calendar.list-calendars",
                    "calendar.list-events", "calendar.get-event", "calendar.free-busy");
            assertThat(calendar.call(ToolCall.of("calendar.list-events", params("{\"time_min\": \"2026-06-02\"}")))
                    .data().get("events")).hasSize(3);
            assertThatThrownBy(() -> calendar.call(ToolCall.of("gmail.list-emails", params("{}"))))
                    .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("unknown command 'gmail.list-emails'"));
        }
    }

    @Test
    void aGmailOnlyRegistryServesTheGmailToolsAlone() throws Exception {
        try (ToolRegistry gmail = Tools.builder().gmail(GmailSettings.forRoot(emulator.rootUri().toString()))
                .defaultAccessToken("t").build()) {
            assertThat(gmail.specs()).extracting(ToolSpec::name).containsExactly("gmail.list-emails", "gmail.search-emails",
                    "gmail.get-email");
            assertThat(gmail.call(ToolCall.of("gmail.list-emails", params("{\"max_results\": 3}"))).data().get("emails")).hasSize(3);
        }
    }

    @Test
    void aRegistryWithNoFamilySaysWhatToName() {
        assertThatThrownBy(() -> Tools.builder().defaultAccessToken("t").build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no tools to register");
    }

    @Test
    void settingsNeverPrintTheTokenNorKeepTheRestOfTheEnvironment() {
        Settings s = Settings.from(Map.of("AGENT_TOOLS_ACCESS_TOKEN", "ya29.SECRET-VALUE",
                "AWS_SECRET_ACCESS_KEY", "AWS-SECRET", "AGENT_TOOLS_SERVE_MAX_IN_FLIGHT", "7"));
        assertThat(s.google().accessToken()).isEqualTo("ya29.SECRET-VALUE");
        assertThat(s.toString()).doesNotContain("SECRET").contains("accessToken=set");
        assertThat(s.values()).containsOnlyKeys("AGENT_TOOLS_SERVE_MAX_IN_FLIGHT");
        assertThat(s.wholeNumber("AGENT_TOOLS_SERVE_MAX_IN_FLIGHT", 4, 1, 10)).isEqualTo(7);
    }

    @Test
    void aRegistryBuiltToServeManyCallsOpensItsConnectionBeforeTheFirstCall() throws Exception {
        Emulator fresh = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).build());
        try (ToolRegistry tools = Tools.builder().rootUrl(fresh.rootUri().toString()).defaultAccessToken("t").preconnect(true).build()) {
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (fresh.counters().authFailures() == 0 && System.nanoTime() < until) {
                Thread.sleep(10); // opened in the background, a quarter of a second after the registry is built
            }
            assertThat(fresh.counters().connectionsOpened()).as("Gmail and Calendar share one server here").isEqualTo(1);
            assertThat(tools.call(ToolCall.of("gmail.list-emails", params("{\"max_results\": 2}"))).data().get("emails")).hasSize(2);
            assertThat(fresh.counters().connectionsOpened()).isEqualTo(1);
        }
        try (ToolRegistry oneShot = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken("t").build()) {
            long before = emulator.counters().httpRequests();
            Thread.sleep(400);
            assertThat(emulator.counters().httpRequests()).as("a one-shot registry opens nothing early").isEqualTo(before);
            assertThat(oneShot.specs()).isNotEmpty();
        }
    }
}
