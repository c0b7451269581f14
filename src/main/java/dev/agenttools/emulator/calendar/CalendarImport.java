package dev.agenttools.emulator.calendar;

import dev.agenttools.emulator.calendar.CalendarEvent.Attendee;
import dev.agenttools.emulator.calendar.CalendarEvent.EventTime;
import dev.agenttools.emulator.calendar.CalendarEvent.Person;
import net.fortuna.ical4j.data.CalendarParserImpl;
import net.fortuna.ical4j.data.ContentHandlerContext;
import net.fortuna.ical4j.data.DefaultContentHandler;
import net.fortuna.ical4j.data.ParserException;
import net.fortuna.ical4j.data.UnfoldingReader;
import net.fortuna.ical4j.model.Property;
import net.fortuna.ical4j.model.TimeZoneRegistry;
import net.fortuna.ical4j.model.TimeZoneRegistryFactory;
import net.fortuna.ical4j.model.component.VEvent;
import net.fortuna.ical4j.model.property.DateListProperty;
import net.fortuna.ical4j.model.property.DateProperty;
import net.fortuna.ical4j.model.property.RDate;
import net.fortuna.ical4j.util.CompatibilityHints;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
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
import java.time.temporal.TemporalAmount;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A user's own calendars from iCalendar files (RFC 5545), such as Google Calendar's export (one {@code .ics} per
 * calendar, named by the calendar's id): each file is one calendar, its events read by ical4j. The file named as the
 * user's address is the primary calendar (else the first file). A calendar's name comes from {@code X-WR-CALNAME},
 * its zone from {@code X-WR-TIMEZONE} (else UTC); a file of several VCALENDARs one after another is read whole, and
 * one that is a bare VEVENT or VTODO as if in a VCALENDAR. Events keep their UID-derived ids and their UID as
 * iCalUID, RRULE (one or more), RDATE and EXDATE lines, RECURRENCE-ID exceptions, attendees, organizer, status, transparency and
 * Google's {@code X-GOOGLE-CONFERENCE} Meet link. Nothing is dropped silently: an event that cannot be read is skipped,
 * and anything read otherwise than the file says (a zone nobody defines, a changed instance without its series, a
 * property ical4j cannot build), with one line on stderr naming its file and UID.
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
    /** The start of a file that is one component with no VCALENDAR around it (after a byte-order mark, blank lines). */
    private static final Pattern BARE_COMPONENT = Pattern.compile("\\uFEFF?\\s*BEGIN:(VEVENT|VTODO|VJOURNAL)[ \\t]*\\r?\\n",
            Pattern.CASE_INSENSITIVE);
    private final String owner;
    private final PrintStream warnings;
    /** Each imported series' UID by its id, for its iCalUID. */
    private final Map<String, String> icalUids = new LinkedHashMap<>();
    /** The registries that read the files: their zones' rules live only as long as they do (see CalendarSet). */
    private final List<TimeZoneRegistry> registries = new ArrayList<>();

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
            List<net.fortuna.ical4j.model.Calendar> ics = reader.parse(file);
            String id = idOf(file);
            boolean isPrimary = id.equals(primary);
            ZoneId zone = property(ics, "X-WR-TIMEZONE").flatMap(CalendarImport::zone).orElse(UTC);
            String name = property(ics, "X-WR-CALNAME").orElse(isPrimary ? owner : id);
            String calendarId = isPrimary ? owner : id;
            calendars.add(new CalendarInfo(calendarId, name, property(ics, "X-WR-CALDESC").orElse(null), zone,
                    "owner", isPrimary, Integer.toString(calendars.size() % 24 + 1), true, false, false));
            List<CalendarEvent> read = reader.events(file, ics, zone, calendars.getLast());
            for (CalendarEvent e : read) {
                newest = e.updated().isAfter(newest) ? e.updated() : newest;
            }
            events.put(calendarId, read);
        }
        calendars.sort((a, b) -> Boolean.compare(b.primary(), a.primary()));
        return new CalendarSet(owner, calendars, events, newest, reader.icalUids, reader.registries);
    }

    /** A calendar property: the first of the file's VCALENDARs that has it. */
    private static Optional<String> property(List<net.fortuna.ical4j.model.Calendar> ics, String name) {
        return ics.stream().map(c -> text(c.getProperty(name))).flatMap(Optional::stream).findFirst();
    }

    /**
     * The file's VCALENDARs read by ical4j, through {@link TimeZoneFilter}: a VTIMEZONE without a TZID is left out
     * (said on stderr) rather than refusing the whole file. A file may hold several VCALENDARs one after another (an
     * iCalendar stream may, RFC 5545 3.4; Mozilla Calendar exports so): all are read, as one calendar. A file that is
     * one bare component (a VEVENT or VTODO with no VCALENDAR around it, as Evolution writes one to a file) is read as
     * if wrapped in one. Any failure is one {@link IOException} naming the file: ical4j throws unchecked exceptions too
     * (a cast, a bad number), and a Java stack trace is no answer for a user.
     */
    private List<net.fortuna.ical4j.model.Calendar> parse(Path file) throws IOException {
        List<net.fortuna.ical4j.model.Calendar> built = new ArrayList<>();
        TimeZoneRegistry registry = TimeZoneRegistryFactory.getInstance().createRegistry();
        registries.add(registry);
        List<String> dropped = new ArrayList<>();
        // one property ical4j cannot build (a date that is none) leaves that property out, not the whole file
        DefaultContentHandler builder = new DefaultContentHandler(built::add, registry,
                new ContentHandlerContext().withSuppressInvalidProperties(true)) {
            /**
             * ical4j leaves out a property it cannot build saying so only in its log; the property's name and why are
             * kept for the line on stderr (ical4j's own log, with its stack trace, is off: simplelogger.properties).
             */
            @Override
            public void endProperty(String name) {
                try {
                    propertyBuilder.build();
                } catch (RuntimeException e) {
                    dropped.add(name + " (" + e.getMessage() + ")");
                }
                super.endProperty(name);
            }
        };
        TimeZoneFilter handler = new TimeZoneFilter(builder, dropped,
                why -> warnings.println("emulator: " + file.getFileName() + ": skipped a VTIMEZONE: " + why),
                tzid -> resolve(tzid).map(ZoneId::getId),
                (uid, what) -> warnings.println("emulator: " + file.getFileName() + (uid == null ? "" : " (UID " + uid + ")")
                        + ": " + what));
        // as CalendarBuilder.build reads a stream: UTF-8, lines unfolded (relaxed: after a bare LF too)
        String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        if (BARE_COMPONENT.matcher(text).lookingAt()) {
            text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//agent-tools//a bare component//EN\r\n" + text
                    + (text.endsWith("\n") ? "" : "\r\n") + "END:VCALENDAR\r\n";
        }
        try (Reader in = new UnfoldingReader(new StringReader(text), true)) {
            new CalendarParserImpl().parse(in, handler);
        } catch (ParserException | RuntimeException e) {
            String why = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
            throw new IOException("cannot read " + file + " as iCalendar: " + why, e);
        }
        if (built.isEmpty()) {
            throw new IOException("cannot read " + file + " as iCalendar: it holds no VCALENDAR");
        }
        return built;
    }

    private List<CalendarEvent> events(Path file, List<net.fortuna.ical4j.model.Calendar> ics, ZoneId zone, CalendarInfo calendar) {
        List<CalendarEvent> out = new ArrayList<>();
        Map<String, String> uids = new LinkedHashMap<>(); // each event's UID by its id, for the lines on stderr
        int index = 0;
        for (Object c : ics.stream().flatMap(i -> i.getComponents("VEVENT").stream()).toList()) {
            VEvent v = (VEvent) c;
            index++;
            String uid = text(v.getProperty(Property.UID)).orElse(null);
            String which = file.getFileName() + " (" + (uid == null ? "event " + index + ", no UID" : "UID " + uid) + ")";
            Set<String> notes = new LinkedHashSet<>();
            try {
                // RFC 5545 requires a UID, but files in the wild (hand-written, old exporters) lack it and Google's
                // importer takes them: such an event gets an id of its own, stable while the file stays the same
                String key = uid != null ? "ics|" + uid : "ics-no-uid|" + file.getFileName() + "|" + index;
                CalendarEvent e = event(v, key, zone, notes);
                out.add(e);
                uids.put(e.id(), which);
                if (uid != null) {
                    icalUids.put(CalendarSeed.id(key), uid);
                }
                notes.forEach(n -> warnings.println("emulator: " + which + ": " + n));
            } catch (RuntimeException e) {
                warnings.println("emulator: skipped an event of " + which + ": " + e.getMessage());
            }
        }
        return unmatched(settle(out, uids), uids, calendar);
    }

    /**
     * The changed instances whose RECURRENCE-ID names no occurrence of their series (a start the rule does not give,
     * or one an EXDATE removes) as events of their own, said on stderr: no view of the series would show them otherwise.
     */
    private List<CalendarEvent> unmatched(List<CalendarEvent> settled, Map<String, String> uids, CalendarInfo calendar) {
        CalendarSet set = new CalendarSet(owner, List.of(calendar), Map.of(calendar.id(), settled), Instant.EPOCH);
        Map<String, CalendarEvent> series = new LinkedHashMap<>();
        settled.stream().filter(CalendarEvent::recurring).forEach(e -> series.putIfAbsent(e.id(), e));
        List<CalendarEvent> out = new ArrayList<>();
        for (CalendarEvent e : settled) {
            CalendarEvent master = e.exception() ? series.get(e.recurringEventId()) : null;
            if (master != null) {
                // a window holding both the start it replaces and its own (a moved instance is answered at its own)
                Instant at = e.originalStart().instant(calendar.timeZone());
                Instant moved = e.start().instant(calendar.timeZone());
                Instant from = at.isBefore(moved) ? at : moved;
                Instant to = (at.isAfter(moved) ? at : moved).plusNanos(1);
                boolean found = set.instances(calendar, master, from, to, true).stream()
                        .anyMatch(i -> i.id().equals(e.id()));
                if (!found) {
                    warnings.println("emulator: " + uids.get(e.id()) + ": its RECURRENCE-ID " + e.originalStart().idSuffix()
                            + " is no occurrence of its series; imported as an event of its own");
                    icalUids.put(e.id(), icalUids.getOrDefault(e.recurringEventId(), e.recurringEventId() + "@google.com"));
                    out.add(e.standalone());
                    continue;
                }
            }
            out.add(e);
        }
        return out;
    }

    /**
     * The file's changed instances fitted to their series, once all of the file is read: a RECURRENCE-ID of the other
     * kind than the series' start (a date-time for an all-day series, a date for a timed one, as some exporters
     * write) names the series' start on that day; a changed instance whose series is not in the file (an invitation
     * to one occurrence, a partial export) is an event of its own, as Google imports it, said on stderr.
     */
    private List<CalendarEvent> settle(List<CalendarEvent> read, Map<String, String> uids) {
        Map<String, CalendarEvent> series = new LinkedHashMap<>();
        for (CalendarEvent e : read) {
            if (e.recurring()) {
                series.putIfAbsent(e.id(), e);
            }
        }
        List<CalendarEvent> out = new ArrayList<>();
        for (CalendarEvent e : read) {
            if (!e.exception()) {
                out.add(e);
                continue;
            }
            CalendarEvent master = series.get(e.recurringEventId());
            if (master == null) {
                warnings.println("emulator: " + uids.get(e.id()) + ": a changed occurrence (RECURRENCE-ID) whose series is not in"
                        + " the file; imported as an event of its own");
                String single = e.id();
                icalUids.put(single, icalUids.getOrDefault(e.recurringEventId(), e.recurringEventId() + "@google.com"));
                out.add(e.standalone());
                continue;
            }
            EventTime original = e.originalStart();
            if (master.start().allDay() && !original.allDay()) {
                original = EventTime.of(original.dateTime().toLocalDate());
            } else if (!master.start().allDay() && original.allDay()) {
                original = EventTime.of(original.date().atTime(master.start().dateTime().toLocalTime())
                        .atZone(master.start().dateTime().getZone()));
            }
            out.add(e.originalStart().equals(original) ? e : e.withOriginalStart(master.id(), original));
        }
        return out;
    }

    /** @param key what the event's id is made from: its UID (a series and its exceptions share it) */
    private CalendarEvent event(VEvent v, String key, ZoneId zone, Set<String> notes) {
        EventTime start = time(v.<DateProperty<Temporal>>getProperty(Property.DTSTART)
                .orElseThrow(() -> new IllegalArgumentException("it has no DTSTART")), zone, notes);
        Optional<DateProperty<Temporal>> dtEnd = v.getProperty(Property.DTEND);
        EventTime end;
        if (dtEnd.isPresent()) {
            end = time(dtEnd.get(), zone, notes);
        } else {
            Optional<net.fortuna.ical4j.model.property.Duration> duration = v.getProperty(Property.DURATION);
            end = duration.map(d -> later(start, d.getDuration()))
                    .orElse(start.allDay() ? EventTime.of(start.date().plusDays(1)) : start);
        }
        if (end.allDay() != start.allDay()) {
            throw new IllegalArgumentException("its DTSTART and DTEND are not both dates or both times");
        }
        // RFC 5545 allows more than one RRULE (deprecated, but exporters still write them): the occurrences are the union
        List<String> rules = new ArrayList<>();
        for (Object p : v.getProperties(Property.RRULE)) {
            String rule = ((Property) p).getValue();
            new net.fortuna.ical4j.model.Recur<>(rule); // a rule ical4j cannot read is this event's fault, found here
            rules.add(rule);
        }
        String rrule = rules.isEmpty() ? null : rules.getFirst();
        ZoneId own = start.allDay() ? zone : start.dateTime().getZone();
        List<EventTime> exdates = new ArrayList<>();
        for (Object p : v.getProperties(Property.EXDATE)) {
            exdates.addAll(times((DateListProperty<?>) p, own, notes));
        }
        List<EventTime> rdates = new ArrayList<>();
        for (Object p : v.getProperties(Property.RDATE)) {
            RDate<?> r = (RDate<?>) p;
            Optional<? extends Set<? extends net.fortuna.ical4j.model.Period<?>>> periods = r.getPeriods();
            if (periods.isPresent()) {
                // RDATE;VALUE=PERIOD: each period's start is an occurrence (lasting as the series does)
                for (net.fortuna.ical4j.model.Period<?> period : periods.get()) {
                    rdates.add(named(time(period.getStart(), own), r, notes));
                }
            } else {
                rdates.addAll(times(r, own, notes));
            }
        }
        for (EventTime t : rdates) {
            if (t.allDay() != start.allDay()) {
                throw new IllegalArgumentException("its RDATE " + t + " is not of DTSTART's kind (a date or a time)");
            }
        }
        String seriesId = CalendarSeed.id(key);
        Optional<DateProperty<Temporal>> recurrenceId = v.getProperty(Property.RECURRENCE_ID);
        String id = seriesId;
        String recurringEventId = null;
        EventTime originalStart = null;
        if (recurrenceId.isPresent()) {
            originalStart = time(recurrenceId.get(), own, notes);
            recurringEventId = seriesId;
            id = seriesId + "_" + originalStart.idSuffix();
            rrule = null;
            rules.clear();
            rdates.clear();
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
                text(v.getProperty("X-GOOGLE-CONFERENCE")).orElse(null), List.of(), created, updated, transparency,
                rules.size() > 1 ? rules.subList(1, rules.size()) : List.of(), rdates);
    }

    /** {@code start} plus an iCalendar DURATION: days and weeks as calendar days, hours and less as elapsed time. */
    private static EventTime later(EventTime start, TemporalAmount amount) {
        return start.allDay() ? EventTime.of(start.date().plus(amount)) : EventTime.of(start.dateTime().plus(amount));
    }

    /** A DTSTART-like property's time, in the zone its TZID names. */
    private static EventTime time(DateProperty<Temporal> p, ZoneId zone, Set<String> notes) {
        return named(time(p.getDate(), zone), p, notes);
    }

    /** The times of an EXDATE or RDATE list, in the zone its TZID names. */
    private static List<EventTime> times(DateListProperty<?> p, ZoneId zone, Set<String> notes) {
        List<EventTime> out = new ArrayList<>();
        for (Object t : p.getDates()) {
            out.add(named(time((Temporal) t, zone), p, notes));
        }
        return out;
    }

    /**
     * The time in the IANA zone the property's TZID names: ical4j reads a TZID through its own registry, whose zones
     * carry ids of its own ({@code ical4j~<uuid>}), and Google names zones by their IANA ids. The wall time the file
     * states is kept. A TZID that is no IANA id leaves ical4j's zone (its rules come from the file's VTIMEZONE).
     */
    private static EventTime named(EventTime t, Property p, Set<String> notes) {
        if (t.allDay()) {
            return t;
        }
        return p.<net.fortuna.ical4j.model.Parameter>getParameter("TZID").map(net.fortuna.ical4j.model.Parameter::getValue)
                .flatMap(CalendarImport::ianaBehindPrefix).map(z -> EventTime.of(t.dateTime().withZoneSameLocal(z))).orElse(t);
    }

    /**
     * The IANA zone a TZID names: an IANA id, one behind a vendor's prefix, or a Windows zone name (ical4j's table).
     */
    static Optional<ZoneId> resolve(String tzid) {
        Optional<ZoneId> iana = ianaBehindPrefix(tzid);
        if (iana.isPresent()) {
            return iana;
        }
        try {
            // ical4j's registry maps Windows names ("Eastern Standard Time") and old aliases to IANA zones
            net.fortuna.ical4j.model.TimeZone known = GLOBAL_ZONES.getTimeZone(tzid);
            return known == null ? Optional.empty() : zone(known.getID());
        } catch (RuntimeException e) {
            return Optional.empty(); // ical4j 4.2.3 throws NullPointerException for some ids it does not know
        }
    }

    private static final TimeZoneRegistry GLOBAL_ZONES = TimeZoneRegistryFactory.getInstance().createRegistry();

    /**
     * An IANA id, as it is or behind a vendor's prefix: Evolution writes {@code /freeassociation.sourceforge.net/America/New_York}
     * (or {@code .../Tzfile/America/New_York}), Mozilla {@code /mozilla.org/20050126_1/America/New_York}. By hand:
     * ical4j's own prefix handling (TimeZoneRegistryImpl's TZ_ID_SUFFIX) throws NullPointerException in 4.2.3.
     */
    private static Optional<ZoneId> ianaBehindPrefix(String tzid) {
        Optional<ZoneId> plain = zone(tzid);
        if (plain.isPresent() || !tzid.startsWith("/")) {
            return plain;
        }
        for (int cut = tzid.indexOf('/'); cut >= 0; cut = tzid.indexOf('/', cut + 1)) {
            String rest = tzid.substring(cut + 1);
            if (rest.contains("/") && ZoneId.getAvailableZoneIds().contains(rest)) {
                return zone(rest);
            }
        }
        return Optional.empty();
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
