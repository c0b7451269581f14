package dev.agenttools.emulator.calendar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Json;
import dev.agenttools.emulator.api.Params;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;

/**
 * Calendar v3's read methods over a {@link CalendarSet}: calendarList.list/get, calendars.get, events.list/get/
 * instances, freeBusy.query and colors.get, with Google's parameters, paging, sync tokens and errors.
 * Thread-safe: the set is immutable.
 */
final class CalendarResource {
    static final int DEFAULT_EVENTS = 250;
    static final int MAX_EVENTS = 2500;
    static final int DEFAULT_CALENDARS = 100;
    static final int MAX_CALENDARS = 250;
    /** How long a sync token stays good; past it, events.list answers 410 and the client must sync again in full. */
    static final Duration SYNC_TOKEN_LIFETIME = Duration.ofDays(7);
    private final CalendarSet set;
    private final Clock clock;

    CalendarResource(CalendarSet set, Clock clock) {
        this.set = set;
        this.clock = clock;
    }

    // ---- calendar list ----

    ApiResponse listCalendars(ApiRequest r, Matcher m) {
        String minRole = r.param("minAccessRole");
        if (minRole != null && !CalendarApi.ROLES.contains(minRole)) {
            throw Params.invalid("minAccessRole", minRole, "one of " + String.join(", ", CalendarApi.ROLES));
        }
        boolean showHidden = Params.bool(r, "showHidden");
        List<CalendarInfo> shown = set.calendars().stream()
                .filter(c -> showHidden || !c.hidden())
                .filter(c -> minRole == null || CalendarApi.ROLES.indexOf(c.accessRole()) >= CalendarApi.ROLES.indexOf(minRole))
                .toList();
        int max = size(r, DEFAULT_CALENDARS, MAX_CALENDARS);
        int from = (int) Math.min(Params.pageOffset(r, "cal", 0), shown.size());
        int to = Math.min(shown.size(), from + max);
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#calendarList");
        n.put("etag", CalendarJson.listEtag("calendarList", set.updated()));
        if (to < shown.size()) {
            n.put("nextPageToken", Params.pageToken("cal", Integer.toString(to)));
        } else {
            n.put("nextSyncToken", Params.pageToken("sync", Long.toString(clock.millis())));
        }
        ArrayNode items = n.putArray("items");
        shown.subList(from, to).forEach(c -> items.add(CalendarJson.listEntry(c, CalendarJson.etag(set.updated()), set.owner())));
        return ApiResponse.ok(n);
    }

    ApiResponse getListEntry(ApiRequest r, Matcher m) {
        CalendarInfo c = calendar(m.group(1));
        return ApiResponse.ok(CalendarJson.listEntry(c, CalendarJson.listEtag("calendarListEntry " + c.id(), set.updated()), set.owner()));
    }

    ApiResponse getCalendar(ApiRequest r, Matcher m) {
        CalendarInfo c = readable(m.group(1));
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#calendar");
        n.put("etag", CalendarJson.calendarEtag("calendar " + c.id(), set.updated()));
        n.put("id", c.id());
        n.put("summary", c.summary());
        if (c.description() != null) {
            n.put("description", c.description());
        }
        n.put("timeZone", c.timeZone().getId());
        if (CalendarJson.ownedSecondary(c)) {
            n.put("dataOwner", set.owner());
        }
        n.putObject("conferenceProperties").putArray("allowedConferenceSolutionTypes").add("hangoutsMeet");
        return ApiResponse.ok(n);
    }

    // ---- events ----

    ApiResponse listEvents(ApiRequest r, Matcher m) {
        CalendarInfo c = readable(m.group(1));
        ZoneId zone = zone(r, c);
        boolean single = Params.bool(r, "singleEvents");
        boolean showDeleted = Params.bool(r, "showDeleted");
        String orderBy = r.param("orderBy");
        if (orderBy != null && !orderBy.equals("startTime") && !orderBy.equals("updated")) {
            throw Params.invalid("orderBy", orderBy, "startTime or updated");
        }
        if ("startTime".equals(orderBy) && !single) {
            throw ApiError.badRequest("orderBy", "The requested ordering is not available for the particular query.");
        }
        String syncToken = r.param("syncToken");
        Instant min = instant(r, "timeMin");
        Instant max = instant(r, "timeMax");
        String q = r.param("q");
        List<CalendarEvent> found;
        if (syncToken != null && !syncToken.isEmpty()) {
            for (String refused : List.of("timeMin", "timeMax", "q", "orderBy", "updatedMin", "iCalUID", "privateExtendedProperty",
                    "sharedExtendedProperty")) {
                if (r.param(refused) != null) {
                    throw ApiError.badRequest(refused, "Parameter " + refused + " cannot be used together with syncToken.");
                }
            }
            Instant since = syncedAt(syncToken);
            // nothing in the seeded set changes after it is built: an incremental sync finds what was updated since
            found = eventsIn(c, null, null, single, true).stream().filter(e -> e.updated().isAfter(since)).toList();
        } else {
            if (min != null && max != null && !min.isBefore(max)) {
                throw ApiError.timeRangeEmpty("timeMax");
            }
            found = eventsIn(c, min, max, single, showDeleted);
            if (q != null && !q.isBlank()) {
                found = found.stream().filter(e -> matches(e, q)).toList();
            }
        }
        if ("updated".equals(orderBy)) {
            found = found.stream().sorted(Comparator.comparing(CalendarEvent::updated)).toList();
        }
        int size = size(r, DEFAULT_EVENTS, MAX_EVENTS);
        int from = (int) Math.min(Params.pageOffset(r, "ev", 0), found.size());
        int to = Math.min(found.size(), from + size);
        ObjectNode n = eventsEnvelope(c, "events");
        if (to < found.size()) {
            n.put("nextPageToken", Params.pageToken("ev", Integer.toString(to)));
        } else if (!("startTime".equals(orderBy) && min != null)) {
            // a list from timeMin in start order is a view, not a copy to keep in sync: Google's last page of one
            // carries no sync token (recorded), while a plain list's does
            n.put("nextSyncToken", Params.pageToken("sync", Long.toString(clock.millis())));
        }
        ArrayNode items = n.putArray("items");
        found.subList(from, to).forEach(e -> items.add(CalendarJson.event(c, e, zone, set.icalUid(e))));
        return ApiResponse.ok(n);
    }

    ApiResponse getEvent(ApiRequest r, Matcher m) {
        CalendarInfo c = readable(m.group(1));
        CalendarEvent e = set.event(c, m.group(2)).orElseThrow(CalendarResource::notFound);
        return ApiResponse.ok(CalendarJson.event(c, e, zone(r, c), set.icalUid(e)));
    }

    ApiResponse instances(ApiRequest r, Matcher m) {
        CalendarInfo c = readable(m.group(1));
        CalendarEvent series = set.event(c, m.group(2)).orElseThrow(CalendarResource::notFound);
        ZoneId zone = zone(r, c);
        Instant min = instant(r, "timeMin");
        Instant max = instant(r, "timeMax");
        List<CalendarEvent> found;
        if (!series.recurring()) {
            found = List.of(series); // a single event is its own only instance
        } else {
            Instant from = min != null ? min : series.start().instant(c.timeZone());
            Instant to = max != null ? max : horizon(from);
            found = set.instances(c, series, from, to, Params.bool(r, "showDeleted"));
        }
        String originalStart = r.param("originalStart");
        if (originalStart != null) {
            Instant at = parseTime("originalStart", originalStart);
            found = found.stream().filter(e -> e.originalStart() != null && e.originalStart().instant(c.timeZone()).equals(at)).toList();
        }
        int size = size(r, DEFAULT_EVENTS, MAX_EVENTS);
        int from = (int) Math.min(Params.pageOffset(r, "in", 0), found.size());
        int to = Math.min(found.size(), from + size);
        ObjectNode n = eventsEnvelope(c, "instances " + series.id());
        if (to < found.size()) {
            n.put("nextPageToken", Params.pageToken("in", Integer.toString(to)));
        } else if (min == null && max == null) {
            // recorded: the last page of all of a series' instances hands a sync token, as events.list's does
            n.put("nextSyncToken", Params.pageToken("sync", Long.toString(clock.millis())));
        }
        ArrayNode items = n.putArray("items");
        found.subList(from, to).forEach(e -> items.add(CalendarJson.event(c, e, zone, set.icalUid(e))));
        return ApiResponse.ok(n);
    }

    // ---- free/busy and colours ----

    ApiResponse freeBusy(ApiRequest r, Matcher m) {
        JsonNode body = Json.parse(r.body(), "freeBusy request");
        Instant min = parseTime("timeMin", required(body, "timeMin"));
        Instant max = parseTime("timeMax", required(body, "timeMax"));
        if (!min.isBefore(max)) {
            throw ApiError.timeRangeEmpty("timeMax");
        }
        ZoneId zone = ZoneOffset.UTC;
        if (body.hasNonNull("timeZone")) {
            zone = zoneOf("timeZone", body.get("timeZone").asText());
        }
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#freeBusy");
        n.put("timeMin", CalendarJson.stamp(min)); // echoed with milliseconds, "...T00:00:00.000Z", as recorded
        n.put("timeMax", CalendarJson.stamp(max));
        ObjectNode calendars = n.putObject("calendars");
        for (JsonNode item : body.path("items")) {
            String id = item.path("id").asText();
            ObjectNode answer = calendars.putObject(id);
            CalendarInfo c = id.equals("primary") ? set.calendar("primary").orElse(null) : set.calendar(id).orElse(null);
            if (c == null || c.vanished()) {
                answer.putArray("errors").addObject().put("domain", "global").put("reason", "notFound");
                answer.putArray("busy");
                continue;
            }
            ArrayNode busy = answer.putArray("busy");
            for (Instant[] block : busyBlocks(c, min, max)) {
                busy.addObject().put("start", format(block[0], zone)).put("end", format(block[1], zone));
            }
        }
        return ApiResponse.ok(n);
    }

    ApiResponse colors(ApiRequest r, Matcher m) {
        return ApiResponse.ok(CalendarColors.all(set.updated()));
    }

    // ---- helpers ----

    /** An Events answer's fields before its page tokens and items: what the calendar is. */
    private ObjectNode eventsEnvelope(CalendarInfo c, String what) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#events");
        n.put("etag", CalendarJson.listEtag(what + " " + c.id(), set.updated()));
        n.put("summary", c.summary());
        n.put("description", c.description() == null ? "" : c.description()); // Google sends "" for none
        n.put("updated", CalendarJson.stamp(set.updated()));
        n.put("timeZone", c.timeZone().getId());
        n.put("accessRole", c.accessRole());
        ArrayNode reminders = n.putArray("defaultReminders");
        if (c.primary()) {
            reminders.addObject().put("method", "popup").put("minutes", 10);
        }
        return n;
    }

    /**
     * The events of a calendar overlapping {@code [min, max)} (either may be null: open), in start order: single
     * events, and each series either expanded into instances ({@code single}) or as itself, with its exceptions.
     */
    private List<CalendarEvent> eventsIn(CalendarInfo c, Instant min, Instant max, boolean single, boolean showDeleted) {
        Instant from = min != null ? min : Instant.EPOCH;
        List<CalendarEvent> out = new ArrayList<>();
        for (CalendarEvent e : set.stored(c)) {
            if (e.exception()) {
                if (!single && (showDeleted || !e.status().equals("cancelled"))
                        && CalendarSet.overlaps(c, e, from, max != null ? max : Instant.MAX)) {
                    out.add(e); // without expansion, a changed instance is listed beside its series, as Google does
                }
                continue;
            }
            if (!e.recurring()) {
                if ((showDeleted || !e.status().equals("cancelled")) && CalendarSet.overlaps(c, e, from, max != null ? max : Instant.MAX)) {
                    out.add(e);
                }
                continue;
            }
            Instant seriesFrom = min != null ? min : e.start().instant(c.timeZone());
            Instant to = max != null ? max : horizon(seriesFrom);
            List<CalendarEvent> instances = set.instances(c, e, seriesFrom, to, showDeleted);
            if (single) {
                out.addAll(instances);
            } else if (!instances.isEmpty()) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparing((CalendarEvent e) -> e.start().instant(c.timeZone())).thenComparing(e -> !e.start().allDay())
                .thenComparing(CalendarEvent::id));
        return out;
    }

    private Instant horizon(Instant from) {
        Instant now = clock.instant();
        return (from.isAfter(now) ? from : now).plus(CalendarSet.OPEN_END_HORIZON);
    }

    /** Busy time: opaque, not cancelled events overlapping the range, merged and cut to it. */
    private List<Instant[]> busyBlocks(CalendarInfo c, Instant min, Instant max) {
        List<Instant[]> blocks = new ArrayList<>();
        for (CalendarEvent e : eventsIn(c, min, max, true, false)) {
            if (e.transparency().equals("transparent")) {
                continue;
            }
            Instant s = e.start().instant(c.timeZone());
            Instant t = e.end().instant(c.timeZone());
            blocks.add(new Instant[] {s.isBefore(min) ? min : s, t.isAfter(max) ? max : t});
        }
        blocks.sort(Comparator.comparing(b -> b[0]));
        List<Instant[]> merged = new ArrayList<>();
        for (Instant[] b : blocks) {
            Instant[] last = merged.isEmpty() ? null : merged.getLast();
            if (last != null && !b[0].isAfter(last[1])) {
                if (b[1].isAfter(last[1])) {
                    last[1] = b[1];
                }
            } else {
                merged.add(b);
            }
        }
        return merged;
    }

    /** A busy block's bound: no fraction, as recorded ({@code 2025-12-20T14:00:00Z}). */
    private static String format(Instant t, ZoneId zone) {
        return CalendarJson.DATE_TIME.format(t.atZone(zone));
    }

    private static boolean matches(CalendarEvent e, String q) {
        String needle = q.strip().toLowerCase(Locale.ROOT);
        StringBuilder hay = new StringBuilder();
        for (String s : new String[] {e.summary(), e.description(), e.location(), e.organizer().email(), e.organizer().displayName()}) {
            if (s != null) {
                hay.append(s.toLowerCase(Locale.ROOT)).append('\n');
            }
        }
        e.attendees().forEach(a -> hay.append(a.email().toLowerCase(Locale.ROOT)).append('\n')
                .append(a.displayName() == null ? "" : a.displayName().toLowerCase(Locale.ROOT)).append('\n'));
        for (String word : needle.split("\\s+")) {
            if (!hay.toString().contains(word)) {
                return false;
            }
        }
        return true;
    }

    /** A calendar in the user's list; 404 as Google's for any other id. */
    private CalendarInfo calendar(String id) {
        return set.calendar(id).orElseThrow(CalendarResource::notFound);
    }

    /** Calendar's 404 says "Not Found", where Gmail's says "Requested entity was not found." */
    static ApiError notFound() {
        return ApiError.notFound("Not Found");
    }

    /** A calendar whose events the user may read: 404 when it is unknown or deleted, 403 for a free/busy reader. */
    private CalendarInfo readable(String id) {
        CalendarInfo c = calendar(id);
        if (c.vanished()) {
            throw notFound();
        }
        if (!c.readable()) {
            throw ApiError.forbidden("You need to have reader access to this calendar.");
        }
        return c;
    }

    private ZoneId zone(ApiRequest r, CalendarInfo c) {
        String v = r.param("timeZone");
        return v == null || v.isEmpty() ? c.timeZone() : zoneOf("timeZone", v);
    }

    private static ZoneId zoneOf(String name, String value) {
        try {
            return ZoneId.of(value);
        } catch (DateTimeException e) {
            throw ApiError.badRequest(name, "Invalid time zone definition for " + name + ": " + value);
        }
    }

    private static Instant instant(ApiRequest r, String name) {
        String v = r.param(name);
        return v == null || v.isEmpty() ? null : parseTime(name, v);
    }

    /** RFC 3339 with a mandatory offset ({@code 2026-12-01T10:00:00Z}, {@code ...+09:00}), as Google requires. */
    private static Instant parseTime(String name, String value) {
        try {
            return OffsetDateTime.parse(value.strip()).toInstant();
        } catch (DateTimeParseException e) {
            throw Params.invalid(name, value, "an RFC 3339 time with an offset, such as 2026-12-01T10:00:00Z");
        }
    }

    private static String required(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull() || v.asText().isEmpty()) {
            throw ApiError.badRequest(field, "Missing " + field + ".");
        }
        return v.asText();
    }

    private static int size(ApiRequest r, int defaultSize, int maxSize) {
        long n = Params.uint64(r, "maxResults", false);
        if (n == 0) {
            throw Params.invalid("maxResults", "0", "a whole number 1.." + maxSize);
        }
        return n < 0 ? defaultSize : (int) Math.min(n, maxSize);
    }

    /** When a sync token was given; 410 when it is not ours or too old, so the client syncs again in full. */
    private Instant syncedAt(String token) {
        String position = Params.position(token, "sync");
        try {
            Instant at = position == null ? null : Instant.ofEpochMilli(Long.parseLong(position));
            if (at != null && !at.plus(SYNC_TOKEN_LIFETIME).isBefore(clock.instant())) {
                return at;
            }
        } catch (NumberFormatException e) {
            // not a token of ours: the same answer as an expired one
        }
        throw ApiError.fullSyncRequired();
    }
}
