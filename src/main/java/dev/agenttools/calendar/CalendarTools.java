package dev.agenttools.calendar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.model.CalendarListEntry;
import dev.agenttools.google.AccessToken;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.google.Strategy;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/** The Calendar tools: list_calendars, list_events, get_event and free_busy, as registry tools. */
public final class CalendarTools {
    public static final String LIST_CALENDARS = "calendar.list-calendars";
    public static final String LIST_EVENTS = "calendar.list-events";
    public static final String GET_EVENT = "calendar.get-event";
    public static final String FREE_BUSY = "calendar.free-busy";
    static final int MAX_RESULTS_LIMIT = 2500;
    static final int DEFAULT_MAX_RESULTS = 50;
    /** More calendar ids than anyone sees, and far more than one call should fan out to. */
    static final int MAX_CALENDARS = 250;
    /** Calendar ids are email addresses (at most 254 characters) or shorter group ids: past this one is not an id. */
    static final int MAX_CALENDAR_ID_CHARS = 512;
    /** list_events' free text: Calendar matches words, and a page_token carries it back (see {@link PageToken}). */
    static final int MAX_QUERY_CHARS = 2048;

    private CalendarTools() {
    }

    /**
     * The {@code fields} masks list_events asks Calendar for: calendarList.list's, then each events.list's (for the
     * benchmark's bare client, which must make the server do the same work as the tools).
     */
    public static final List<String> LIST_FIELD_MASKS = List.of(CalendarService.CALENDAR_LIST_FIELDS, CalendarService.EVENT_LIST_FIELDS);

    /**
     * Asks Calendar who a session's credential is (the primary calendar's id: its owner's address), for a registry with
     * Calendar and no Gmail, whose Habit tools key each account's habits by it.
     */
    public static GoogleConnection.WhoIs whoIs(CalendarSettings settings, GoogleConnection connection) {
        return new CalendarService(settings, connection)::primaryCalendarId;
    }

    /**
     * The Calendar tools on the registry's connection to Google.
     *
     * @param htmlToText how an HTML description becomes readable text (the mail tools' converter, for one reading)
     */
    public static ToolRegistry.Builder register(ToolRegistry.Builder registry, CalendarSettings settings, GoogleConnection connection,
                                                UnaryOperator<String> htmlToText) {
        return register(registry, new CalendarService(settings, connection), htmlToText);
    }

    static ToolRegistry.Builder register(ToolRegistry.Builder registry, CalendarService service, UnaryOperator<String> htmlToText) {
        return registry.tool(new ListCalendars(service)).tool(new ListEvents(new EventLister(service)))
                .tool(new GetEvent(service, htmlToText)).tool(new FreeBusy(service));
    }

    /**
     * A calendar freeBusy.query answered with an error instead of busy time. Google's reasons: notFound (no such
     * calendar, or not shared with this account: Google does not tell them apart), groupTooBig and
     * tooManyCalendarsRequested (a group or request too large to expand), internalError and backendError.
     */
    static CalendarAnswers.Skipped skippedFreeBusy(String id, String reason) {
        return switch (reason) {
            case "notFound" -> new CalendarAnswers.Skipped(id, ToolException.Kind.NOT_FOUND.code(),
                    "not found: deleted, or not shared with this account");
            case "groupTooBig", "tooManyCalendarsRequested" -> new CalendarAnswers.Skipped(id, ToolException.Kind.INVALID_ARGUMENT.code(),
                    "too many calendars to expand in one request (" + reason + "): ask for the group's members instead");
            default -> new CalendarAnswers.Skipped(id, ToolException.Kind.UPSTREAM.code(),
                    "Calendar gave no free/busy for it (" + reason + "); it may answer a later call");
        };
    }

    private static ObjectNode schema(String description, ObjectNode properties) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("description", description);
        schema.set("properties", properties);
        schema.putArray("required");
        schema.put("additionalProperties", false);
        return schema;
    }

    private static ObjectNode commonProperties() {
        return AccessToken.properties("An OAuth2 access token with a Calendar scope; without it the stored sign-in is used. Never logged.");
    }

    /** list_calendars: the calendars in the user's list. */
    private record ListCalendars(CalendarService service) implements Tool {
        private static final Set<String> PARAMS = Set.of(AccessToken.PARAM);

        @Override
        public ToolSpec spec() {
            return new ToolSpec(LIST_CALENDARS, "List the user's calendars: id, summary, primary, access_role, time_zone, "
                    + "color, selected and hidden for each, the primary first. Use an id with calendar.list-events.",
                    schema("Params of calendar.list-calendars", commonProperties()), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = Params.of(call, PARAMS);
            CalendarService.Session s = service.sessionFor(AccessToken.of(p));
            List<CalendarAnswers.CalendarSummary> calendars = service.calendars(s, call.deadline()).stream()
                    .map(CalendarAnswers::calendar).sorted((a, b) -> Boolean.compare(b.primary(), a.primary())).toList();
            return new ToolResult(Json.tree(new CalendarAnswers.CalendarList(calendars)), Backend.SEQUENTIAL, calendars.size());
        }
    }

    /** list_events: events across calendars in a time range. */
    private record ListEvents(EventLister lister) implements Tool {
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
                        + " calendar ids (strings), got " + (v.isArray() ? v.size() + " items" : v.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)));
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

    /** get_event: one event in full. */
    private record GetEvent(CalendarService service, UnaryOperator<String> htmlToText) implements Tool {
        private static final Set<String> PARAMS = Set.of("calendar_id", "event_id", "include_html", AccessToken.PARAM);

        @Override
        public ToolSpec spec() {
            ObjectNode p = commonProperties();
            p.putObject("event_id").put("type", "string").put("minLength", 1)
                    .put("description", "The event's id, from calendar.list-events (an instance of a series has its own id).");
            p.putObject("calendar_id").put("type", "string").put("default", "primary")
                    .put("description", "The calendar it is in (its calendar_id in calendar.list-events).");
            p.putObject("include_html").put("type", "boolean").put("default", false)
                    .put("description", "Also return an HTML description as description_html.");
            ObjectNode schema = schema("Params of calendar.get-event", p);
            schema.putArray("required").add("event_id");
            return new ToolSpec(GET_EVENT, "Get one event in full: summary, description as readable text (HTML turned into "
                    + "text with links kept), start, end, time_zone, location, status, organizer, attendees with their answers, "
                    + "conference_link, attachments, recurrence (for a series), recurring_event_id (for an instance), html_link.",
                    schema, ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = Params.of(call, PARAMS);
            String eventId = p.requiredString("event_id");
            String calendarId = p.string("calendar_id", "primary");
            if (calendarId.isBlank()) {
                throw ToolException.invalidArgument("calendar_id must be a calendar id (from calendar.list-calendars) or 'primary', got \"\"");
            }
            boolean html = p.bool("include_html", false);
            CalendarService.Session s = service.sessionFor(AccessToken.of(p));
            CalendarAnswers.EventDetail detail = CalendarAnswers.detail(calendarId,
                    service.event(s, calendarId, eventId, call.deadline()), htmlToText, html);
            return new ToolResult(Json.tree(detail), Backend.SEQUENTIAL, 1);
        }
    }

    /** free_busy: busy blocks across calendars. */
    private record FreeBusy(CalendarService service) implements Tool {
        private static final Set<String> PARAMS = Set.of("calendar_ids", "time_min", "time_max", AccessToken.PARAM);

        @Override
        public ToolSpec spec() {
            ObjectNode p = commonProperties();
            p.putObject("time_min").put("type", "string").put("description", "Start: an RFC 3339 time with an offset or a date. Default: today.");
            p.putObject("time_max").put("type", "string").put("description", "End, exclusive: a time, or a date (up to the end of that day).");
            ObjectNode ids = p.putObject("calendar_ids").put("type", "array").put("maxItems", MAX_CALENDARS)
                    .put("description", "Calendar ids, or other people's addresses whose free/busy you may see. Default: every selected calendar.");
            ids.putObject("items").put("type", "string").put("minLength", 1).put("maxLength", MAX_CALENDAR_ID_CHARS);
            return new ToolSpec(FREE_BUSY, "When each calendar is busy in a time range (Calendar's freeBusy): busy blocks "
                    + "[{start, end}] per calendar, overlapping events merged, free (transparent) and cancelled events left "
                    + "out. A calendar that cannot be read is named in skipped_calendars.", schema("Params of calendar.free-busy", p), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = Params.of(call, PARAMS);
            List<String> asked = ListEvents.calendarIds(call.params().get("calendar_ids"));
            String timeMin = p.string("time_min", null);
            String timeMax = p.string("time_max", null);
            CalendarService.Session s = service.sessionFor(AccessToken.of(p));
            List<CalendarListEntry> calendars =
                    asked == null || TimeRange.needsZone(timeMin, timeMax) ? service.calendars(s, call.deadline()) : List.of();
            ZoneId zone = TimeRange.userZone(calendars);
            TimeRange range = TimeRange.of(timeMin, timeMax, zone);
            List<String> ids = asked != null ? asked : EventLister.selected(calendars);
            List<CalendarAnswers.Busy> busy = new ArrayList<>();
            List<CalendarAnswers.Skipped> skipped = new ArrayList<>();
            for (int i = 0; i < ids.size(); i += CalendarService.FREE_BUSY_CALENDARS) {
                List<String> chunk = ids.subList(i, Math.min(ids.size(), i + CalendarService.FREE_BUSY_CALENDARS));
                var answer = service.freeBusy(s, chunk, range.min(), range.max(), call.deadline());
                for (String id : chunk) {
                    var c = answer.getCalendars() == null ? null : answer.getCalendars().get(id);
                    if (c == null || c.getErrors() != null && !c.getErrors().isEmpty()) {
                        skipped.add(skippedFreeBusy(id, c == null ? "missing" : c.getErrors().getFirst().getReason()));
                        continue;
                    }
                    List<CalendarAnswers.Period> periods = c.getBusy() == null ? List.of() : c.getBusy().stream()
                            .map(b -> new CalendarAnswers.Period(local(b.getStart(), zone), local(b.getEnd(), zone))).toList();
                    busy.add(new CalendarAnswers.Busy(id, periods));
                }
            }
            return new ToolResult(Json.tree(new CalendarAnswers.FreeBusy(busy, skipped)), Backend.SEQUENTIAL, busy.size());
        }

        private static String local(DateTime t, ZoneId zone) {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
                    Instant.ofEpochMilli(t.getValue()).atZone(zone).toOffsetDateTime());
        }
    }
}
