package dev.agenttools.calendar;

import com.google.api.services.calendar.model.CalendarListEntry;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.EventDateTime;

import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.UnaryOperator;

/** The Calendar tools' answers (snake_case on the wire), and how Calendar's model becomes them. */
final class CalendarAnswers {
    private CalendarAnswers() {
    }

    /** One calendar of the user's list. */
    record CalendarSummary(String id, String summary, boolean primary, String accessRole, String timeZone, String color,
                           boolean selected, boolean hidden) {
    }

    /** list_calendars' answer. */
    record CalendarList(List<CalendarSummary> calendars) {
    }

    /**
     * One event (an instance of a series is its own event, naming its series in {@code recurringEventId}).
     *
     * @param start    RFC 3339 with the event's own offset, or a date ({@code 2026-05-03}) when {@code allDay}
     * @param end      exclusive, in the same form (the day after the last day for an all-day event)
     * @param timeZone the zone the event was made in, when Calendar names one
     */
    record EventSummary(String id, String calendarId, String summary, String start, String end, boolean allDay,
                        String timeZone, String location, String status, String organizer, List<Attendee> attendees,
                        String htmlLink, String recurringEventId, String conferenceLink) {
    }

    /** Someone invited, with their answer: accepted, declined, tentative or needsAction. */
    record Attendee(String email, String name, String responseStatus, Boolean optional) {
    }

    /**
     * get_event's answer: the event in full.
     *
     * @param description     the description as readable text (an HTML description turned into text, links kept)
     * @param descriptionHtml the description as sent, when it was HTML and the caller asked for it
     * @param recurrence      a series' RRULE, EXRULE, RDATE and EXDATE lines
     */
    record EventDetail(String id, String calendarId, String summary, String description, String descriptionHtml,
                       String start, String end, boolean allDay, String timeZone, String location, String status,
                       String organizer, String creator, List<Attendee> attendees, String conferenceLink,
                       List<Attachment> attachments, List<String> recurrence, String recurringEventId, String htmlLink,
                       String created, String updated, String transparency, String visibility) {
    }

    /** A file attached to an event. */
    record Attachment(String title, String fileUrl, String mimeType) {
    }

    /** One calendar's busy time. */
    record Busy(String id, List<Period> busy) {
    }

    /** A busy block, RFC 3339 in the user's zone. */
    record Period(String start, String end) {
    }

    /** free_busy's answer. */
    record FreeBusy(List<Busy> calendars, List<Skipped> skippedCalendars) {
    }

    /** A calendar left out of an answer, and why (deleted, no longer shared, not readable). */
    record Skipped(String id, String code, String message) {
    }

    /** list_events' answer. */
    record EventList(List<EventSummary> events, String nextPageToken, List<Skipped> skippedCalendars) {
    }

    static CalendarSummary calendar(CalendarListEntry c) {
        return new CalendarSummary(c.getId(), c.getSummaryOverride() != null ? c.getSummaryOverride() : c.getSummary(),
                Boolean.TRUE.equals(c.getPrimary()), c.getAccessRole(), c.getTimeZone(), c.getBackgroundColor(),
                Boolean.TRUE.equals(c.getSelected()), Boolean.TRUE.equals(c.getHidden()));
    }

    static EventDetail detail(String calendarId, Event e, UnaryOperator<String> htmlToText, boolean includeHtml) {
        EventSummary s = event(calendarId, e);
        String description = e.getDescription();
        boolean html = description != null && description.matches("(?s).*<[a-zA-Z/!][^>]*>.*");
        List<Attachment> attachments = e.getAttachments() == null ? null : e.getAttachments().stream()
                .map(a -> new Attachment(a.getTitle(), a.getFileUrl(), a.getMimeType())).toList();
        String creator = e.getCreator() == null ? null : e.getCreator().getEmail();
        return new EventDetail(s.id(), calendarId, s.summary(), html ? htmlToText.apply(description) : description,
                html && includeHtml ? description : null, s.start(), s.end(), s.allDay(), s.timeZone(), s.location(),
                s.status(), s.organizer(), creator, s.attendees(), s.conferenceLink(), attachments, e.getRecurrence(),
                s.recurringEventId(), s.htmlLink(), e.getCreated() == null ? null : e.getCreated().toStringRfc3339(),
                e.getUpdated() == null ? null : e.getUpdated().toStringRfc3339(), e.getTransparency(), e.getVisibility());
    }

    static EventSummary event(String calendarId, Event e) {
        boolean allDay = e.getStart() != null && e.getStart().getDate() != null;
        String zone = e.getStart() == null ? null : e.getStart().getTimeZone();
        List<Attendee> attendees = e.getAttendees() == null ? null : e.getAttendees().stream()
                .map(a -> new Attendee(a.getEmail(), a.getDisplayName(), a.getResponseStatus(), Boolean.TRUE.equals(a.getOptional()) ? true : null))
                .toList();
        String organizer = e.getOrganizer() == null ? null : e.getOrganizer().getDisplayName() != null
                ? e.getOrganizer().getDisplayName() + " <" + e.getOrganizer().getEmail() + ">" : e.getOrganizer().getEmail();
        return new EventSummary(e.getId(), calendarId, e.getSummary(), time(e.getStart(), zone), time(e.getEnd(), zone),
                allDay, zone, e.getLocation(), e.getStatus(), organizer, attendees, e.getHtmlLink(), e.getRecurringEventId(),
                e.getHangoutLink());
    }

    /** A date as {@code yyyy-mm-dd}; a time as RFC 3339 with the offset of the event's own zone (when Calendar names one). */
    static String time(EventDateTime t, String zone) {
        if (t == null) {
            return null;
        }
        if (t.getDate() != null) {
            return t.getDate().toStringRfc3339();
        }
        OffsetDateTime at = OffsetDateTime.parse(t.getDateTime().toStringRfc3339());
        if (zone != null) {
            try {
                at = at.atZoneSameInstant(ZoneId.of(zone)).toOffsetDateTime();
            } catch (DateTimeException e) {
                // a zone Java does not know: the offset Calendar gave stays
            }
        }
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(at);
    }
}
