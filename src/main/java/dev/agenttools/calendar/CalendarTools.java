package dev.agenttools.calendar;

import dev.agenttools.google.GoogleConnection;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;

import java.util.List;
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
        // one tool, one file: its name, description, schema, effect and code together
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
}
