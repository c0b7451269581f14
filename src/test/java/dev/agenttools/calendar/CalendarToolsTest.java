package dev.agenttools.calendar;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Calendar tools against the emulator's seeded calendars over HTTP, with expectations worked out by hand from
 * the seed: which events a day holds across all calendars, in what order, whatever the strategy.
 */
class CalendarToolsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static ToolRegistry tools;

    @BeforeAll
    static void start() {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).build());
        tools = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken("t").build();
    }

    private static JsonNode call(String tool, String params) {
        try {
            ToolResult r = tools.call(ToolCall.of(tool, (ObjectNode) Json.MAPPER.readTree(params)));
            return r.data();
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> lines(JsonNode events) {
        List<String> out = new ArrayList<>();
        events.forEach(e -> out.add(e.get("start").asText() + " " + e.get("summary").asText() + " @" + e.get("calendar_id").asText()));
        return out;
    }

    @Test
    void listsEveryCalendarPrimaryFirst() {
        JsonNode calendars = call(CalendarTools.LIST_CALENDARS, "{}").get("calendars");
        assertThat(calendars).hasSize(10);
        assertThat(calendars.get(0).get("id").asText()).isEqualTo("me@example.com");
        assertThat(calendars.get(0).get("primary").asBoolean()).isTrue();
        assertThat(calendars.get(0).get("time_zone").asText()).isEqualTo("Europe/Berlin");
        assertThat(calendars.findValuesAsText("access_role")).contains("owner", "writer", "reader");
        assertThat(calendars.findValuesAsText("summary")).contains("日本の祝日", "東京オフィス");
        assertThat(calendars).filteredOn(c -> c.get("hidden").asBoolean()).extracting(c -> c.get("summary").asText())
                .containsExactly("Archive 2024");
    }

    @Test
    void aDayAcrossAllCalendarsInStartOrderWithTheAllDayEventFirstAndTheVanishedCalendarSkipped() {
        for (String strategy : List.of("sequential", "concurrent", "batch", "auto")) {
            JsonNode answer = call(CalendarTools.LIST_EVENTS, "{\"time_min\": \"2026-06-02\", \"strategy\": \"" + strategy + "\"}");
            assertThat(lines(answer.get("events"))).as(strategy).containsExactly(
                    "2026-06-01 On-call: platform @c_team.platform@group.calendar.google.com",
                    "2026-06-02T09:30:00+02:00 Daily stand-up @c_work.example@group.calendar.google.com",
                    "2026-06-02T19:00:00+02:00 Gym @me@example.com");
            assertThat(answer.get("events").get(0).get("all_day").asBoolean()).isTrue();
            assertThat(answer.get("events").get(0).get("end").asText()).isEqualTo("2026-06-08");
            assertThat(answer.get("skipped_calendars")).singleElement().satisfies(s -> {
                assertThat(s.get("id").asText()).isEqualTo("c_former.team@group.calendar.google.com");
                assertThat(s.get("code").asText()).isEqualTo("not_found");
            });
            assertThat(answer.has("next_page_token")).isFalse();
        }
    }

    @Test
    void everyStrategyGivesByteIdenticalAnswers() {
        String params = "\"time_min\": \"2026-03-23\", \"time_max\": \"2026-03-29\"";
        String sequential = Json.write(call(CalendarTools.LIST_EVENTS, "{" + params + ", \"strategy\": \"sequential\"}"));
        assertThat(Json.write(call(CalendarTools.LIST_EVENTS, "{" + params + ", \"strategy\": \"concurrent\"}"))).isEqualTo(sequential);
        assertThat(Json.write(call(CalendarTools.LIST_EVENTS, "{" + params + ", \"strategy\": \"batch\"}"))).isEqualTo(sequential);
        // the week: stand-ups Mon-Fri, the review, gym Tue/Thu (the 24th and 26th), school runs Mon/Wed/Fri, the
        // Tokyo weekly (Thursday 10:00 JST), the LA sync (Wednesday 09:00 PDT) and the night train on Saturday
        JsonNode events = Json.MAPPER.valueToTree(Json.tree(call(CalendarTools.LIST_EVENTS, "{" + params + "}"))).get("events");
        assertThat(events).hasSize(5 + 1 + 2 + 3 + 1 + 1 + 1);
        assertThat(events.get(0).get("summary").asText()).isEqualTo("School run"); // Monday 07:45
    }

    @Test
    void timesKeepTheEventsOwnOffsetAndSeriesNameTheirSeries() {
        JsonNode events = call(CalendarTools.LIST_EVENTS, "{\"time_min\": \"2026-11-04\", \"calendar_ids\": [\"c_la.office@group.calendar.google.com\"]}")
                .get("events");
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.get("start").asText()).isEqualTo("2026-11-04T09:00:00-08:00");
            assertThat(e.get("time_zone").asText()).isEqualTo("America/Los_Angeles");
            assertThat(e.get("recurring_event_id").asText()).isNotBlank();
            assertThat(e.get("conference_link").asText()).startsWith("https://meet.google.com/");
        });
    }

    @Test
    void pagesEachCalendarOnItsOwnAndTheTokenKeepsTheQuestion() {
        String first = "{\"time_min\": \"2026-02-01\", \"time_max\": \"2026-02-28\", \"calendar_ids\": [\"c_work.example@group.calendar.google.com\"], "
                + "\"query\": \"stand-up\", \"max_results\": 8}";
        List<String> ids = new ArrayList<>();
        JsonNode page = call(CalendarTools.LIST_EVENTS, first);
        int pages = 1;
        page.get("events").forEach(e -> ids.add(e.get("id").asText()));
        while (page.has("next_page_token")) {
            page = call(CalendarTools.LIST_EVENTS, "{\"page_token\": \"" + page.get("next_page_token").asText() + "\"}");
            page.get("events").forEach(e -> ids.add(e.get("id").asText()));
            pages++;
        }
        assertThat(ids).hasSize(20).doesNotHaveDuplicates(); // the weekdays of February 2026
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void aListOfCalendarsTheQuotaCannotServeInTimeIsRefusedWholeBeforeAnyCalendarIsAsked() throws Exception {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).build());
        // 60 requests a minute, a bucket of 9: a list of eight calendars' events leaves it empty, so a second one
        // cannot have its eight events.list within a second
        try (ToolRegistry paced = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken("t")
                .calendarPacing(60, 10, 10).build()) {
            List<String> ids = new ArrayList<>();
            paced.call(ToolCall.of(CalendarTools.LIST_CALENDARS, Json.object())).data().get("calendars")
                    .forEach(c -> ids.add(c.get("id").asText()));
            ObjectNode day = (ObjectNode) Json.MAPPER.readTree("{\"time_min\": \"2026-06-02T00:00:00+02:00\", "
                    + "\"time_max\": \"2026-06-03T00:00:00+02:00\", \"strategy\": \"concurrent\", \"timeout_ms\": 30000}");
            ids.subList(8, ids.size()).clear();
            ids.forEach(day.putArray("calendar_ids")::add);
            paced.call(ToolCall.of(CalendarTools.LIST_EVENTS, day));
            long calls = emulator.counters().apiCalls();
            assertThatThrownBy(() -> paced.call(ToolCall.of(CalendarTools.LIST_EVENTS, day.deepCopy().put("timeout_ms", 1000))))
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
                        assertThat(e.retryAfter()).isPositive();
                        assertThat(e).hasMessageContaining("calendar events.list x8: the Calendar quota of this account is spoken for");
                    });
            assertThat(emulator.counters().apiCalls()).as("no calendar asked: none left unanswered").isEqualTo(calls);
        }
    }

    @Test
    void badInputIsAClearErrorNamingTheField() {
        assertThatThrownBy(() -> call(CalendarTools.LIST_EVENTS, "{\"time_min\": \"tomorrow\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("time_min", "tomorrow", "RFC 3339");
                });
        assertThatThrownBy(() -> call(CalendarTools.LIST_EVENTS, "{\"calendar_ids\": \"primary\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("calendar_ids", "list"));
        assertThatThrownBy(() -> call(CalendarTools.LIST_EVENTS, "{\"page_token\": \"nope\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("page_token"));
        assertThatThrownBy(() -> call(CalendarTools.LIST_EVENTS, "{\"time_min\": \"2026-03-02\", \"time_max\": \"2026-03-01\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("time_max must be after time_min"));
        assertThatThrownBy(() -> call(CalendarTools.LIST_EVENTS, "{\"strategy\": \"fast\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("strategy", "concurrent"));
    }

    @Test
    void anUnknownCalendarAskedForByIdIsSkippedNotFatal() {
        JsonNode answer = call(CalendarTools.LIST_EVENTS, "{\"time_min\": \"2026-06-02\", \"calendar_ids\": [\"primary\", \"nobody@example.com\"]}");
        assertThat(lines(answer.get("events"))).containsExactly("2026-06-02T19:00:00+02:00 Gym @primary");
        assertThat(answer.get("skipped_calendars").findValuesAsText("id")).containsExactly("nobody@example.com");
        assertThat(answer.get("skipped_calendars").findValuesAsText("code")).containsExactly("not_found");
        // Google's other per-calendar reasons: the request's size is the caller's to change, the rest may pass later
        assertThat(CalendarTools.skippedFreeBusy("team@example.com", "groupTooBig").code()).isEqualTo("invalid_argument");
        assertThat(CalendarTools.skippedFreeBusy("x@example.com", "internalError").code()).isEqualTo("upstream");
        assertThat(CalendarTools.skippedFreeBusy("x@example.com", "internalError").message()).contains("internalError");
    }

    @Test
    void getsAnEventInFullWithItsHtmlDescriptionAsText() {
        JsonNode review = call(CalendarTools.LIST_EVENTS, "{\"time_min\": \"2026-03-27\", \"query\": \"sprint review\", "
                + "\"calendar_ids\": [\"c_work.example@group.calendar.google.com\"]}").get("events").get(0);
        JsonNode detail = call(CalendarTools.GET_EVENT, "{\"calendar_id\": \"c_work.example@group.calendar.google.com\", \"event_id\": \""
                + review.get("recurring_event_id").asText() + "\", \"include_html\": true}");
        assertThat(detail.get("description").asText()).contains("Agenda:", "Demo of search", "sprint doc").doesNotContain("<b>", "&amp;");
        assertThat(detail.get("description_html").asText()).contains("<b>search</b>");
        assertThat(detail.get("recurrence").get(0).asText()).isEqualTo("RRULE:FREQ=MONTHLY;BYDAY=-1FR");
        assertThat(detail.get("attachments").get(0).get("title").asText()).isEqualTo("Sprint deck");
        // an instance by its id, from the list
        JsonNode instance = call(CalendarTools.GET_EVENT, "{\"calendar_id\": \"c_work.example@group.calendar.google.com\", \"event_id\": \""
                + review.get("id").asText() + "\"}");
        assertThat(instance.get("start").asText()).isEqualTo("2026-03-27T16:00:00+01:00");
        assertThat(instance.get("recurring_event_id").asText()).isEqualTo(review.get("recurring_event_id").asText());
        assertThat(instance.has("description_html")).isFalse();
        assertThatThrownBy(() -> call(CalendarTools.GET_EVENT, "{\"event_id\": \"nosuchevent\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.NOT_FOUND));
        assertThatThrownBy(() -> call(CalendarTools.GET_EVENT, "{}"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("event_id"));
    }

    @Test
    void freeBusyMergesBusyTimeAndSkipsWhatCannotBeRead() {
        JsonNode answer = call(CalendarTools.FREE_BUSY, "{\"time_min\": \"2026-03-27T00:00:00+01:00\", \"time_max\": \"2026-03-28T00:00:00+01:00\", "
                + "\"calendar_ids\": [\"c_work.example@group.calendar.google.com\", \"ja.japanese#holiday@group.v.calendar.google.com\", \"nobody@example.com\"]}");
        JsonNode work = answer.get("calendars").get(0);
        assertThat(work.get("id").asText()).isEqualTo("c_work.example@group.calendar.google.com");
        List<String> blocks = new ArrayList<>();
        work.get("busy").forEach(b -> blocks.add(b.get("start").asText() + "/" + b.get("end").asText()));
        // given times, no calendar list: the answer is in UTC
        assertThat(blocks).containsExactly("2026-03-27T08:30:00Z/2026-03-27T08:45:00Z", "2026-03-27T15:00:00Z/2026-03-27T16:00:00Z");
        assertThat(answer.get("calendars").get(1).get("busy")).isEmpty(); // holidays are free time
        assertThat(answer.get("skipped_calendars").findValuesAsText("id")).containsExactly("nobody@example.com");
        assertThat(answer.get("skipped_calendars").findValuesAsText("code")).containsExactly("not_found");
        // Google's other per-calendar reasons: the request's size is the caller's to change, the rest may pass later
        assertThat(CalendarTools.skippedFreeBusy("team@example.com", "groupTooBig").code()).isEqualTo("invalid_argument");
        assertThat(CalendarTools.skippedFreeBusy("x@example.com", "internalError").code()).isEqualTo("upstream");
        assertThat(CalendarTools.skippedFreeBusy("x@example.com", "internalError").message()).contains("internalError");
        // a date: the user's zone (the primary calendar's, Berlin)
        JsonNode day = call(CalendarTools.FREE_BUSY, "{\"time_min\": \"2026-06-02\", \"calendar_ids\": [\"primary\"]}");
        assertThat(day.get("calendars").get(0).get("busy").get(0).get("start").asText()).isEqualTo("2026-06-02T19:00:00+02:00");
    }
}
