package dev.agenttools.calendar;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.google.HostileServer;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 25, item 7: a Calendar whose paging misbehaves (a page token that never changes, pages that never end) and
 * a forged list_events page_token. Each call answers within its deadline with an error that names what went wrong,
 * the requests stay within the cap, and the next call is answered as if nothing had happened.
 */
class CalendarPagingTest {
    private static final String CALENDAR_LIST = "calendar/v3/users/me/calendarList";
    private static final String EVENTS = "calendar/v3/calendars/primary/events";
    private static final int TIMEOUT_MS = 10_000;
    private static final String ONE_CALENDAR = "{\"items\": [{\"id\": \"primary\", \"summary\": \"Me\", \"primary\": true, "
            + "\"accessRole\": \"owner\", \"timeZone\": \"UTC\", \"selected\": true}]";
    private static final String DAY = "\"time_min\": \"2026-06-02T00:00:00Z\", \"time_max\": \"2026-06-03T00:00:00Z\"";

    private static ToolRegistry tools(HostileServer server) {
        return Tools.builder().rootUrl(server.rootUrl()).defaultAccessToken("t").build();
    }

    private static JsonNode call(ToolRegistry tools, String tool, String params) {
        try {
            ObjectNode p = (ObjectNode) Json.MAPPER.readTree(params);
            p.put("timeout_ms", TIMEOUT_MS);
            return tools.call(ToolCall.of(tool, p)).data();
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    /** Runs the call, which must fail, and gives its error after checking it came well within the deadline. */
    private static ToolException failure(ToolRegistry tools, String tool, String params) {
        long start = System.nanoTime();
        ToolException[] caught = new ToolException[1];
        assertThatThrownBy(() -> call(tools, tool, params)).isInstanceOfSatisfying(ToolException.class, e -> caught[0] = e);
        assertThat((System.nanoTime() - start) / 1_000_000).as("answered before the deadline").isLessThan(TIMEOUT_MS);
        return caught[0];
    }

    private static String event(String id) {
        return "{\"id\": \"" + id + "\", \"summary\": \"" + id + "\", \"status\": \"confirmed\", "
                + "\"start\": {\"dateTime\": \"2026-06-02T09:00:00Z\"}, \"end\": {\"dateTime\": \"2026-06-02T10:00:00Z\"}}";
    }

    @Test
    void aCalendarListThatSendsItsPageTokenAgainIsAnUpstreamErrorAtOnceAndTheNextCallIsAnswered() throws Exception {
        try (HostileServer server = new HostileServer()) {
            server.route(CALENDAR_LIST, q -> ONE_CALENDAR + ", \"nextPageToken\": \"same\"}");
            ToolRegistry tools = tools(server);

            ToolException e = failure(tools, CalendarTools.LIST_CALENDARS, "{}");
            assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
            assertThat(e.getMessage()).contains("calendarList.list", "same page token again");
            assertThat(server.calls(CALENDAR_LIST)).as("the first page and the one its token named, no more").isEqualTo(2);

            server.route(CALENDAR_LIST, q -> ONE_CALENDAR + "}");
            assertThat(call(tools, CalendarTools.LIST_CALENDARS, "{}").get("calendars")).hasSize(1);
        }
    }

    @Test
    void aCalendarListWhosePagesNeverEndStopsAtTheCap() throws Exception {
        try (HostileServer server = new HostileServer()) {
            AtomicInteger page = new AtomicInteger();
            server.route(CALENDAR_LIST, q -> ONE_CALENDAR + ", \"nextPageToken\": \"p" + page.incrementAndGet() + "\"}");
            ToolRegistry tools = tools(server);

            // list_events without calendar_ids reads the list first: it fails the same way
            for (String tool : new String[] {CalendarTools.LIST_CALENDARS, CalendarTools.LIST_EVENTS}) {
                int before = server.calls(CALENDAR_LIST);
                ToolException e = failure(tools, tool, "{}");
                assertThat(e.kind()).as(tool).isEqualTo(ToolException.Kind.UPSTREAM);
                assertThat(e.getMessage()).as(tool).contains("calendarList.list", "more pages after 10");
                // and is not rerun sequentially (FallbackInterceptor): the server would page the same way
                assertThat(server.calls(CALENDAR_LIST) - before).as(tool).isEqualTo(CalendarService.CALENDAR_LIST_PAGES);
            }
        }
    }

    @Test
    void anEventsPageThatGivesBackTheTokenItWasAskedWithIsAnUpstreamError() throws Exception {
        try (HostileServer server = new HostileServer()) {
            server.route(EVENTS, q -> "{\"timeZone\": \"UTC\", \"items\": [" + event("e" + q.getOrDefault("pageToken", "0"))
                    + "], \"nextPageToken\": \"stuck\"}");
            ToolRegistry tools = tools(server);
            JsonNode first = call(tools, CalendarTools.LIST_EVENTS, "{\"calendar_ids\": [\"primary\"], " + DAY + "}");
            assertThat(first.get("events")).hasSize(1);
            String token = first.get("next_page_token").asText();

            ToolException e = failure(tools, CalendarTools.LIST_EVENTS, "{\"page_token\": \"" + token + "\"}");
            assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
            assertThat(e.getMessage()).contains("events.list primary", "same page token again");
            assertThat(server.calls(EVENTS)).as("the first page and the second, with no sequential rerun").isEqualTo(2);
        }
    }

    private static String token(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aForgedPageTokenPastAnyBoundIsRefusedBeforeCalendarIsAsked() throws Exception {
        try (HostileServer server = new HostileServer()) {
            server.route(EVENTS, q -> "{\"items\": []}");
            ToolRegistry tools = tools(server);
            String range = "\"min\": \"2026-06-02T00:00:00Z\", \"max\": \"2026-06-03T00:00:00Z\", \"n\": 50";
            StringBuilder many = new StringBuilder();
            for (int i = 0; i < 10_000; i++) {
                many.append(i == 0 ? "" : ", ").append("\"c").append(i).append("\": \"p\"");
            }
            String longId = "x".repeat(CalendarTools.MAX_CALENDAR_ID_CHARS + 1);
            String[][] forged = {
                    {token("{" + range + ", \"pages\": {" + many + "}}"), "names 10000 calendars", "1 to 250"},
                    {"A".repeat(PageToken.MAX_CHARS + 1), "at most " + PageToken.MAX_CHARS + " characters", "got " + (PageToken.MAX_CHARS + 1)},
                    {token("{" + range + ", \"pages\": {\"" + longId + "\": \"p\"}}"), "calendar id of 513 characters", "1 to 512"},
                    {token("{" + range + ", \"pages\": {\"primary\": \"" + "p".repeat(5000) + "\"}}"), "5000 characters", "1 to 4096"},
                    {token("{" + range + ", \"pages\": {\"primary\": 7}}"), "not a string"},
                    {token("{" + range + ", \"pages\": {}}"), "names 0 calendars"},
                    {token("{\"min\": \"2026-06-02T00:00:00Z\", \"max\": \"2026-06-03T00:00:00Z\", \"n\": 100000, \"pages\": {\"primary\": \"p\"}}"),
                            "page size must be 1..2500", "100000"},
                    {token("{\"min\": \"2026-06-03T00:00:00Z\", \"max\": \"2026-06-02T00:00:00Z\", \"n\": 5, \"pages\": {\"primary\": \"p\"}}"),
                            "range must end after it starts"},
                    {token("{\"min\": \"+99999-01-01T00:00:00Z\", \"max\": \"+99999-06-02T00:00:00Z\", \"n\": 5, \"pages\": {\"primary\": \"p\"}}"),
                            "years 1 to 9999"},
                    {token("{" + range + ", \"q\": \"" + "w".repeat(3000) + "\", \"pages\": {\"primary\": \"p\"}}"), "query must be at most 2048"},
                    {token("[1, 2]"), "not one this tool gave"},
                    {"%%%", "not one this tool gave"},
            };
            for (String[] f : forged) {
                ToolException e = failure(tools, CalendarTools.LIST_EVENTS, "{\"page_token\": \"" + f[0] + "\"}");
                assertThat(e.kind()).as(f[1]).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
                assertThat(e.getMessage()).as(f[1]).startsWith("page_token").contains(Arrays.copyOfRange(f, 1, f.length));
            }
            assertThat(server.calls(EVENTS)).as("no forged token reached Calendar").isZero();

            // one within every bound is followed, as a real one is
            JsonNode fine = call(tools, CalendarTools.LIST_EVENTS, "{\"page_token\": \"" + token("{" + range + ", \"pages\": {\"primary\": \"p\"}}") + "\"}");
            assertThat(fine.get("events")).isEmpty();
            assertThat(server.calls(EVENTS)).isEqualTo(1);
        }
    }

    @Test
    void theParamsATokenCarriesHaveItsBoundsAndATokenPastThemIsNeverGiven() throws Exception {
        try (HostileServer server = new HostileServer()) {
            // 251 calendars over two pages (a page holds at most the 250 asked for: more would be cut)
            StringBuilder many = new StringBuilder("{\"nextPageToken\": \"p2\", \"items\": [");
            for (int i = 0; i < CalendarTools.MAX_CALENDARS; i++) {
                many.append(i == 0 ? "" : ", ").append("{\"id\": \"c").append(i).append("\", \"selected\": true}");
            }
            String last = "{\"items\": [{\"id\": \"c250\", \"selected\": true}]}";
            server.route(CALENDAR_LIST, q -> "p2".equals(q.get("pageToken")) ? last : many + "]}");
            server.route(EVENTS, q -> "{\"items\": [" + event("e1") + "], \"nextPageToken\": \"" + "p".repeat(5000) + "\"}");
            ToolRegistry tools = tools(server);

            ToolException shows251 = failure(tools, CalendarTools.LIST_EVENTS, "{}");
            assertThat(shows251.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
            assertThat(shows251.getMessage()).contains("calendar_ids", "shows 251 calendars", "up to 250");
            ToolException longId = failure(tools, CalendarTools.LIST_EVENTS, "{\"calendar_ids\": [\"" + "x".repeat(513) + "\"]}");
            assertThat(longId.getMessage()).contains("calendar_ids", "at most 512 characters", "513");
            ToolException longQuery = failure(tools, CalendarTools.LIST_EVENTS, "{\"query\": \"" + "w".repeat(2049) + "\"}");
            assertThat(longQuery.getMessage()).contains("query", "at most 2048 characters", "2049");
            assertThat(server.calls(EVENTS)).isZero();

            // Calendar's own page token past what a page_token keeps: its error, not a token the next call refuses
            ToolException longPage = failure(tools, CalendarTools.LIST_EVENTS, "{\"calendar_ids\": [\"primary\"], " + DAY + "}");
            assertThat(longPage.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
            assertThat(longPage.getMessage()).contains("events.list primary", "page token of 5000 characters", "no next_page_token");
        }
    }

    @Test
    void aCalendarCallOutOfPacingNamesCalendarsQuotaNotGmails() throws Exception {
        try (HostileServer server = new HostileServer()) {
            server.route(CALENDAR_LIST, q -> ONE_CALENDAR + "}");
            // one request a minute: the first goes, the second would wait most of a minute
            ToolRegistry tools = Tools.builder().rootUrl(server.rootUrl()).defaultAccessToken("t").calendarPacing(1, 1, 1).build();
            call(tools, CalendarTools.LIST_CALENDARS, "{}");
            ToolException e = failure(tools, CalendarTools.LIST_CALENDARS, "{}");
            // refused at once, before it waits or spends anything, saying when to try again
            assertThat(e.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
            assertThat(e.retryAfter()).isPositive();
            assertThat(e.getMessage()).contains("the Calendar quota of this account is spoken for").doesNotContain("Gmail");
        }
    }
}
