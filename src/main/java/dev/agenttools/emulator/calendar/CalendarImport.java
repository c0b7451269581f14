package dev.agenttools.emulator.calendar;

import dev.agenttools.emulator.calendar.CalendarEvent.Attendee;
import dev.agenttools.emulator.calendar.CalendarEvent.EventTime;
import dev.agenttools.emulator.calendar.CalendarEvent.Person;
import net.fortuna.ical4j.data.CalendarBuilder;
import net.fortuna.ical4j.data.ParserException;
import net.fortuna.ical4j.model.Property;
import net.fortuna.ical4j.model.component.VEvent;
import net.fortuna.ical4j.model.property.DateListProperty;
import net.fortuna.ical4j.model.property.DateProperty;
import net.fortuna.ical4j.util.CompatibilityHints;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A user's own calendars from iCalendar files (RFC 5545), such as Google Calendar's export (one {@code .ics} per
 * calendar, named by the calendar's id): each file is one calendar, its events read by ical4j. The file named as the
 * user's address is the primary calendar (else the first file). A calendar's name comes from {@code X-WR-CALNAME},
 * its zone from {@code X-WR-TIMEZONE} (else UTC). Events keep their UID-derived ids and their UID as iCalUID, RRULE
 * and EXDATE lines, RECURRENCE-ID exceptions, attendees, organizer, status, transparency and Google's
 * {@code X-GOOGLE-CONFERENCE} Meet link. An event that cannot be read is skipped with one line on stderr naming its file and UID.
 */
final class CalendarImport {
    static {
        // Files from the wild as Google's importer takes them: lines folded after a bare LF (Exchange, Mozilla),
        // parameters without a value, stray components, quoted URIs, Outlook's and Notes' quirks. The hints are
        // ical4j's global settings; nothing else in this process parses iCalendar.
        for (String hint : List.of(CompatibilityHints.KEY_RELAXED_UNFOLDING, CompatibilityHints.KEY_RELAXED_PARSING,
                CompatibilityHints.KEY_RELAXED_VALIDATION, CompatibilityHints.KEY_OUTLOOK_COMPATIBILITY,
                CompatibilityHints.KEY_NOTES_COMPATIBILITY)) {
            CompatibilityHints.setHintEnabled(hint, true);
        }
    }

    /** Google names UTC "UTC" where java.time says "Z". */
    private static final ZoneId UTC = ZoneId.of("UTC");
    private final String owner;
    private final PrintStream warnings;
    /** Each imported series' UID by its id, for its iCalUID. */
    private final Map<String, String> icalUids = new LinkedHashMap<>();

    private CalendarImport(String owner, PrintStream warnings) {
        this.owner = owner;
        this.warnings = warnings;
    }

    /** The calendars in {@code path}: one {@code .ics} file, or a folder of them (read in name order). */
    static CalendarSet load(Path path, String owner, PrintStream warnings) throws IOException {
        List<Path> files;
        if (Files.isDirectory(path)) {
            try (Stream<Path> all = Files.list(path)) {
                files = all.filter(f -> f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".ics")).sorted().toList();
            }
            if (files.isEmpty()) {
                throw new IOException("no .ics file in " + path);
            }
        } else if (Files.isRegularFile(path)) {
            files = List.of(path);
        } else {
            throw new IOException("no such file or folder: " + path);
        }
        CalendarImport reader = new CalendarImport(owner, warnings);
        String primary = files.stream().map(CalendarImport::idOf).filter(owner::equalsIgnoreCase).findFirst()
                .orElse(idOf(files.getFirst()));
        List<CalendarInfo> calendars = new ArrayList<>();
        Map<String, List<CalendarEvent>> events = new LinkedHashMap<>();
        Instant newest = Instant.EPOCH;
        for (Path file : files) {
            net.fortuna.ical4j.model.Calendar ics;
            try (InputStream in = Files.newInputStream(file)) {
                ics = new CalendarBuilder().build(in);
            } catch (ParserException e) {
                throw new IOException("cannot read " + file + " as iCalendar: " + e.getMessage(), e);
            }
            String id = idOf(file);
            boolean isPrimary = id.equals(primary);
            ZoneId zone = text(ics.getProperty("X-WR-TIMEZONE")).flatMap(CalendarImport::zone).orElse(UTC);
            String name = text(ics.getProperty("X-WR-CALNAME")).orElse(isPrimary ? owner : id);
            String calendarId = isPrimary ? owner : id;
            calendars.add(new CalendarInfo(calendarId, name, text(ics.getProperty("X-WR-CALDESC")).orElse(null), zone,
                    "owner", isPrimary, Integer.toString(calendars.size() % 24 + 1), true, false, false));
            List<CalendarEvent> read = reader.events(file, ics, zone);
            for (CalendarEvent e : read) {
                newest = e.updated().isAfter(newest) ? e.updated() : newest;
            }
            events.put(calendarId, read);
        }
        calendars.sort((a, b) -> Boolean.compare(b.primary(), a.primary()));
        return new CalendarSet(owner, calendars, events, newest, reader.icalUids);
    }

    private List<CalendarEvent> events(Path file, net.fortuna.ical4j.model.Calendar ics, ZoneId zone) {
        List<CalendarEvent> out = new ArrayList<>();
        int index = 0;
        for (Object c : ics.getComponents("VEVENT")) {
            VEvent v = (VEvent) c;
            index++;
            String uid = text(v.getProperty(Property.UID)).orElse(null);
            try {
                // RFC 5545 requires a UID, but files in the wild (hand-written, old exporters) lack it and Google's
                // importer takes them: such an event gets an id of its own, stable while the file stays the same
                String key = uid != null ? "ics|" + uid : "ics-no-uid|" + file.getFileName() + "|" + index;
                out.add(event(v, key, zone));
                if (uid != null) {
                    icalUids.put(CalendarSeed.id(key), uid);
                }
            } catch (RuntimeException e) {
                warnings.println("emulator: skipped an event of " + file.getFileName() + " (" + (uid == null ? "event " + index
                        + ", no UID" : "UID " + uid) + "): " + e.getMessage());
            }
        }
        return out;
    }

    /** @param key what the event's id is made from: its UID (a series and its exceptions share it) */
    private CalendarEvent event(VEvent v, String key, ZoneId zone) {
        EventTime start = time(v.<DateProperty<Temporal>>getProperty(Property.DTSTART)
                .orElseThrow(() -> new IllegalArgumentException("it has no DTSTART")), zone);
        Optional<DateProperty<Temporal>> dtEnd = v.getProperty(Property.DTEND);
        EventTime end;
        if (dtEnd.isPresent()) {
            end = time(dtEnd.get(), zone);
        } else {
            Optional<net.fortuna.ical4j.model.property.Duration> duration = v.getProperty(Property.DURATION);
            end = duration.map(d -> later(start, d.getDuration()))
                    .orElse(start.allDay() ? EventTime.of(start.date().plusDays(1)) : start);
        }
        if (end.allDay() != start.allDay()) {
            throw new IllegalArgumentException("its DTSTART and DTEND are not both dates or both times");
        }
        String rrule = text(v.getProperty(Property.RRULE)).orElse(null);
        if (rrule != null) {
            new net.fortuna.ical4j.model.Recur<>(rrule); // a rule ical4j cannot read is this event's fault, found here
        }
        List<EventTime> exdates = new ArrayList<>();
        for (Object p : v.getProperties(Property.EXDATE)) {
            DateListProperty<?> list = (DateListProperty<?>) p;
            for (Object t : list.getDates()) {
                exdates.add(named(time((Temporal) t, start.allDay() ? zone : start.dateTime().getZone()), list));
            }
        }
        String seriesId = CalendarSeed.id(key);
        Optional<DateProperty<Temporal>> recurrenceId = v.getProperty(Property.RECURRENCE_ID);
        String id = seriesId;
        String recurringEventId = null;
        EventTime originalStart = null;
        if (recurrenceId.isPresent()) {
            originalStart = time(recurrenceId.get(), start.allDay() ? zone : start.dateTime().getZone());
            recurringEventId = seriesId;
            id = seriesId + "_" + originalStart.idSuffix();
            rrule = null;
        }
        String status = text(v.getProperty(Property.STATUS)).map(s -> s.toLowerCase(Locale.ROOT)).orElse("confirmed");
        if (!status.equals("confirmed") && !status.equals("tentative") && !status.equals("cancelled")) {
            status = "confirmed";
        }
        String transparency = text(v.getProperty(Property.TRANSP)).map(s -> s.equalsIgnoreCase("TRANSPARENT") ? "transparent" : "opaque")
                .orElse("opaque");
        Person organizer = v.<Property>getProperty(Property.ORGANIZER).map(p -> new Person(address(p.getValue()),
                param(p, "CN"), address(p.getValue()).equalsIgnoreCase(owner))).orElse(new Person(owner, null, true));
        List<Attendee> attendees = new ArrayList<>();
        for (Object o : v.getProperties(Property.ATTENDEE)) {
            Property a = (Property) o;
            String email = address(a.getValue());
            String partstat = Optional.ofNullable(param(a, "PARTSTAT")).orElse("NEEDS-ACTION").toUpperCase(Locale.ROOT);
            String response = switch (partstat) {
                case "ACCEPTED" -> "accepted";
                case "DECLINED" -> "declined";
                case "TENTATIVE" -> "tentative";
                default -> "needsAction";
            };
            attendees.add(new Attendee(email, param(a, "CN"), response, email.equalsIgnoreCase(organizer.email()),
                    email.equalsIgnoreCase(owner), "OPT-PARTICIPANT".equalsIgnoreCase(param(a, "ROLE"))));
        }
        Instant created = stamp(v, Property.CREATED).orElse(CalendarSeed.CREATED);
        Instant updated = stamp(v, Property.LAST_MODIFIED).orElse(created);
        return new CalendarEvent(id, text(v.getProperty(Property.SUMMARY)).orElse(null),
                text(v.getProperty(Property.DESCRIPTION)).orElse(null), text(v.getProperty(Property.LOCATION)).orElse(null),
                start, end, status, rrule, exdates, recurringEventId, originalStart, attendees, organizer,
                text(v.getProperty("X-GOOGLE-CONFERENCE")).orElse(null), List.of(), created, updated, transparency);
    }

    /** {@code start} plus an iCalendar DURATION: days and weeks as calendar days, hours and less as elapsed time. */
    private static EventTime later(EventTime start, java.time.temporal.TemporalAmount amount) {
        return start.allDay() ? EventTime.of(start.date().plus(amount)) : EventTime.of(start.dateTime().plus(amount));
    }

    /** A DTSTART-like property's time, in the zone its TZID names. */
    private static EventTime time(DateProperty<Temporal> p, ZoneId zone) {
        return named(time(p.getDate(), zone), p);
    }

    /**
     * The time in the IANA zone the property's TZID names: ical4j reads a TZID through its own registry, whose zones
     * carry ids of its own ({@code ical4j~<uuid>}), and Google names zones by their IANA ids. The wall time the file
     * states is kept. A TZID that is no IANA id leaves ical4j's zone (its rules come from the file's VTIMEZONE).
     */
    private static EventTime named(EventTime t, Property p) {
        if (t.allDay()) {
            return t;
        }
        return p.<net.fortuna.ical4j.model.Parameter>getParameter("TZID").map(net.fortuna.ical4j.model.Parameter::getValue)
                .flatMap(CalendarImport::zone).map(z -> EventTime.of(t.dateTime().withZoneSameLocal(z))).orElse(t);
    }

    /** A DTSTART-like value: a date, a zoned time, a UTC time, or a floating time read in the calendar's zone. */
    private static EventTime time(Temporal t, ZoneId zone) {
        return switch (t) {
            case LocalDate d -> EventTime.of(d);
            case ZonedDateTime z -> EventTime.of(z);
            case OffsetDateTime o -> EventTime.of(o.atZoneSameInstant(zone));
            case Instant i -> EventTime.of(i.atZone(zone));
            case LocalDateTime l -> EventTime.of(l.atZone(zone));
            default -> throw new IllegalArgumentException("its time " + t + " is of no kind iCalendar has");
        };
    }

    private static Optional<Instant> stamp(VEvent v, String name) {
        return v.<DateProperty<Temporal>>getProperty(name).map(p -> {
            Temporal t = p.getDate();
            return t instanceof Instant i ? i : time(t, ZoneOffset.UTC).instant(ZoneOffset.UTC);
        });
    }

    private static Optional<String> text(Optional<? extends Property> p) {
        return p.map(Property::getValue).filter(s -> !s.isBlank());
    }

    private static String param(Property p, String name) {
        return p.<net.fortuna.ical4j.model.Parameter>getParameter(name).map(net.fortuna.ical4j.model.Parameter::getValue).orElse(null);
    }

    private static String address(String calAddress) {
        return calAddress.regionMatches(true, 0, "mailto:", 0, 7) ? calAddress.substring(7) : calAddress;
    }

    private static Optional<ZoneId> zone(String id) {
        try {
            return Optional.of(ZoneId.of(id));
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }

    /** A calendar's id from its file name: Google's export names each file by the calendar's id. */
    private static String idOf(Path file) {
        String name = file.getFileName().toString();
        return name.substring(0, name.length() - ".ics".length());
    }
}
