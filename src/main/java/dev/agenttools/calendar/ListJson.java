package dev.agenttools.calendar;

import com.fasterxml.jackson.core.JsonParser;
import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.model.CalendarList;
import com.google.api.services.calendar.model.CalendarListEntry;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.EventAttendee;
import com.google.api.services.calendar.model.EventDateTime;
import com.google.api.services.calendar.model.Events;
import dev.agenttools.google.StreamingJson;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

import static dev.agenttools.google.StreamingJson.array;
import static dev.agenttools.google.StreamingJson.asBoolean;
import static dev.agenttools.google.StreamingJson.fields;

/**
 * Reads the two answers every list_events makes, calendarList.list and events.list, into the Calendar client's own
 * model classes with Jackson's streaming parser (why: {@link StreamingJson}). It reads the fields the list tools ask
 * for ({@link CalendarService#CALENDAR_LIST_FIELDS}, {@link CalendarService#EVENT_LIST_FIELDS}) and skips any
 * other; a test compares it with the client's parser on every seeded calendar and event. Stateless; thread-safe.
 */
final class ListJson {
    private ListJson() {
    }

    static CalendarList calendarList(byte[] json) throws IOException {
        return calendarList(new ByteArrayInputStream(json), Integer.MAX_VALUE);
    }

    /**
     * A calendarList page as it streams in, keeping at most {@code max} calendars, the page size asked for: more are
     * read past.
     */
    static CalendarList calendarList(InputStream json, int max) throws IOException {
        return StreamingJson.read(json, p -> {
            CalendarList out = new CalendarList();
            fields(p, (name, v) -> {
                switch (name) {
                    case "items" -> out.setItems(array(v, ListJson::calendar, max));
                    case "nextPageToken" -> out.setNextPageToken(v.getValueAsString());
                    default -> v.skipChildren();
                }
            });
            return out;
        });
    }

    static Events events(byte[] json) throws IOException {
        return events(new ByteArrayInputStream(json), Integer.MAX_VALUE);
    }

    /** An events page as it streams in, keeping at most {@code max} events, the page size asked for: more are read past. */
    static Events events(InputStream json, int max) throws IOException {
        return StreamingJson.read(json, p -> events(p, max));
    }

    /**
     * An Events object keeping at most {@code max} events, the parser on its START_OBJECT (for batch parts:
     * {@link StreamingJson#preferring}).
     */
    static Events events(JsonParser p, int max) throws IOException {
        Events out = new Events();
        fields(p, (name, v) -> {
            switch (name) {
                case "items" -> out.setItems(array(v, ListJson::event, max));
                case "nextPageToken" -> out.setNextPageToken(v.getValueAsString());
                case "nextSyncToken" -> out.setNextSyncToken(v.getValueAsString());
                case "timeZone" -> out.setTimeZone(v.getValueAsString());
                case "summary" -> out.setSummary(v.getValueAsString());
                default -> v.skipChildren();
            }
        });
        return out;
    }

    private static CalendarListEntry calendar(JsonParser p) throws IOException {
        CalendarListEntry c = new CalendarListEntry();
        fields(p, (name, v) -> {
            switch (name) {
                case "id" -> c.setId(v.getValueAsString());
                case "summary" -> c.setSummary(v.getValueAsString());
                case "summaryOverride" -> c.setSummaryOverride(v.getValueAsString());
                case "description" -> c.setDescription(v.getValueAsString());
                case "primary" -> c.setPrimary(asBoolean(v));
                case "accessRole" -> c.setAccessRole(v.getValueAsString());
                case "timeZone" -> c.setTimeZone(v.getValueAsString());
                case "backgroundColor" -> c.setBackgroundColor(v.getValueAsString());
                case "colorId" -> c.setColorId(v.getValueAsString());
                case "selected" -> c.setSelected(asBoolean(v));
                case "hidden" -> c.setHidden(asBoolean(v));
                default -> v.skipChildren();
            }
        });
        return c;
    }

    private static Event event(JsonParser p) throws IOException {
        Event e = new Event();
        fields(p, (name, v) -> {
            switch (name) {
                case "id" -> e.setId(v.getValueAsString());
                case "summary" -> e.setSummary(v.getValueAsString());
                case "start" -> e.setStart(time(v));
                case "end" -> e.setEnd(time(v));
                case "location" -> e.setLocation(v.getValueAsString());
                case "status" -> e.setStatus(v.getValueAsString());
                case "organizer" -> e.setOrganizer(organizer(v));
                case "attendees" -> e.setAttendees(array(v, ListJson::attendee));
                case "htmlLink" -> e.setHtmlLink(v.getValueAsString());
                case "recurringEventId" -> e.setRecurringEventId(v.getValueAsString());
                case "hangoutLink" -> e.setHangoutLink(v.getValueAsString());
                default -> v.skipChildren();
            }
        });
        return e;
    }

    private static EventDateTime time(JsonParser p) throws IOException {
        EventDateTime t = new EventDateTime();
        fields(p, (name, v) -> {
            switch (name) {
                case "date" -> t.setDate(DateTime.parseRfc3339(v.getValueAsString()));
                case "dateTime" -> t.setDateTime(DateTime.parseRfc3339(v.getValueAsString()));
                case "timeZone" -> t.setTimeZone(v.getValueAsString());
                default -> v.skipChildren();
            }
        });
        return t;
    }

    private static Event.Organizer organizer(JsonParser p) throws IOException {
        Event.Organizer o = new Event.Organizer();
        fields(p, (name, v) -> {
            switch (name) {
                case "email" -> o.setEmail(v.getValueAsString());
                case "displayName" -> o.setDisplayName(v.getValueAsString());
                case "self" -> o.setSelf(asBoolean(v));
                default -> v.skipChildren();
            }
        });
        return o;
    }

    private static EventAttendee attendee(JsonParser p) throws IOException {
        EventAttendee a = new EventAttendee();
        fields(p, (name, v) -> {
            switch (name) {
                case "email" -> a.setEmail(v.getValueAsString());
                case "displayName" -> a.setDisplayName(v.getValueAsString());
                case "responseStatus" -> a.setResponseStatus(v.getValueAsString());
                case "optional" -> a.setOptional(asBoolean(v));
                case "organizer" -> a.setOrganizer(asBoolean(v));
                case "self" -> a.setSelf(asBoolean(v));
                default -> v.skipChildren();
            }
        });
        return a;
    }
}
