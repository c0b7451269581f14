package dev.agenttools.calendar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.AccessToken;
import dev.agenttools.google.Strategy;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static dev.agenttools.calendar.CalendarParams.commonProperties;
import static dev.agenttools.calendar.CalendarParams.schema;
import static dev.agenttools.calendar.CalendarTools.DEFAULT_MAX_RESULTS;
import static dev.agenttools.calendar.CalendarTools.LIST_EVENTS;
import static dev.agenttools.calendar.CalendarTools.MAX_CALENDARS;
import static dev.agenttools.calendar.CalendarTools.MAX_CALENDAR_ID_CHARS;
import static dev.agenttools.calendar.CalendarTools.MAX_QUERY_CHARS;
import static dev.agenttools.calendar.CalendarTools.MAX_RESULTS_LIMIT;

/** list_events: events across calendars in a time range. */
record ListEvents(EventLister lister) implements Tool {
    private static final Set<String> PARAMS = Set.of("calendar_ids", "time_min", "time_max", "query", "max_results",
            "page_token", Strategy.PARAM, AccessToken.PARAM);

    @Override
    public ToolSpec spec() {
        ObjectNode p = commonProperties();
        p.putObject("time_min").put("type", "string").put("description", "Start of the range: an RFC 3339 time with an "
                + "offset (2026-12-01T09:00:00+01:00) or a date (2026-12-01, from its midnight in the user's time zone). "
                + "Default: today.");
        p.putObject("time_max").put("type", "string").put("description", "End of the range, exclusive: a time, or a date "
                + "(up to the end of that day). Default: the end of time_min's day when that is a date, else the end of today.");
        ObjectNode ids = p.putObject("calendar_ids").put("type", "array").put("maxItems", MAX_CALENDARS)
                .put("description", "Calendar ids (from calendar.list-calendars; 'primary' is the user's own). Default: every selected calendar.");
        ids.putObject("items").put("type", "string").put("minLength", 1).put("maxLength", MAX_CALENDAR_ID_CHARS);
        p.putObject("query").put("type", "string").put("maxLength", MAX_QUERY_CHARS)
                .put("description", "Free text the events must contain (summary, description, location, people).");
        p.putObject("max_results").put("type", "integer").put("minimum", 1).put("maximum", MAX_RESULTS_LIMIT)
                .put("default", DEFAULT_MAX_RESULTS).put("description", "Events per calendar and page (with page_token: the first call's, unless given).");
        p.putObject("page_token").put("type", "string").put("maxLength", PageToken.MAX_CHARS)
                .put("description", "The next_page_token of a previous answer, as it was (it keeps the range and query).");
        Strategy.describe(p, "How the calendars are asked: auto, sequential, concurrent or batch. The answer is the same.");
        return new ToolSpec(LIST_EVENTS, "List events across the user's calendars in a time range (default: today), "
                + "recurring events expanded, merged in start order with all-day events first within their day: id, "
                + "calendar_id, summary, start, end (RFC 3339 with the event's own offset, or dates with all_day true), "
                + "time_zone, location, status, organizer, attendees, html_link, recurring_event_id, conference_link. "
                + "A calendar that is deleted or not readable is named in skipped_calendars and does not fail the call.",
                schema("Params of calendar.list-events", p), ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = Params.of(call, PARAMS);
        String query = p.string("query", null);
        // in code points, as the schema's maxLength counts: an emoji is one character, not two
        if (query != null && Params.codePoints(query) > MAX_QUERY_CHARS) {
            throw ToolException.invalidArgument("query must be at most " + MAX_QUERY_CHARS + " characters (Unicode code points), got "
                    + Params.codePoints(query));
        }
        return lister.list(new EventLister.Request(calendarIds(call.params().get("calendar_ids")), p.string("time_min", null),
                p.string("time_max", null), query,
                call.params().has("max_results") ? p.integer("max_results", 1, MAX_RESULTS_LIMIT, DEFAULT_MAX_RESULTS) : null,
                p.string("page_token", null), Strategy.of(p), call.deadline(), AccessToken.of(p)));
    }

    @Override
    public ToolCall fallback(ToolCall failed) {
        return Strategy.sequentially(failed);
    }

    static List<String> calendarIds(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isArray() || v.isEmpty() || v.size() > MAX_CALENDARS) {
            throw ToolException.invalidArgument("calendar_ids must be a list of 1 to " + MAX_CALENDARS
                    + " calendar ids (strings), got " + (v.isArray() ? v.size() + " items" : v.getNodeType().toString().toLowerCase(Locale.ROOT)));
        }
        List<String> ids = new ArrayList<>();
        for (JsonNode id : v) {
            if (!id.isTextual() || id.asText().isBlank()) {
                throw ToolException.invalidArgument("calendar_ids must hold calendar ids (non-empty strings), got " + id);
            }
            if (Params.codePoints(id.asText()) > MAX_CALENDAR_ID_CHARS) {
                throw ToolException.invalidArgument("calendar_ids must hold calendar ids of at most " + MAX_CALENDAR_ID_CHARS
                        + " characters (Unicode code points), got one of " + Params.codePoints(id.asText()));
            }
            if (!ids.contains(id.asText())) {
                ids.add(id.asText());
            }
        }
        return ids;
    }
}
