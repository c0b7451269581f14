package dev.agenttools.emulator.calendar;

import net.fortuna.ical4j.model.Recur;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The user's calendars and their events, read-only once built, with recurring series expanded into their instances
 * by ical4j (RRULE per RFC 5545, in the series' own zone, so a weekly 10:00 stays 10:00 across a DST change).
 * Thread-safe: immutable after construction.
 */
public final class CalendarSet {
    /**
     * How far an open-ended series is expanded when a request gives no upper bound: Google pages through instances
     * without end; the emulator stops here (documented in docs/emulator.md).
     */
    static final Duration OPEN_END_HORIZON = Duration.ofDays(2 * 366);
    private final String owner;
    private final Map<String, CalendarInfo> calendars = new LinkedHashMap<>();
    private final Map<String, List<CalendarEvent>> events = new HashMap<>();
    private final Instant updated;
    /** Imported events' UIDs by series id: Google keeps an imported event's UID as its iCalUID. */
    private final Map<String, String> icalUids;
    /**
     * Whatever must live as long as these events: ical4j names a file's own VTIMEZONE as a java.time zone whose rules
     * it looks up, at every use, through a weak reference to the registry that read the file (ZoneRulesProviderImpl,
     * 4.2.3); once that registry is collected, the zone's first use is a NullPointerException.
     */
    @SuppressWarnings("unused")
    private final List<?> keptAlive;

    /**
     * The calendars of {@code owner} that {@code source} names: {@code seed} for the seeded ones (their one-off events
     * on the clock's today), else an .ics file or a folder of them; skipped events are named on stderr.
     */
    public static CalendarSet load(String source, String owner, Clock clock) {
        if (source.equals("seed")) {
            return CalendarSeed.build(owner, clock);
        }
        try {
            return CalendarImport.load(Path.of(source), owner, System.err);
        } catch (IOException e) {
            throw new IllegalStateException("cannot load the calendars: " + e.getMessage(), e);
        }
    }

    /**
     * The seeded calendars of user {@code number} (from 1) of a many-user emulator: the seeded set, with {@code owner}'s
     * address as the primary calendar's id and, for users after the first, a weekly event of the user's own.
     */
    public static CalendarSet seeded(String owner, int number, Clock clock) {
        return CalendarSeed.build(owner, number, clock);
    }

    CalendarSet(String owner, List<CalendarInfo> calendars, Map<String, List<CalendarEvent>> events, Instant updated) {
        this(owner, calendars, events, updated, Map.of());
    }

    CalendarSet(String owner, List<CalendarInfo> calendars, Map<String, List<CalendarEvent>> events, Instant updated,
                Map<String, String> icalUids) {
        this(owner, calendars, events, updated, icalUids, List.of());
    }

    CalendarSet(String owner, List<CalendarInfo> calendars, Map<String, List<CalendarEvent>> events, Instant updated,
                Map<String, String> icalUids, List<?> keptAlive) {
        this.keptAlive = List.copyOf(keptAlive);
        this.icalUids = Map.copyOf(icalUids);
        this.owner = owner;
        this.updated = updated;
        calendars.forEach(c -> this.calendars.put(c.id(), c));
        events.forEach((id, list) -> {
            if (!this.calendars.containsKey(id)) {
                throw new IllegalArgumentException("events for unknown calendar " + id);
            }
            this.events.put(id, List.copyOf(list));
        });
    }

    /** An event's iCalUID: its series' imported UID, else Google's form for events made in Calendar ({@code id@google.com}). */
    String icalUid(CalendarEvent e) {
        String series = e.exception() ? e.recurringEventId() : e.id();
        return icalUids.getOrDefault(series, series + "@google.com");
    }

    /** The address of the user who sees these calendars. */
    String owner() {
        return owner;
    }

    /** When the set last changed, for the lists' {@code updated} field. */
    Instant updated() {
        return updated;
    }

    List<CalendarInfo> calendars() {
        return List.copyOf(calendars.values());
    }

    /** How many calendars the user has (for the start-up line). */
    public int size() {
        return calendars.size();
    }

    /** The calendar for an id, {@code primary} meaning the user's own; empty when the user has no such calendar. */
    Optional<CalendarInfo> calendar(String id) {
        if (id.equals("primary")) {
            return calendars.values().stream().filter(CalendarInfo::primary).findFirst();
        }
        return Optional.ofNullable(calendars.get(id));
    }

    /** The stored events of a calendar: single events, series and exceptions. */
    List<CalendarEvent> stored(CalendarInfo calendar) {
        return events.getOrDefault(calendar.id(), List.of());
    }

    /**
     * One event by id: a stored event, or an instance id ({@code seriesId_20261201T010000Z}) of a series, answered as
     * the instance (or its exception). Empty when there is no such event.
     */
    Optional<CalendarEvent> event(CalendarInfo calendar, String id) {
        for (CalendarEvent e : stored(calendar)) {
            if (e.id().equals(id)) {
                return Optional.of(e);
            }
        }
        int cut = id.lastIndexOf('_');
        if (cut <= 0) {
            return Optional.empty();
        }
        String seriesId = id.substring(0, cut);
        for (CalendarEvent series : stored(calendar)) {
            if (series.id().equals(seriesId) && series.recurring()) {
                return startOf(series, id.substring(cut + 1)).flatMap(start -> {
                    Instant at = start.instant(calendar.timeZone());
                    return instances(calendar, series, at, at.plusNanos(1), true).stream()
                            .filter(i -> i.id().equals(id)).findFirst();
                });
            }
        }
        return Optional.empty();
    }

    /**
     * The occurrences of a series that overlap {@code [from, to)}, in start order: each generated instance, or the
     * exception that replaces it (moved, changed or cancelled; cancelled ones only when {@code showDeleted}).
     * Starts excluded by EXDATE are never answered.
     */
    List<CalendarEvent> instances(CalendarInfo calendar, CalendarEvent series, Instant from, Instant to, boolean showDeleted) {
        Map<String, CalendarEvent> exceptions = new HashMap<>();
        for (CalendarEvent e : stored(calendar)) {
            if (series.id().equals(e.recurringEventId())) {
                exceptions.put(e.id(), e);
            }
        }
        List<CalendarEvent> out = new ArrayList<>();
        for (CalendarEvent.EventTime start : starts(calendar, series, from.minus(series.length()), to)) {
            Instant at = start.instant(calendar.timeZone());
            if (series.exdates().stream().anyMatch(x -> excludes(x, start, at, calendar))) {
                continue;
            }
            CalendarEvent instance = series.occurrence(start);
            CalendarEvent answer = exceptions.getOrDefault(instance.id(), instance);
            if (answer.status().equals("cancelled") && !showDeleted) {
                continue;
            }
            if (overlaps(calendar, answer, from, to)) {
                out.add(answer);
            }
        }
        out.sort(Comparator.comparing(e -> e.start().instant(calendar.timeZone())));
        return out;
    }

    /**
     * Whether an EXDATE excludes a start: compared as instants (an EXDATE may name the start in another zone), a date
     * EXDATE on a timed series by the start's day in the series' zone (exporters write them so, and RFC 5545 does not
     * forbid it).
     */
    private static boolean excludes(CalendarEvent.EventTime exdate, CalendarEvent.EventTime start, Instant at, CalendarInfo calendar) {
        if (exdate.allDay() && !start.allDay()) {
            return exdate.date().equals(start.dateTime().toLocalDate());
        }
        return exdate.instant(calendar.timeZone()).equals(at);
    }

    /** Whether an event's time overlaps {@code [from, to)}: it ends after {@code from} and starts before {@code to}. */
    static boolean overlaps(CalendarInfo calendar, CalendarEvent e, Instant from, Instant to) {
        Instant start = e.start().instant(calendar.timeZone());
        Instant end = e.end().instant(calendar.timeZone());
        if (end.equals(start)) {
            end = end.plusNanos(1); // a zero-length event still happens at its start
        }
        return end.isAfter(from) && start.isBefore(to);
    }

    /**
     * The series' starts from {@code from} (inclusive) to {@code to} (exclusive): each RRULE's by ical4j, and the RDATEs
     * (the union, each start once, in start order).
     */
    private static List<CalendarEvent.EventTime> starts(CalendarInfo calendar, CalendarEvent series, Instant from, Instant to) {
        LinkedHashSet<CalendarEvent.EventTime> found = new LinkedHashSet<>();
        for (String rrule : series.rules()) {
            if (series.start().allDay()) {
                Recur<LocalDate> rule = new Recur<>(rrule);
                LocalDate first = LocalDate.ofInstant(from, calendar.timeZone()).minusDays(1);
                LocalDate last = LocalDate.ofInstant(to, calendar.timeZone()).plusDays(1);
                for (LocalDate d : rule.getDates(series.start().date(), first, last)) {
                    found.add(CalendarEvent.EventTime.of(d));
                }
            } else {
                Recur<ZonedDateTime> rule = new Recur<>(rrule);
                ZonedDateTime seed = series.start().dateTime();
                for (ZonedDateTime t : rule.getDates(seed, from.atZone(seed.getZone()), to.atZone(seed.getZone()))) {
                    found.add(CalendarEvent.EventTime.of(t));
                }
            }
        }
        found.addAll(series.rdates());
        TreeMap<Instant, CalendarEvent.EventTime> once = new TreeMap<>(); // an RDATE a rule also gives: once
        found.forEach(t -> once.putIfAbsent(t.instant(calendar.timeZone()), t));
        List<CalendarEvent.EventTime> out = new ArrayList<>(once.values());
        if (!once.containsKey(series.start().instant(calendar.timeZone()))) {
            // "The DTSTART property value always counts as the first occurrence" (RFC 5545 3.8.5.3), even when the
            // rule would not produce it (a Thursday start of a Monday-and-Friday series), as Google shows it
            out.addFirst(series.start());
        }
        Instant lo = from;
        out.removeIf(t -> t.instant(calendar.timeZone()).isBefore(lo) || !t.instant(calendar.timeZone()).isBefore(to));
        return out;
    }

    /** The start an instance id's suffix names ({@code 20261201} or {@code 20261201T010000Z}), in the series' kind. */
    private static Optional<CalendarEvent.EventTime> startOf(CalendarEvent series, String suffix) {
        try {
            if (series.start().allDay()) {
                return Optional.of(CalendarEvent.EventTime.of(LocalDate.parse(suffix, DateTimeFormatter.BASIC_ISO_DATE)));
            }
            Instant at = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmssX").parse(suffix, Instant::from);
            return Optional.of(CalendarEvent.EventTime.of(at.atZone(series.start().dateTime().getZone())));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
