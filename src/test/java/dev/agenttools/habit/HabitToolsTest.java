package dev.agenttools.habit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Habit tools called through the registry, as call, serve and mcp call them, on a clock the test sets. */
class HabitToolsTest {
    @TempDir
    Path dir;
    private final SetClock clock = new SetClock(Instant.parse("2026-12-01T12:00:00Z"), ZoneId.of("Europe/Paris"));
    private final List<ToolRegistry> registries = new ArrayList<>();

    private ToolRegistry tools(HabitSettings settings) {
        ToolRegistry r = HabitTools.register(ToolRegistry.builder(), settings, clock).build();
        registries.add(r);
        return r;
    }

    private ToolRegistry tools() {
        return tools(HabitSettings.at(dir.resolve("data").resolve("habits.db")));
    }

    @AfterEach
    void close() {
        registries.forEach(ToolRegistry::close);
    }

    private static JsonNode call(ToolRegistry r, String tool, String paramsJson) {
        try {
            return r.call(ToolCall.of(tool, (ObjectNode) Json.MAPPER.readTree(paramsJson))).data();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static ToolException refused(ToolRegistry r, String tool, String paramsJson) {
        try {
            call(r, tool, paramsJson);
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError(tool + " " + paramsJson + " was not refused");
    }

    private void at(String instant) {
        clock.now = Instant.parse(instant);
    }

    @Test
    void createsLogsAndListsAHabitWithItsStreakAndCompletion() {
        ToolRegistry r = tools();
        JsonNode h = call(r, HabitTools.CREATE, """
                {"name": "Running", "schedule": "weekdays", "days": ["mon", "wed", "fri"], "target_amount": 30,
                 "target_unit": "minutes", "time_zone": "Europe/Paris"}""");
        assertThat(h.path("id").asText()).startsWith("hab_");
        assertThat(h.path("schedule").path("days")).hasToString("[\"mon\",\"wed\",\"fri\"]");
        assertThat(h.path("target").path("unit").asText()).isEqualTo("minutes");
        // Tue 2026-12-01 created; Wed, Fri, Mon logged afterwards; on Tuesday the 8th (not due) the streak is 3
        at("2026-12-08T09:00:00Z");
        for (String day : List.of("2026-12-02", "2026-12-04", "2026-12-07")) {
            call(r, HabitTools.LOG, "{\"habit\": \"running\", \"date\": \"" + day + "\", \"amount\": 35}");
        }
        JsonNode listed = call(r, HabitTools.LIST, "{}").path("habits").get(0);
        JsonNode status = listed.path("status");
        assertThat(status.path("today").asText()).isEqualTo("2026-12-08");
        assertThat(status.path("today_state").asText()).isEqualTo("not_due");
        assertThat(status.path("current_streak").asInt()).isEqualTo(3);
        assertThat(status.path("longest_streak").asInt()).isEqualTo(3);
        assertThat(status.path("streak_unit").asText()).isEqualTo("days");
        assertThat(status.path("completion7").path("rate").asDouble()).isEqualTo(1.0);
        assertThat(listed.path("habit").path("name").asText()).isEqualTo("Running");
    }

    @Test
    void logDefaultsToTodayInTheHabitsZone() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Reading\", \"time_zone\": \"Asia/Tokyo\"}");
        at("2026-12-01T14:30:00Z"); // 23:30 in Tokyo: still the 1st there
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"Reading\"}").path("date").asText()).isEqualTo("2026-12-01");
        at("2026-12-01T15:30:00Z"); // 00:30 on the 2nd in Tokyo, still the 1st in UTC and Paris
        JsonNode logged = call(r, HabitTools.LOG, "{\"habit\": \"Reading\"}");
        assertThat(logged.path("date").asText()).isEqualTo("2026-12-02");
        assertThat(logged.path("status").path("current_streak").asInt()).isEqualTo(2);
    }

    @Test
    void aRetriedLogCountsOnce() {
        ToolRegistry r = tools();
        String id = call(r, HabitTools.CREATE, "{\"name\": \"Reading\"}").path("id").asText();
        for (int i = 0; i < 3; i++) {
            call(r, HabitTools.LOG, "{\"habit\": \"" + id + "\", \"amount\": 20, \"note\": \"chapter 3\"}");
        }
        JsonNode history = call(r, HabitTools.HISTORY, "{\"habit\": \"" + id + "\", \"from\": \"2026-12-01\", \"to\": \"2026-12-01\"}");
        assertThat(history.path("done").asInt()).isEqualTo(1);
        assertThat(history.path("days").get(0).path("note").asText()).isEqualTo("chapter 3");
        assertThat(call(r, HabitTools.LIST, "{}").path("habits").get(0).path("status").path("completion30").path("done").asInt())
                .isEqualTo(1);
    }

    @Test
    void aFutureDayIsRefusedNamingTheField() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Reading\", \"time_zone\": \"Europe/Paris\"}");
        ToolException e = refused(r, HabitTools.LOG, "{\"habit\": \"Reading\", \"date\": \"2026-12-02\"}");
        assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(e.getMessage()).startsWith("date 2026-12-02 is in the future").contains("Europe/Paris").contains("2026-12-01");
    }

    @Test
    void badInputIsRefusedNamingTheFieldAndWhatIsAllowed() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Reading\"}");
        record Case(String tool, String params, String message) {
        }
        for (Case c : List.of(
                new Case(HabitTools.CREATE, "{\"name\": \"" + "x".repeat(101) + "\"}", "name must be 1..100 characters (Unicode code points), got 101"),
                new Case(HabitTools.CREATE, "{}", "name is required"),
                new Case(HabitTools.CREATE, "{\"name\": \"Run\", \"time_zone\": \"Mars/Olympus\"}", "time_zone must be an IANA time zone"),
                new Case(HabitTools.CREATE, "{\"name\": \"Run\", \"days\": [\"mon\", \"someday\"]}", "days must hold weekdays"),
                new Case(HabitTools.CREATE, "{\"name\": \"Run\", \"schedule\": \"times_per_week\"}", "times_per_week is required"),
                new Case(HabitTools.CREATE, "{\"name\": \"Run\", \"times_per_week\": 8}", "times_per_week must be 1..7"),
                new Case(HabitTools.CREATE, "{\"name\": \"Run\", \"schedule\": \"hourly\"}", "schedule must be one of"),
                new Case(HabitTools.CREATE, "{\"name\": \"Run\", \"target_amount\": -1}", "target_amount must be a number"),
                new Case(HabitTools.LOG, "{\"habit\": \"Reading\", \"amount\": 1e-200}", "amount must be 0 or at least 1.0E-6"),
                new Case(HabitTools.CREATE, "{\"name\": \"READING\"}", "name: a habit named \"Reading\" exists already"),
                new Case(HabitTools.CREATE, "{\"name\": \"Run\", \"colour\": \"red\"}", "unknown param 'colour'"),
                new Case(HabitTools.LOG, "{\"habit\": \"Reading\", \"note\": \"" + "n".repeat(1001) + "\"}", "note must be at most 1000"),
                new Case(HabitTools.LOG, "{\"habit\": \"Reading\", \"date\": \"yesterday\"}", "date must be a day as YYYY-MM-DD"),
                new Case(HabitTools.LOG, "{\"habit\": \"Reading\", \"done\": \"yes\"}", "done must be true or false"),
                new Case(HabitTools.LOG, "{}", "habit is required"),
                new Case(HabitTools.HISTORY, "{\"habit\": \"Reading\", \"from\": \"2025-01-01\", \"to\": \"2026-01-02\"}",
                        "from..to must span at most 366 days, got 367"),
                new Case(HabitTools.HISTORY, "{\"habit\": \"Reading\", \"from\": \"2026-12-02\", \"to\": \"2026-12-01\"}", "from 2026-12-02 is after to"),
                new Case(HabitTools.LIST, "{\"user_id\": \"bob\"}", "user_id is not accepted here"))) {
            ToolException e = refused(r, c.tool(), c.params());
            assertThat(e.kind()).as(c.params()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
            assertThat(e.getMessage()).as(c.params()).contains(c.message());
        }
        assertThat(refused(r, HabitTools.LOG, "{\"habit\": \"Swimming\"}").kind()).isEqualTo(ToolException.Kind.NOT_FOUND);
    }

    @Test
    void aYearOfHistoryIsAnsweredDayByDay() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Reading\"}");
        JsonNode h = call(r, HabitTools.HISTORY, "{\"habit\": \"reading\", \"from\": \"2025-12-01\", \"to\": \"2026-12-01\"}");
        assertThat(h.path("days")).hasSize(366);
        assertThat(h.path("days").get(0).path("state").asText()).isEqualTo("before_start");
        assertThat(h.path("days").get(365).path("state").asText()).isEqualTo("pending");
    }

    @Test
    void aMonthAskedBeforeItEndsCountsAsDueOnlyTheDaysUpToToday() {
        ToolRegistry r = tools();
        at("2026-11-01T08:00:00Z");
        call(r, HabitTools.CREATE, "{\"name\": \"Reading\", \"time_zone\": \"UTC\"}");
        at("2026-11-10T08:00:00Z");
        for (String day : List.of("2026-11-01", "2026-11-02", "2026-11-03", "2026-11-05")) {
            call(r, HabitTools.LOG, "{\"habit\": \"reading\", \"date\": \"" + day + "\"}");
        }
        String month = "{\"habit\": \"reading\", \"from\": \"2026-11-01\", \"to\": \"2026-11-30\"}";
        JsonNode h = call(r, HabitTools.HISTORY, month);
        assertThat(h.path("days")).hasSize(30);
        assertThat(h.path("days").get(9).path("state").asText()).isEqualTo("pending");
        assertThat(h.path("days").get(20).path("due").asBoolean()).as("a day ahead is on the schedule").isTrue();
        assertThat(h.path("done").asInt()).isEqualTo(4);
        assertThat(h.path("due").asInt()).as("the 1st to the 9th: today pending and the days ahead not counted yet").isEqualTo(9);
        call(r, HabitTools.LOG, "{\"habit\": \"reading\"}");
        h = call(r, HabitTools.HISTORY, month);
        assertThat(h.path("done").asInt()).isEqualTo(5);
        assertThat(h.path("due").asInt()).as("today, logged, counts").isEqualTo(10);
    }

    @Test
    void anArchivedHabitIsKeptHiddenAndRestorable() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Reading\"}");
        call(r, HabitTools.LOG, "{\"habit\": \"Reading\"}");
        assertThat(call(r, HabitTools.ARCHIVE, "{\"habit\": \"reading\"}").path("archived").asBoolean()).isTrue();
        assertThat(call(r, HabitTools.LIST, "{}").path("count").asInt()).isZero();
        assertThat(call(r, HabitTools.LIST, "{\"include_archived\": true}").path("count").asInt()).isEqualTo(1);
        assertThat(refused(r, HabitTools.CREATE, "{\"name\": \"reading\"}").getMessage()).contains("habit.restore");
        call(r, HabitTools.RESTORE, "{\"habit\": \"Reading\"}");
        JsonNode listed = call(r, HabitTools.LIST, "{}").path("habits").get(0);
        assertThat(listed.path("status").path("today_state").asText()).isEqualTo("done");
    }

    @Test
    void aUserWhoMovesZonesKeepsTheirStreak() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Stretch\", \"time_zone\": \"Asia/Tokyo\"}");
        at("2026-12-01T12:00:00Z"); // evening of the 1st in Tokyo
        call(r, HabitTools.LOG, "{\"habit\": \"Stretch\"}");
        at("2026-12-02T12:00:00Z");
        call(r, HabitTools.LOG, "{\"habit\": \"Stretch\"}"); // the 2nd, Tokyo
        // flies to New York and says so: there it is still the 1st, and the 2nd (logged) is a day away
        JsonNode moved = call(r, HabitTools.UPDATE, "{\"habit\": \"stretch\", \"time_zone\": \"America/New_York\"}");
        assertThat(moved.path("time_zone").asText()).isEqualTo("America/New_York");
        at("2026-12-02T13:00:00Z"); // 08:00 on the 2nd in New York
        JsonNode status = call(r, HabitTools.LIST, "{}").path("habits").get(0).path("status");
        assertThat(status.path("today").asText()).isEqualTo("2026-12-02");
        assertThat(status.path("today_state").asText()).isEqualTo("done");
        assertThat(status.path("current_streak").asInt()).isEqualTo(2);
        at("2026-12-03T23:00:00Z"); // the 3rd in New York
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"Stretch\"}").path("status").path("current_streak").asInt()).isEqualTo(3);
    }

    @Test
    void aTrustedBackendNamesTheUserAndTwoUsersNeverSeeEachOthersHabits() {
        HabitSettings many = new HabitSettings(dir.resolve("data").resolve("habits.db"), "local", true).forManyUsers();
        ToolRegistry r = tools(many);
        assertThat(refused(r, HabitTools.LIST, "{}").getMessage()).contains("user_id is required");
        call(r, HabitTools.CREATE, "{\"user_id\": \"ann@example.com\", \"name\": \"Running\"}");
        call(r, HabitTools.CREATE, "{\"user_id\": \"bob@example.com\", \"name\": \"Running\"}");
        call(r, HabitTools.LOG, "{\"user_id\": \"ann@example.com\", \"habit\": \"Running\"}");
        JsonNode bobs = call(r, HabitTools.LIST, "{\"user_id\": \"bob@example.com\"}").path("habits");
        assertThat(bobs).hasSize(1);
        assertThat(bobs.get(0).path("status").path("today_state").asText()).isEqualTo("pending");
        String annsId = call(r, HabitTools.LIST, "{\"user_id\": \"ann@example.com\"}").path("habits").get(0).path("habit").path("id").asText();
        assertThat(refused(r, HabitTools.LOG, "{\"user_id\": \"bob@example.com\", \"habit\": \"" + annsId + "\"}").kind())
                .isEqualTo(ToolException.Kind.NOT_FOUND);
        assertThat(new HabitSettings(dir.resolve("x.db"), "local", false).forManyUsers().defaultUser())
                .as("a service of many users never reaches one configured user's habits").isNull();
    }

    @Test
    void aTimesAWeekHabitCountsWeeks() {
        ToolRegistry r = tools();
        at("2026-11-30T08:00:00Z"); // a Monday
        call(r, HabitTools.CREATE, "{\"name\": \"Gym\", \"times_per_week\": 2, \"time_zone\": \"Europe/Paris\"}");
        call(r, HabitTools.LOG, "{\"habit\": \"Gym\"}");
        at("2026-12-03T08:00:00Z");
        call(r, HabitTools.LOG, "{\"habit\": \"Gym\"}");
        at("2026-12-08T08:00:00Z"); // the next Tuesday
        JsonNode status = call(r, HabitTools.LIST, "{}").path("habits").get(0).path("status");
        assertThat(status.path("streak_unit").asText()).isEqualTo("weeks");
        assertThat(status.path("current_streak").asInt()).isEqualTo(1);
        assertThat(status.path("this_week_done").asInt()).isZero();
        assertThat(status.path("today_state").asText()).isEqualTo("pending");
    }

    @Test
    void everyToolDescribesItsParamsWithAClosedSchema() {
        ToolRegistry r = tools();
        assertThat(r.specs()).extracting(ToolSpec::name).containsExactlyElementsOf(HabitTools.COMMANDS);
        for (ToolSpec s : r.specs()) {
            assertThat(s.description()).hasSizeGreaterThan(40);
            assertThat(s.inputSchema().path("additionalProperties").asBoolean(true)).as(s.name()).isFalse();
            assertThat(s.inputSchema().path("properties").has("user_id")).as(s.name()).isFalse();
        }
        ToolSpec log = r.specs().stream().filter(s -> s.name().equals(HabitTools.LOG)).findFirst().orElseThrow();
        assertThat(log.inputSchema().path("required")).hasToString("[\"habit\"]");
    }

    @Test
    void aRegistryThatNeverCallsTheToolsCreatesNoFile() {
        Path file = dir.resolve("data").resolve("habits.db");
        tools(HabitSettings.at(file)).specs();
        assertThat(file.getParent()).doesNotExist();
    }

    @Test
    void theWireAnswerNamesTheStoreAndABadFieldIsInvalidArgument() {
        ToolProtocol protocol = new ToolProtocol(tools());
        JsonNode created = protocol.answer("{\"command\": \"habit.create\", \"params\": {\"name\": \"Water\"}}").json();
        assertThat(created.path("status").asText()).as(created.toString()).isEqualTo("ok");
        assertThat(created.path("meta").path("backend").asText()).isEqualTo("store");
        var refused = protocol.answer("{\"command\": \"habit.log\", \"params\": {\"habit\": \"water\", \"date\": \"2030-01-01\"}}");
        assertThat(refused.json().path("error").path("code").asText()).as(refused.json().toString()).isEqualTo("invalid_argument");
        assertThat(refused.json().path("error").path("message").asText()).startsWith("date ");
        assertThat(refused.exitStatus()).isEqualTo(2);
    }

    @Test
    void settingsComeFromTheEnvironment() {
        HabitSettings d = HabitSettings.fromEnvironment(Map.of("XDG_DATA_HOME", "/data"));
        assertThat(d.file()).isEqualTo(Path.of("/data/agent-tools/habits.db"));
        assertThat(d.defaultUser()).as("the Google account of each call's credential").isNull();
        assertThat(d.userParam()).isFalse();
        HabitSettings s = HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_DB", "/x/h.db",
                "AGENT_TOOLS_HABIT_USER", "ann@example.com", "AGENT_TOOLS_HABIT_USER_PARAM", "on"));
        assertThat(s).isEqualTo(new HabitSettings(Path.of("/x/h.db"), "ann@example.com", true));
        assertThatThrownBy(() -> HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_USER_PARAM", "yes")))
                .hasMessageContaining("AGENT_TOOLS_HABIT_USER_PARAM must be on or off");
    }

    @Test
    void aStoreLockedByAnotherProcessPastTheWaitAnswersAnErrorAndLosesNothing() throws Exception {
        Path file = dir.resolve("data").resolve("habits.db");
        ToolRegistry r = tools(HabitSettings.at(file));
        at("2026-12-01T08:00:00Z");
        call(r, HabitTools.CREATE, "{\"name\": \"Water\", \"time_zone\": \"UTC\"}");
        call(r, HabitTools.LOG, "{\"habit\": \"water\", \"amount\": 2}");
        at("2026-12-02T08:00:00Z");
        // another process holds the file's write lock longer than the store waits (10 s)
        try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement s = other.createStatement()) {
            s.execute("BEGIN EXCLUSIVE");
            ToolException e = refused(r, HabitTools.LOG, "{\"habit\": \"water\"}");
            assertThat(e.kind()).isEqualTo(ToolException.Kind.INTERNAL);
            assertThat(e.getMessage()).contains(file.toString()).contains("try again");
            s.execute("ROLLBACK");
        }
        JsonNode days = call(r, HabitTools.HISTORY, "{\"habit\": \"water\", \"from\": \"2026-12-01\", \"to\": \"2026-12-02\"}").path("days");
        assertThat(days.get(0).path("state").asText()).as("what was written before is kept").isEqualTo("done");
        assertThat(days.get(0).path("amount").asDouble()).isEqualTo(2.0);
        assertThat(days.get(1).path("state").asText()).as("the refused log wrote nothing").isNotEqualTo("done");
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"water\"}").path("status").path("current_streak").asInt())
                .as("tried again once the lock is gone").isEqualTo(2);
    }

    @Test
    void aListShowsWhatAnotherProcessLoggedOnTheSameFileAndWhatChangedHere() {
        Path file = dir.resolve("data").resolve("habits.db");
        ToolRegistry mine = tools(HabitSettings.at(file));
        ToolRegistry other = tools(HabitSettings.at(file)); // another connection, as another process's would be
        at("2026-12-02T08:00:00Z");
        call(mine, HabitTools.CREATE, "{\"name\": \"Water\", \"time_zone\": \"UTC\"}");
        call(mine, HabitTools.CREATE, "{\"name\": \"Read\", \"time_zone\": \"UTC\"}");
        assertThat(todayState(mine, "Water")).isEqualTo("pending");
        call(other, HabitTools.LOG, "{\"habit\": \"water\"}");
        assertThat(todayState(mine, "Water")).as("logged by the other connection").isEqualTo("done");
        call(mine, HabitTools.LOG, "{\"habit\": \"read\", \"done\": false}");
        assertThat(todayState(mine, "Read")).isEqualTo("not_done");
        assertThat(todayState(mine, "Water")).isEqualTo("done");
        call(mine, HabitTools.UPDATE, "{\"habit\": \"water\", \"schedule\": \"weekdays\", \"days\": [\"sun\"]}"); // 2026-12-02 is a Wednesday
        assertThat(todayState(mine, "Water")).as("the new schedule counts").isIn("not_due", "done");
        at("2026-12-03T08:00:00Z");
        assertThat(todayState(mine, "Read")).as("a new day is counted again").isEqualTo("pending");
    }

    @Test
    void aFreshListOfManyHabitsInZonesADayApartShowsEachTodaysAmountAndStreak() {
        Path file = dir.resolve("data").resolve("habits.db");
        ToolRegistry mine = tools(HabitSettings.at(file));
        at("2026-12-02T09:30:00Z"); // 18:30 on the 2nd in Tokyo, 23:30 on the 1st in Honolulu
        for (int i = 0; i < 12; i++) { // more than the few a list counts one by one
            String zone = i % 2 == 0 ? "Asia/Tokyo" : "Pacific/Honolulu";
            String today = i % 2 == 0 ? "2026-12-02" : "2026-12-01";
            String yesterday = i % 2 == 0 ? "2026-12-01" : "2026-11-30";
            call(mine, HabitTools.CREATE, "{\"name\": \"H" + i + "\", \"time_zone\": \"" + zone + "\"}");
            call(mine, HabitTools.LOG, "{\"habit\": \"h" + i + "\", \"date\": \"" + yesterday + "\", \"amount\": " + (100 + i) + "}");
            call(mine, HabitTools.LOG, "{\"habit\": \"h" + i + "\", \"date\": \"" + today + "\", \"amount\": " + i
                    + ", \"note\": \"n\"}");
        }
        ToolRegistry fresh = tools(HabitSettings.at(file)); // another process's first list: every log read at once
        JsonNode habits = call(fresh, HabitTools.LIST, "{}").path("habits");
        assertThat(habits).hasSize(12);
        for (JsonNode h : habits) {
            int i = Integer.parseInt(h.path("habit").path("name").asText().substring(1));
            JsonNode status = h.path("status");
            assertThat(status.path("today").asText()).isEqualTo(i % 2 == 0 ? "2026-12-02" : "2026-12-01");
            assertThat(status.path("today_state").asText()).isEqualTo("done");
            assertThat(status.path("today_amount").asDouble()).as("H" + i + "'s amount of its today").isEqualTo(i);
            assertThat(status.path("current_streak").asInt()).isEqualTo(2);
        }
    }

    /** Today's state of the named habit, as habit.list shows it (habits created at one instant come in any order). */
    private static String todayState(ToolRegistry r, String name) {
        for (JsonNode h : call(r, HabitTools.LIST, "{}").path("habits")) {
            if (h.path("habit").path("name").asText().equals(name)) {
                return h.path("status").path("today_state").asText();
            }
        }
        throw new AssertionError("no habit " + name + " in the list");
    }

    @Test
    void aDayMoreThanTenYearsBackIsRefusedNamingTheEarliestDay() {
        ToolRegistry r = tools();
        at("2026-12-02T08:00:00Z");
        call(r, HabitTools.CREATE, "{\"name\": \"Water\", \"time_zone\": \"UTC\"}");
        // streaks walk every day since the first logged one: year -999999999 would walk for hours
        ToolException far = refused(r, HabitTools.LOG, "{\"habit\": \"water\", \"date\": \"-999999999-01-01\"}");
        assertThat(far.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(far.getMessage()).startsWith("date ").contains("10 years ago", "2016-12-02");
        assertThat(refused(r, HabitTools.LOG, "{\"habit\": \"water\", \"date\": \"2016-12-01\"}").getMessage()).contains("10 years ago");
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"water\", \"date\": \"2016-12-02\"}").path("date").asText()).isEqualTo("2016-12-02");
        assertThat(call(r, HabitTools.LIST, "{}").path("habits").get(0).path("status").path("longest_streak").asInt()).isEqualTo(1);
    }

    private static final String RUNNER = "\uD83C\uDFC3"; // U+1F3C3, two UTF-16 units, one code point

    @Test
    void namesAndNotesAreCountedInCodePointsAsTheSchemaCountsThem() {
        ToolRegistry r = tools();
        ToolSpec create = r.specs().stream().filter(s -> s.name().equals(HabitTools.CREATE)).findFirst().orElseThrow();
        assertThat(create.inputSchema().path("properties").path("name").path("maxLength").asInt()).isEqualTo(100);
        JsonNode h = call(r, HabitTools.CREATE, "{\"name\": \"" + RUNNER.repeat(60) + "\"}");
        assertThat(h.path("name").asText()).isEqualTo(RUNNER.repeat(60));
        assertThat(call(r, HabitTools.CREATE, "{\"name\": \"" + RUNNER.repeat(100) + "\"}").path("id").asText()).startsWith("hab_");
        ToolException tooLong = refused(r, HabitTools.CREATE, "{\"name\": \"" + RUNNER.repeat(101) + "\"}");
        assertThat(tooLong.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(tooLong.getMessage()).isEqualTo("name must be 1..100 characters (Unicode code points), got 101");
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"" + RUNNER.repeat(60) + "\", \"note\": \"" + RUNNER.repeat(1000)
                + "\"}").path("note").asText()).hasSize(2000);
        assertThat(refused(r, HabitTools.LOG, "{\"habit\": \"" + RUNNER.repeat(60) + "\", \"note\": \"" + RUNNER.repeat(1001)
                + "\"}").getMessage()).isEqualTo("note must be at most 1000 characters (Unicode code points), got 1001");
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"" + RUNNER.repeat(60) + "\", \"note\": \"two\\nlines\"}")
                .path("note").asText()).as("a note may have lines").isEqualTo("two\nlines");
        assertThat(refused(r, HabitTools.CREATE, "{\"name\": \"Swim\", \"target_unit\": \"" + RUNNER.repeat(41) + "\"}")
                .getMessage()).isEqualTo("target_unit must be 1..40 characters (Unicode code points), got 41");
    }

    /** The code point a JSON escape such as {@code \\u202E} stands for. */
    private static int codePoint(String jsonEscape) {
        try {
            return Json.MAPPER.readTree("\"" + jsonEscape + "\"").asText().codePointAt(0);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void namesWithBidiControlsZeroWidthOrControlCharactersAreRefusedNamingTheField() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Running\"}");
        for (String hidden : List.of("\\u202E", "\\u202A", "\\u2066", "\\u2069", "\\u200B", "\\u200C", "\\u200D", "\\u2060",
                "\\uFEFF", "\\u0007", "\\u00AD", "\\u2028", "\\n")) {
            ToolException e = refused(r, HabitTools.CREATE, "{\"name\": \"Runn" + hidden + "ing\"}");
            assertThat(e.kind()).as(hidden).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
            assertThat(e.getMessage()).as(hidden).startsWith("name must be one line of plain text")
                    .contains(String.format(Locale.ROOT, "U+%04X", codePoint(hidden)));
            assertThat(refused(r, HabitTools.UPDATE, "{\"habit\": \"running\", \"target_unit\": \"k" + hidden + "m\"}")
                    .getMessage()).as(hidden).startsWith("target_unit must be one line of plain text");
            assertThat(refused(r, HabitTools.LOG, "{\"habit\": \"running\", \"note\": \"n" + hidden.replace("\\n", "\\u202E") + "\"}")
                    .getMessage()).as(hidden).startsWith("note must be plain text");
        }
        assertThat(refused(r, HabitTools.CREATE, "{\"name\": \"Runn\\u202Eing\"}").getMessage())
                .contains("U+202E (a bidirectional text control)");
        assertThat(refused(r, HabitTools.CREATE, "{\"name\": \"Running\\u200B\"}").getMessage())
                .as("a zero-width look-alike of an existing name").contains("U+200B (a zero-width character)");
    }

    @Test
    void aNameIsOneNameWhateverItsCaseOrHowItsAccentsAreEncoded() {
        ToolRegistry r = tools();
        call(r, HabitTools.CREATE, "{\"name\": \"Caf\\u00E9\"}"); // é as one code point
        assertThat(refused(r, HabitTools.CREATE, "{\"name\": \"CAFE\\u0301\"}").getMessage()) // E and a combining accent
                .contains("exists already");
        JsonNode found = call(r, HabitTools.LOG, "{\"habit\": \"cafe\\u0301\"}");
        assertThat(found.path("habit").path("name").asText()).isEqualTo("Caf\u00E9");
        JsonNode decomposed = call(r, HabitTools.CREATE, "{\"name\": \"Ne\\u0301e\"}");
        assertThat(decomposed.path("name").asText()).as("kept in NFC").isEqualTo("N\u00E9e");
    }

    @Test
    void aNameOfAnIdsFormIsRefusedSoThatEveryHabitIsReachableByItsName() {
        ToolRegistry r = tools();
        String id = call(r, HabitTools.CREATE, "{\"name\": \"Running\"}").path("id").asText();
        for (String name : List.of(id, id.toUpperCase(Locale.ROOT), " " + id + " ", "hab_0123456789abcdef")) {
            ToolException e = refused(r, HabitTools.CREATE, "{\"name\": \"" + name + "\"}");
            assertThat(e.kind()).as(name).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
            assertThat(e.getMessage()).as(name).contains("has the form of a habit id");
        }
        call(r, HabitTools.CREATE, "{\"name\": \"Walk\"}");
        assertThat(refused(r, HabitTools.UPDATE, "{\"habit\": \"walk\", \"name\": \"" + id + "\"}").getMessage())
                .contains("has the form of a habit id");
        assertThat(call(r, HabitTools.CREATE, "{\"name\": \"hab_it\"}").path("name").asText())
                .as("only the exact form of an id is refused").isEqualTo("hab_it");
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"" + id + "\"}").path("habit").path("name").asText()).isEqualTo("Running");
        assertThat(call(r, HabitTools.LOG, "{\"habit\": \"HAB_IT\"}").path("habit").path("name").asText()).isEqualTo("hab_it");
    }

    @Test
    void historyCountsADayDoneOffTheScheduleApartFromTheDueDaysDone() {
        ToolRegistry r = tools();
        at("2026-11-30T08:00:00Z"); // a Monday
        call(r, HabitTools.CREATE, "{\"name\": \"Gym\", \"days\": [\"mon\", \"wed\", \"fri\"], \"time_zone\": \"UTC\"}");
        call(r, HabitTools.LOG, "{\"habit\": \"gym\"}");
        at("2026-12-01T08:00:00Z");
        call(r, HabitTools.LOG, "{\"habit\": \"gym\"}"); // a Tuesday: not due
        at("2026-12-02T08:00:00Z");
        call(r, HabitTools.LOG, "{\"habit\": \"gym\"}");
        JsonNode history = call(r, HabitTools.HISTORY, "{\"habit\": \"gym\", \"from\": \"2026-11-30\", \"to\": \"2026-12-02\"}");
        assertThat(history.path("done").asInt()).as(history.toString()).isEqualTo(2);
        assertThat(history.path("due").asInt()).isEqualTo(2);
        assertThat(history.path("done_off_schedule").asInt()).isEqualTo(1);
        assertThat(history.path("days").get(1).path("state").asText()).isEqualTo("done");
        assertThat(history.path("days").get(1).path("due").asBoolean()).isFalse();
        JsonNode listed = call(r, HabitTools.LIST, "{}").path("habits").get(0).path("status").path("completion7");
        assertThat(listed.path("done").asInt()).as("habit.list's completion counts as history does").isEqualTo(2);
        ToolSpec spec = r.specs().stream().filter(s -> s.name().equals(HabitTools.HISTORY)).findFirst().orElseThrow();
        assertThat(spec.description()).contains("due days done, never more than due").contains("done_off_schedule");
        at("2026-12-09T08:00:00Z");
        call(r, HabitTools.CREATE, "{\"name\": \"Swim\", \"times_per_week\": 2, \"time_zone\": \"UTC\"}");
        call(r, HabitTools.LOG, "{\"habit\": \"swim\"}");
        JsonNode weeks = call(r, HabitTools.HISTORY, "{\"habit\": \"swim\", \"from\": \"2026-12-09\", \"to\": \"2026-12-09\"}");
        assertThat(weeks.path("done").asInt()).as("a times-a-week habit's every day done counts toward its week").isEqualTo(1);
        assertThat(weeks.path("done_off_schedule").asInt()).isZero();
    }

    @Test
    void anUnknownParamIsNamedWithTheToolsOwnParamsNotTheCallsSettings() {
        ToolRegistry r = HabitTools.register(ToolRegistry.builder(), HabitSettings.at(dir.resolve("h.db")),
                (p, d) -> "me@example.com", clock).build(); // with a Google account: access_token is known
        registries.add(r);
        ToolException e = refused(r, HabitTools.LIST, "{\"archived\": true}");
        assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(e.getMessage()).isEqualTo("habit.list: unknown param 'archived'; its params: include_archived");
        ToolException log = refused(r, HabitTools.LOG, "{\"habit\": \"x\", \"day\": \"2026-12-01\"}");
        assertThat(log.getMessage()).startsWith("habit.log: unknown param 'day'; its params: amount, date, done, habit, note")
                .doesNotContain("agent_name").doesNotContain("timeout_ms").doesNotContain("access_token").doesNotContain("user_id");
        assertThat(call(r, HabitTools.LIST, "{\"agent_name\": \"a\", \"timeout_ms\": 5000}").path("count").asInt())
                .as("the call's settings are still taken").isZero();
    }

    @Test
    void aUserIdIsANamespaceOfItsOwnApartFromGoogleAccountsAndOneWhateverItsCase() {
        // a trusted backend names users; a call without user_id reaches its token's Google account
        HabitSettings trusted = new HabitSettings(dir.resolve("data").resolve("habits.db"), null, true).forManyUsers();
        ToolRegistry r = HabitTools.register(ToolRegistry.builder(), trusted, (p, d) -> "Me@Example.com", clock).build();
        registries.add(r);
        call(r, HabitTools.CREATE, "{\"name\": \"Private\"}"); // with its own token: me@example.com's
        assertThat(call(r, HabitTools.LIST, "{}").path("count").asInt()).isEqualTo(1);
        for (String id : List.of("me@example.com", "ME@EXAMPLE.COM", "user_id:me@example.com")) {
            assertThat(call(r, HabitTools.LIST, "{\"user_id\": \"" + id + "\", \"include_archived\": true}").path("count").asInt())
                    .as("user_id " + id + " reaches none of the token's habits").isZero();
            assertThat(refused(r, HabitTools.LOG, "{\"user_id\": \"" + id + "\", \"habit\": \"private\"}").kind())
                    .isEqualTo(ToolException.Kind.NOT_FOUND);
        }
        call(r, HabitTools.CREATE, "{\"user_id\": \"ALICE\", \"name\": \"Running\"}");
        assertThat(call(r, HabitTools.LIST, "{\"user_id\": \"alice\"}").path("habits").get(0).path("habit").path("name").asText())
                .as("ALICE and alice are one user").isEqualTo("Running");
        assertThat(call(r, HabitTools.LIST, "{\"user_id\": \" Alice \"}").path("count").asInt()).isEqualTo(1);
        assertThat(call(r, HabitTools.LIST, "{\"user_id\": \"\u00C5sa\"}").path("count").asInt()).isZero();
        call(r, HabitTools.CREATE, "{\"user_id\": \"\\u00C5SA\", \"name\": \"Read\"}");
        assertThat(call(r, HabitTools.LIST, "{\"user_id\": \"a\\u030Asa\"}").path("count").asInt())
                .as("one user however the accent is encoded").isEqualTo(1);
        assertThat(call(r, HabitTools.LIST, "{}").path("count").asInt()).as("the token's own are untouched").isEqualTo(1);
        ToolException bidi = refused(r, HabitTools.LIST, "{\"user_id\": \"alice\\u202E\"}");
        assertThat(bidi.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(bidi.getMessage()).startsWith("user_id must be one line of plain text").contains("U+202E");
        assertThat(refused(r, HabitTools.LIST, "{\"user_id\": \"" + "a".repeat(321) + "\"}").getMessage())
                .isEqualTo("user_id must be 1..320 characters (Unicode code points), got 321");
        assertThatThrownBy(() -> new HabitSettings(dir.resolve("x.db"), "user_id:alice", true))
                .hasMessageContaining("AGENT_TOOLS_HABIT_USER must not begin with user_id:");
        assertThatThrownBy(() -> new HabitSettings(dir.resolve("x.db"), "ann\u202E", false))
                .hasMessageContaining("AGENT_TOOLS_HABIT_USER must be one line of plain text");
    }
}
