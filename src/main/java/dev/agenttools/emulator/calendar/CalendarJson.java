package dev.agenttools.emulator.calendar;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.Json;
import dev.agenttools.emulator.calendar.CalendarEvent.EventTime;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;

/**
 * Calendar v3 resources as JSON, field names and shapes as the discovery document defines them
 * ({@code calendar#calendarListEntry}, {@code calendar#event}). Absent values are left out, as Google does. Stateless.
 */
final class CalendarJson {
    /** RFC 3339 with milliseconds in UTC, as Google writes {@code created} and {@code updated}. */
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(java.time.ZoneOffset.UTC);
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

    private CalendarJson() {
    }

    static String stamp(Instant t) {
        return STAMP.format(t.truncatedTo(ChronoUnit.MILLIS));
    }

    /** An etag in Google's form: a quoted number. */
    static String etag(Instant t) {
        return "\"" + t.toEpochMilli() * 1000 + "\"";
    }

    static ObjectNode listEntry(CalendarInfo c, Instant updated) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#calendarListEntry");
        n.put("etag", etag(updated));
        n.put("id", c.id());
        n.put("summary", c.summary());
        if (c.description() != null) {
            n.put("description", c.description());
        }
        n.put("timeZone", c.timeZone().getId());
        n.put("colorId", c.colorId());
        CalendarColors.Color color = CalendarColors.calendar(c.colorId());
        n.put("backgroundColor", color.background());
        n.put("foregroundColor", color.foreground());
        if (c.hidden()) {
            n.put("hidden", true);
        }
        if (c.selected()) {
            n.put("selected", true);
        }
        n.put("accessRole", c.accessRole());
        ArrayNode reminders = n.putArray("defaultReminders");
        if (c.primary()) {
            reminders.addObject().put("method", "popup").put("minutes", 10);
            n.put("primary", true);
        }
        n.putObject("conferenceProperties").putArray("allowedConferenceSolutionTypes").add("hangoutsMeet");
        return n;
    }

    /**
     * An event as events.list and events.get answer it, its times in {@code zone} (the calendar's, or the request's
     * {@code timeZone}).
     */
    static ObjectNode event(CalendarInfo calendar, CalendarEvent e, ZoneId zone, String icalUid) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#event");
        n.put("etag", etag(e.updated()));
        n.put("id", e.id());
        n.put("status", e.status());
        n.put("htmlLink", "https://www.google.com/calendar/event?eid=" + Base64.getUrlEncoder().withoutPadding()
                .encodeToString((e.id() + " " + calendar.id()).getBytes(StandardCharsets.UTF_8)));
        n.put("created", stamp(e.created()));
        n.put("updated", stamp(e.updated()));
        if (e.summary() != null) {
            n.put("summary", e.summary());
        }
        if (e.description() != null) {
            n.put("description", e.description());
        }
        if (e.location() != null) {
            n.put("location", e.location());
        }
        ObjectNode creator = n.putObject("creator").put("email", calendar.primary() ? calendar.id() : e.organizer().email());
        if (calendar.primary()) {
            creator.put("self", true);
        }
        ObjectNode organizer = n.putObject("organizer").put("email", e.organizer().email());
        if (e.organizer().displayName() != null) {
            organizer.put("displayName", e.organizer().displayName());
        }
        if (e.organizer().self()) {
            organizer.put("self", true);
        }
        n.set("start", time(e.start(), zone));
        n.set("end", time(e.end(), zone));
        if (e.recurring()) {
            ArrayNode recurrence = n.putArray("recurrence");
            e.rules().forEach(rule -> recurrence.add("RRULE:" + rule));
            for (EventTime x : e.exdates()) {
                recurrence.add(x.allDay() ? "EXDATE;VALUE=DATE:" + x.date().format(DateTimeFormatter.BASIC_ISO_DATE)
                        : "EXDATE;TZID=" + x.dateTime().getZone().getId() + ":"
                        + x.dateTime().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss")));
            }
            for (EventTime x : e.rdates()) {
                recurrence.add(x.allDay() ? "RDATE;VALUE=DATE:" + x.date().format(DateTimeFormatter.BASIC_ISO_DATE)
                        : "RDATE;TZID=" + x.dateTime().getZone().getId() + ":"
                        + x.dateTime().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss")));
            }
        }
        if (e.exception()) {
            n.put("recurringEventId", e.recurringEventId());
            n.set("originalStartTime", time(e.originalStart(), zone));
        }
        if (e.transparency().equals("transparent")) {
            n.put("transparency", "transparent");
        }
        n.put("iCalUID", icalUid);
        n.put("sequence", 0);
        if (!e.attendees().isEmpty()) {
            ArrayNode attendees = n.putArray("attendees");
            for (CalendarEvent.Attendee a : e.attendees()) {
                ObjectNode an = attendees.addObject().put("email", a.email());
                if (a.displayName() != null) {
                    an.put("displayName", a.displayName());
                }
                if (a.organizer()) {
                    an.put("organizer", true);
                }
                if (a.self()) {
                    an.put("self", true);
                }
                if (a.optional()) {
                    an.put("optional", true);
                }
                an.put("responseStatus", a.responseStatus());
            }
        }
        if (e.hangoutLink() != null) {
            n.put("hangoutLink", e.hangoutLink());
            String code = e.hangoutLink().substring(e.hangoutLink().lastIndexOf('/') + 1);
            ObjectNode conference = n.putObject("conferenceData");
            conference.putArray("entryPoints").addObject().put("entryPointType", "video").put("uri", e.hangoutLink())
                    .put("label", e.hangoutLink().replaceFirst("^https://", ""));
            conference.putObject("conferenceSolution").put("name", "Google Meet")
                    .put("iconUri", "https://fonts.gstatic.com/s/i/productlogos/meet_2020q4/v6/web-512dp/logo_meet_2020q4_color_2x_web_512dp.png")
                    .putObject("key").put("type", "hangoutsMeet");
            conference.put("conferenceId", code);
        }
        n.putObject("reminders").put("useDefault", true);
        if (!e.attachments().isEmpty()) {
            ArrayNode attachments = n.putArray("attachments");
            e.attachments().forEach(a -> attachments.addObject().put("fileUrl", a.fileUrl()).put("title", a.title())
                    .put("mimeType", a.mimeType()).put("fileId", a.fileId()));
        }
        n.put("eventType", "default");
        return n;
    }

    private static final java.util.Set<String> IANA_ZONES = java.util.Set.copyOf(ZoneId.getAvailableZoneIds());

    /** {@code {"date": ...}} for a day; {@code {"dateTime": ..., "timeZone": ...}} with the offset of {@code zone}. */
    static ObjectNode time(EventTime t, ZoneId zone) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        if (t.allDay()) {
            n.put("date", t.date().toString());
        } else {
            n.put("dateTime", DATE_TIME.format(t.dateTime().withZoneSameInstant(zone).toOffsetDateTime()));
            ZoneId own = t.dateTime().getZone();
            if (IANA_ZONES.contains(own.getId())) {
                // an imported zone that is no IANA id (Outlook's "(UTC+07:00) Bangkok, Hanoi, Jakarta", read from the
                // file's VTIMEZONE) has no name Google would show: the offset alone says it, as for a UTC time
                n.put("timeZone", own.getId());
            }
        }
        return n;
    }
}
