package dev.agenttools.emulator.calendar;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One stored Calendar event: a single event, a recurring series (its rule and excluded dates), or a changed or
 * cancelled instance of a series (an exception, naming its series and the start it replaces).
 *
 * @param id               the event id (base32hex, as Google's)
 * @param start            when it starts: a date for an all-day event, a zoned time otherwise
 * @param end              when it ends, exclusive (the day after the last day for an all-day event)
 * @param status           confirmed, tentative or cancelled
 * @param rrule            the series' RRULE value (without "RRULE:"), or null for a single event or an exception
 * @param exdates          starts the series skips (EXDATE), in the start's kind and zone
 * @param recurringEventId the series an exception belongs to, or null
 * @param originalStart    the series start an exception replaces, or null
 * @param organizer        who organises it
 * @param transparency     opaque (busy) or transparent (free)
 * @param moreRules        a series' further RRULE values (RFC 5545 allows several; the occurrences are the union)
 * @param rdates           a series' further starts (RDATE), in the start's kind; with no RRULE they make a series too
 */
record CalendarEvent(String id, String summary, String description, String location, EventTime start, EventTime end,
                     String status, String rrule, List<EventTime> exdates, String recurringEventId,
                     EventTime originalStart, List<Attendee> attendees, Person organizer, String hangoutLink,
                     List<Attachment> attachments, Instant created, Instant updated, String transparency,
                     List<String> moreRules, List<EventTime> rdates) {

    /** An event with at most one RRULE and no RDATE, as the seed and Calendar's own events are. */
    CalendarEvent(String id, String summary, String description, String location, EventTime start, EventTime end,
                  String status, String rrule, List<EventTime> exdates, String recurringEventId,
                  EventTime originalStart, List<Attendee> attendees, Person organizer, String hangoutLink,
                  List<Attachment> attachments, Instant created, Instant updated, String transparency) {
        this(id, summary, description, location, start, end, status, rrule, exdates, recurringEventId, originalStart,
                attendees, organizer, hangoutLink, attachments, created, updated, transparency, List.of(), List.of());
    }

    CalendarEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        if (start.allDay() != end.allDay()) {
            throw new IllegalArgumentException("event " + id + ": start and end must both be dates or both times");
        }
        exdates = exdates == null ? List.of() : List.copyOf(exdates);
        attendees = attendees == null ? List.of() : List.copyOf(attendees);
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
        status = status == null ? "confirmed" : status;
        transparency = transparency == null ? "opaque" : transparency;
        moreRules = moreRules == null ? List.of() : List.copyOf(moreRules);
        rdates = rdates == null ? List.of() : List.copyOf(rdates);
        if (rrule == null && !moreRules.isEmpty()) {
            throw new IllegalArgumentException("event " + id + ": further rules without a first");
        }
    }

    /** A series: it has a rule or further dates (RDATE). */
    boolean recurring() {
        return rrule != null || !rdates.isEmpty();
    }

    /** Every RRULE of the series, the first first. */
    List<String> rules() {
        if (rrule == null) {
            return List.of();
        }
        List<String> all = new ArrayList<>(moreRules.size() + 1);
        all.add(rrule);
        all.addAll(moreRules);
        return all;
    }

    boolean exception() {
        return recurringEventId != null;
    }

    /** How long each occurrence lasts. */
    Duration length() {
        return start.allDay()
                ? Duration.ofDays(end.date().toEpochDay() - start.date().toEpochDay())
                : Duration.between(start.dateTime(), end.dateTime());
    }

    /** This series' occurrence at {@code at}: its own id and times, the series' other fields. */
    CalendarEvent occurrence(EventTime at) {
        EventTime until = at.plus(length());
        return new CalendarEvent(id + "_" + at.idSuffix(), summary, description, location, at, until, status, null,
                List.of(), id, at, attendees, organizer, hangoutLink, attachments, created, updated, transparency);
    }

    // ---- copies with one thing changed, for building the seed and exceptions ----

    CalendarEvent withSummary(String v) {
        return new CalendarEvent(id, v, description, location, start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withDescription(String v) {
        return new CalendarEvent(id, summary, v, location, start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withLocation(String v) {
        return new CalendarEvent(id, summary, description, v, start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withTimes(EventTime newStart, EventTime newEnd) {
        return new CalendarEvent(id, summary, description, location, newStart, newEnd, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withStatus(String v) {
        return new CalendarEvent(id, summary, description, location, start, end, v, rrule, exdates, recurringEventId, originalStart, attendees, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withExdates(List<EventTime> v) {
        return new CalendarEvent(id, summary, description, location, start, end, status, rrule, v, recurringEventId, originalStart, attendees, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withAttendees(List<Attendee> v) {
        return new CalendarEvent(id, summary, description, location, start, end, status, rrule, exdates, recurringEventId, originalStart, v, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withOrganizer(Person v) {
        return new CalendarEvent(id, summary, description, location, start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, v, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withHangout(String v) {
        return new CalendarEvent(id, summary, description, location, start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer, v, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withAttachments(List<Attachment> v) {
        return new CalendarEvent(id, summary, description, location, start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer, hangoutLink, v, created, updated, transparency, moreRules, rdates);
    }

    /** This changed occurrence as an event of its own (its series is not there). */
    CalendarEvent standalone() {
        return new CalendarEvent(id, summary, description, location, start, end, status, null, List.of(), null, null, attendees, organizer, hangoutLink, attachments, created, updated, transparency);
    }

    /** This changed occurrence as replacing {@code original} of series {@code seriesId}. */
    CalendarEvent withOriginalStart(String seriesId, EventTime original) {
        return new CalendarEvent(seriesId + "_" + original.idSuffix(), summary, description, location, start, end, status, rrule, exdates, seriesId, original, attendees, organizer, hangoutLink, attachments, created, updated, transparency, moreRules, rdates);
    }

    CalendarEvent withTransparency(String v) {
        return new CalendarEvent(id, summary, description, location, start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer, hangoutLink, attachments, created, updated, v, moreRules, rdates);
    }

    /**
     * A start or end: a date (all-day events) or a time in a zone. All-day dates are read in the calendar's zone.
     */
    record EventTime(LocalDate date, ZonedDateTime dateTime) {
        EventTime {
            if ((date == null) == (dateTime == null)) {
                throw new IllegalArgumentException("an event time is a date or a time, not both or neither");
            }
        }

        static EventTime of(LocalDate date) {
            return new EventTime(date, null);
        }

        static EventTime of(ZonedDateTime dateTime) {
            return new EventTime(null, dateTime);
        }

        boolean allDay() {
            return date != null;
        }

        /** The instant this time stands for; an all-day date starts at midnight in {@code calendarZone}. */
        Instant instant(ZoneId calendarZone) {
            return allDay() ? date.atStartOfDay(calendarZone).toInstant() : dateTime.toInstant();
        }

        EventTime plus(Duration d) {
            return allDay() ? of(date.plusDays(d.toDays())) : of(dateTime.plus(d));
        }

        /** Google's instance id suffix: {@code 20261201} for a date, {@code 20261201T010000Z} for a time (UTC). */
        String idSuffix() {
            return allDay() ? date.format(DateTimeFormatter.BASIC_ISO_DATE)
                    : DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                    .format(dateTime.withZoneSameInstant(ZoneOffset.UTC));
        }
    }

    /** Someone invited, with their answer: needsAction, declined, tentative or accepted. */
    record Attendee(String email, String displayName, String responseStatus, boolean organizer, boolean self,
                    boolean optional) {
    }

    /** An organizer or creator. */
    record Person(String email, String displayName, boolean self) {
    }

    /** A file attached to the event (a Drive link, as Google's). */
    record Attachment(String fileUrl, String title, String mimeType, String fileId) {
    }
}
