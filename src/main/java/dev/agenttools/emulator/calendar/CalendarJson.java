package dev.agenttools.emulator.calendar;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.Json;
import dev.agenttools.emulator.calendar.CalendarEvent.EventTime;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Set;

/**
 * Calendar v3 resources as JSON, field names and shapes as the discovery document defines them
 * ({@code calendar#calendarListEntry}, {@code calendar#event}). Absent values are left out, as Google does. Stateless.
 */
final class CalendarJson {
    /** RFC 3339 with milliseconds in UTC, as Google writes {@code created} and {@code updated}. */
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    /**
     * An event's {@code dateTime}: seconds and an offset ({@code Z} for UTC), never a fraction, as every recorded
     * Google answer writes it (NangoHQ/integration-templates, 1,829 recorded times).
     */
    static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX");
    /** Base32hex in lower case: the alphabet of Google's 16-character list etags ({@code "p0s3h1cd9k2fbg80"}). */
    private static final char[] BASE32HEX = "0123456789abcdefghijklmnopqrstuv".toCharArray();

    private CalendarJson() {
    }

    static String stamp(Instant t) {
        return STAMP.format(t.truncatedTo(ChronoUnit.MILLIS));
    }

    /** A calendar-list entry's etag inside calendarList.list, as Google's there: a quoted number. */
    static String etag(Instant t) {
        return "\"" + t.toEpochMilli() * 1000 + "\"";
    }

    /** An event's etag as Google's: twice its last change in microseconds since the epoch, quoted. */
    static String eventEtag(Instant updated) {
        return "\"" + 2 * (updated.getEpochSecond() * 1_000_000 + updated.getNano() / 1000) + "\"";
    }

    /**
     * The etag of a list (calendarList.list, events.list, instances) or of calendarList.get, in Google's form: 16
     * base32hex characters, quoted. Derived from what the answer stands for, so that it changes only with it.
     */
    static String listEtag(String what, Instant updated) {
        byte[] hash = sha("SHA-256", what + "\n" + updated);
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < 16; i++) { // 16 characters of 5 bits: the hash's first 80 bits
            int bit = 5 * i;
            int twoBytes = (hash[bit / 8] & 0xff) << 8 | (hash[bit / 8 + 1] & 0xff);
            out.append(BASE32HEX[twoBytes >>> (11 - bit % 8) & 31]);
        }
        return out.append('"').toString();
    }

    /** calendars.get's etag in Google's form: 27 characters of URL-safe base64 (a SHA-1), quoted. */
    static String calendarEtag(String what, Instant updated) {
        return "\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha("SHA-1", what + "\n" + updated)) + "\"";
    }

    private static byte[] sha(String algorithm, String text) {
        try {
            return MessageDigest.getInstance(algorithm).digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is part of every JDK", e);
        }
    }

    /**
     * A calendar-list entry. {@code etag} is the list's form (a number) or calendarList.get's (base32hex), as Google
     * sends them; {@code owner} is the user, the {@code dataOwner} of the secondary calendars the user made.
     */
    static ObjectNode listEntry(CalendarInfo c, String etag, String owner) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#calendarListEntry");
        n.put("etag", etag);
        n.put("id", c.id());
        n.put("summary", c.summary());
        if (c.description() != null) {
            n.put("description", c.description());
        }
        n.put("timeZone", c.timeZone().getId());
        if (ownedSecondary(c)) {
            n.put("dataOwner", owner);
        }
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
            ArrayNode notifications = n.putObject("notificationSettings").putArray("notifications");
            for (String type : new String[] {"eventCreation", "eventChange", "eventCancellation", "eventResponse"}) {
                notifications.addObject().put("type", type).put("method", "email");
            }
            n.put("primary", true);
        }
        n.putObject("conferenceProperties").putArray("allowedConferenceSolutionTypes").add("hangoutsMeet");
        return n;
    }

    /**
     * Whether Google names the user as {@code dataOwner}: recorded on every secondary calendar the user made, never on
     * the primary one or on subscribed ones.
     */
    static boolean ownedSecondary(CalendarInfo c) {
        return !c.primary() && c.accessRole().equals("owner") && c.id().endsWith("@group.calendar.google.com");
    }

    /**
     * An event as events.list and events.get answer it, its times in {@code zone} (the calendar's, or the request's
     * {@code timeZone}).
     */
    static ObjectNode event(CalendarInfo calendar, CalendarEvent e, ZoneId zone, String icalUid) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#event");
        n.put("etag", eventEtag(e.updated()));
        n.put("id", e.id());
        n.put("status", e.status());
        n.put("htmlLink", htmlLink(calendar, e));
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
            ObjectNode solution = conference.putObject("conferenceSolution");
            solution.putObject("key").put("type", "hangoutsMeet");
            solution.put("name", "Google Meet").put("iconUri",
                    "https://fonts.gstatic.com/s/i/productlogos/meet_2020q4/v6/web-512dp/logo_meet_2020q4_color_2x_web_512dp.png");
            conference.put("conferenceId", code);
        }
        n.putObject("reminders").put("useDefault", true);
        if (!e.attachments().isEmpty()) {
            ArrayNode attachments = n.putArray("attachments");
            e.attachments().forEach(a -> attachments.addObject().put("fileUrl", a.fileUrl()).put("title", a.title())
                    .put("mimeType", a.mimeType())
                    .put("iconLink", "https://drive-thirdparty.googleusercontent.com/16/type/" + a.mimeType()).put("fileId", a.fileId()));
        }
        n.put("eventType", "default");
        return n;
    }

    /**
     * The event's page in Calendar: {@code eid} is base64 of "{event id} {calendar id}", the calendar id abbreviated as
     * Google does ({@code @gmail.com} to {@code @m}, {@code @group.calendar.google.com} to {@code @g}); a series links
     * its first instance ({@code {id}_{start}}), as the recorded series do.
     */
    static String htmlLink(CalendarInfo calendar, CalendarEvent e) {
        String id = e.recurring() ? e.id() + "_" + e.start().idSuffix() : e.id();
        String cal = calendar.id();
        if (cal.endsWith("@gmail.com")) {
            cal = cal.substring(0, cal.length() - "gmail.com".length()) + "m";
        } else if (cal.endsWith("@group.calendar.google.com")) {
            cal = cal.substring(0, cal.length() - "group.calendar.google.com".length()) + "g";
        }
        return "https://www.google.com/calendar/event?eid=" + Base64.getUrlEncoder().withoutPadding()
                .encodeToString((id + " " + cal).getBytes(StandardCharsets.UTF_8));
    }

    private static final Set<String> IANA_ZONES = Set.copyOf(ZoneId.getAvailableZoneIds());

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
