package dev.agenttools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.habit.HabitSettings;
import dev.agenttools.habit.HabitTools;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Whose habits a call reaches, through the front door against the emulator over real HTTP: the Google account behind
 * the call's credential, as its Gmail and Calendar calls act as it, unless a user is configured.
 */
class HabitAccountsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .users(2).build());
    }

    private ToolRegistry tools(HabitSettings habits) {
        return Tools.builder().rootUrl(emulator.rootUri().toString()).habit(habits).build();
    }

    private static JsonNode call(ToolRegistry r, String command, String token, String json) throws Exception {
        var params = (ObjectNode) Json.MAPPER.readTree(json);
        if (token != null) {
            params.put("access_token", token);
        }
        return r.call(ToolCall.of(command, params)).data();
    }

    private static long profileCalls(String address) {
        var user = emulator.counters().users().get(address);
        return user == null ? 0 : user.apiCalls();
    }

    @Test
    void habitsAreTheGoogleAccountsOfTheCallsCredentialAndTwoAccountsNeverSeeEachOthers() throws Exception {
        String me = emulator.tokenFor("me@example.com");
        String other = emulator.tokenFor("user2@example.com");
        long meBefore = profileCalls("me@example.com");
        try (ToolRegistry r = tools(new HabitSettings(dir.resolve("habits.db"), null, false))) {
            call(r, HabitTools.CREATE, me, "{\"name\": \"Running\"}");
            call(r, HabitTools.LOG, me, "{\"habit\": \"running\"}");
            assertThat(call(r, HabitTools.LIST, me, "{}").path("habits")).hasSize(1);
            assertThat(call(r, HabitTools.LIST, other, "{}").path("habits")).as("another account's").isEmpty();
            call(r, HabitTools.CREATE, other, "{\"name\": \"Running\"}"); // the same name: another account's habit
            assertThat(call(r, HabitTools.LIST, other, "{}").path("habits").get(0).path("status").path("today_state").asText())
                    .isEqualTo("pending");
            // another credential of the same account (a sign-in of its own) reaches the same habits
            String again = Emulators.signIn(emulator, "me@example.com").accessToken();
            assertThat(call(r, HabitTools.LIST, again, "{}").path("habits").get(0).path("status").path("today_state").asText())
                    .isEqualTo("done");
        }
        // users.getProfile once per credential (two of them), not once per call
        assertThat(profileCalls("me@example.com") - meBefore).isEqualTo(2);
    }

    @Test
    void aRegistryWithCalendarAndNoGmailAsksCalendarWhoseHabitsTheyAre() throws Exception {
        try (ToolRegistry r = Tools.builder().calendar(CalendarSettings.forRoot(emulator.rootUri().toString()))
                .habit(new HabitSettings(dir.resolve("habits.db"), null, false)).build();
             ToolRegistry gmail = tools(new HabitSettings(dir.resolve("habits.db"), null, false))) {
            call(r, HabitTools.CREATE, emulator.tokenFor("user2@example.com"), "{\"name\": \"Swimming\"}");
            // the same account through Gmail's users.getProfile: the same habits
            assertThat(call(gmail, HabitTools.LIST, emulator.tokenFor("user2@example.com"), "{}").path("habits").get(0)
                    .path("habit").path("name").asText()).isEqualTo("Swimming");
            assertThat(call(gmail, HabitTools.LIST, emulator.tokenFor("me@example.com"), "{}").path("habits")).isEmpty();
        }
    }

    @Test
    void withoutACredentialACallSaysHowToSignInOrNameTheUser() {
        try (ToolRegistry r = tools(new HabitSettings(dir.resolve("habits.db"), null, false))) {
            assertThatThrownBy(() -> call(r, HabitTools.LIST, null, "{}")).isInstanceOfSatisfying(ToolException.class, e -> {
                assertThat(e.kind()).isEqualTo(ToolException.Kind.UNAUTHENTICATED);
                assertThat(e.getMessage()).contains("AGENT_TOOLS_HABIT_USER");
            });
        }
        // a service of many users (the HTTP service) ignores that setting: it says to send the end user's token instead
        try (ToolRegistry r = tools(new HabitSettings(dir.resolve("habits.db"), "ann", false).forManyUsers())) {
            assertThatThrownBy(() -> call(r, HabitTools.LIST, null, "{}")).isInstanceOfSatisfying(ToolException.class, e -> {
                assertThat(e.kind()).isEqualTo(ToolException.Kind.UNAUTHENTICATED);
                assertThat(e.getMessage()).contains("Google account of their token").doesNotContain("AGENT_TOOLS_HABIT_USER");
            });
        }
        // a registry with no Google connection at all: the same advice
        try (ToolRegistry r = Tools.builder().habit(new HabitSettings(dir.resolve("habits.db"), null, false)).build()) {
            assertThatThrownBy(() -> call(r, HabitTools.LIST, null, "{}")).isInstanceOfSatisfying(ToolException.class, e ->
                    assertThat(e.getMessage()).contains("AGENT_TOOLS_HABIT_USER"));
        }
    }

    @Test
    void aConfiguredUserAsksGoogleNothingWhateverTokenACallBrings() throws Exception {
        long before = emulator.counters().httpRequests();
        try (ToolRegistry r = tools(new HabitSettings(dir.resolve("habits.db"), "ann", false))) {
            call(r, HabitTools.CREATE, null, "{\"name\": \"Reading\"}");
            assertThat(call(r, HabitTools.LIST, null, "{}").path("habits")).hasSize(1);
            // an agent that passes its token to every tool is not refused: the habits stay the configured user's
            assertThat(call(r, HabitTools.LIST, emulator.tokenFor("user2@example.com"), "{}").path("habits")).hasSize(1);
        }
        assertThat(emulator.counters().httpRequests()).isEqualTo(before);
    }

    @Test
    void theSchemaOffersTheTokenWhereTheAccountNamesTheUser() {
        try (ToolRegistry r = tools(new HabitSettings(dir.resolve("habits.db"), null, false))) {
            assertThat(r.specs()).filteredOn(s -> s.name().startsWith("habit.")).hasSize(HabitTools.COMMANDS.size())
                    .allSatisfy(s -> assertThat(s.inputSchema().path("properties").has("access_token")).as(s.name()).isTrue())
                    .extracting(ToolSpec::name).containsExactlyElementsOf(HabitTools.COMMANDS);
        }
    }
}
