package dev.agenttools.emulator.calendar;

import net.fortuna.ical4j.data.ContentHandler;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Passes a parsed iCalendar file on to ical4j's content handler, holding each VTIMEZONE back until its end: one
 * without a TZID is left out (ical4j would refuse the whole file for it, "Invalid timezone argument"; the events that
 * name no zone are still read), and an observance given by its DTSTART alone (no RRULE, no RDATE: a single onset, RFC
 * 5545 3.6.5) gets that onset as an RDATE too, since ical4j 4.2.3 otherwise leaves such a change out and times
 * after it come out an hour off.
 */
final class TimeZoneFilter implements ContentHandler {
    private final ContentHandler next;
    private final Consumer<String> skipped;
    /** The held-back calls of the VTIMEZONE being read; null outside one. */
    private List<Consumer<ContentHandler>> held;
    private int depth; // components open inside the VTIMEZONE (its observances)
    private String property;
    private boolean hasTzid;
    private boolean hasRule;
    private String onset;


    /** Every call, held until the calendar's end: a TZID may be used before the VTIMEZONE that defines it. */
    private final List<Consumer<ContentHandler>> all = new ArrayList<>();
    private final Set<String> defined = new HashSet<>();
    private final Function<String, Optional<String>> resolve;
    private final BiConsumer<String, String> unknown;

    /** Properties ical4j left out as invalid (filled by {@code next}), said at the end of their event. */
    private final List<String> dropped;

    /**
     * @param resolve the IANA id a TZID the file does not define names, if any
     * @param said    what is said on stderr about an event (its UID, null outside events, and what)
     */
    TimeZoneFilter(ContentHandler next, List<String> dropped, Consumer<String> skipped,
                   Function<String, Optional<String>> resolve, BiConsumer<String, String> said) {
        this.dropped = dropped;
        this.next = next;
        this.skipped = skipped;
        this.resolve = resolve;
        this.unknown = said;
    }

    @Override
    public void startCalendar() {
        all.add(ContentHandler::startCalendar);
    }

    /**
     * The calendar, handed on: a TZID no VTIMEZONE of the file defines is replaced by the IANA zone it names (behind a
     * vendor's prefix, or a Windows name), else dropped (the time is then floating) and said, with the event's UID.
     */
    @Override
    public void endCalendar() throws IOException {
        ContentHandler fixing = new ContentHandler() {
            private int vtimezone;
            private String uidProperty;
            private String uid;
            private final List<String> lost = new ArrayList<>();

            public void startCalendar() { next.startCalendar(); }
            public void endCalendar() throws IOException {
                dropped.forEach(p -> unknown.accept(null, "left out its invalid " + p));
                dropped.clear();
                next.endCalendar();
            }
            public void startComponent(String name) {
                vtimezone += name.equalsIgnoreCase("VTIMEZONE") || vtimezone > 0 ? 1 : 0;
                next.startComponent(name);
            }
            public void endComponent(String name) {
                vtimezone -= vtimezone > 0 ? 1 : 0;
                if (vtimezone == 0 && !name.equalsIgnoreCase("VALARM")) { // the end of an event (or to-do...)
                    if (name.equalsIgnoreCase("VEVENT")) {
                        lost.forEach(tzid -> unknown.accept(uid, "its TZID " + tzid + " names no zone the file defines or the"
                                + " time-zone database knows; its times are read as floating times in the calendar's zone"));
                    }
                    lost.clear();
                    dropped.forEach(p -> unknown.accept(uid, "left out its invalid " + p));
                    dropped.clear();
                    uid = null;
                }
                next.endComponent(name);
            }
            public void startProperty(String name) {
                uidProperty = name;
                next.startProperty(name);
            }
            public void propertyValue(String value) {
                if ("UID".equalsIgnoreCase(uidProperty)) {
                    uid = value;
                }
                next.propertyValue(value);
            }
            public void endProperty(String name) { next.endProperty(name); }
            public void parameter(String name, String value) {
                // a parameter value may be quoted (TZID="America/Los_Angeles"); ical4j reads it without the quotes
                String bare = value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                        ? value.substring(1, value.length() - 1) : value;
                if (vtimezone == 0 && name.equalsIgnoreCase("TZID") && !defined.contains(bare)) {
                    Optional<String> iana = resolve.apply(bare);
                    if (iana.isEmpty()) {
                        if (!lost.contains(bare)) {
                            lost.add(bare);
                        }
                        return;
                    }
                    next.parameter(name, iana.get());
                    return;
                }
                next.parameter(name, value);
            }
        };
        // a file may hold several VCALENDARs one after another (Mozilla Calendar's exports): each handed on once
        List<Consumer<ContentHandler>> calls = List.copyOf(all);
        all.clear();
        for (Consumer<ContentHandler> call : calls) {
            call.accept(fixing);
        }
        fixing.endCalendar();
    }

    @Override
    public void startComponent(String name) {
        if (held == null && name.equalsIgnoreCase("VTIMEZONE")) {
            held = new ArrayList<>();
            depth = 0;
            hasTzid = false;
        } else if (held != null) {
            depth++;
            hasRule = false;
            onset = null;
        }
        pass(h -> h.startComponent(name));
    }

    @Override
    public void endComponent(String name) {
        if (held == null) {
            all.add(h -> h.endComponent(name));
            return;
        }
        if (depth > 0) {
            if (!hasRule && onset != null) {
                String value = onset;
                held.add(h -> h.startProperty("RDATE"));
                held.add(h -> h.propertyValue(value));
                held.add(h -> h.endProperty("RDATE"));
            }
            depth--;
            held.add(h -> h.endComponent(name));
            return;
        }
        List<Consumer<ContentHandler>> calls = held;
        held = null;
        if (!hasTzid) {
            skipped.accept("it has no TZID (events naming a zone it might define read the zone by its name)");
            return;
        }
        all.addAll(calls);
        all.add(h -> h.endComponent(name));
    }

    @Override
    public void startProperty(String name) {
        property = name.toUpperCase(Locale.ROOT);
        if (held != null) {
            if (depth == 0 && property.equals("TZID")) {
                hasTzid = true;
            } else if (depth > 0 && (property.equals("RRULE") || property.equals("RDATE"))) {
                hasRule = true;
            }
        }
        pass(h -> h.startProperty(name));
    }

    @Override
    public void propertyValue(String value) {
        if (held != null && depth > 0 && "DTSTART".equals(property)) {
            onset = value;
        }
        if (held != null && depth == 0 && "TZID".equals(property)) {
            hasTzid = !value.isBlank();
            // as ical4j reads the TZID: Outlook escapes its commas ("(UTC+07:00) Bangkok\\, Hanoi\\, Jakarta")
            defined.add(value.strip().replace("\\,", ",").replace("\\;", ";").replace("\\\\", "\\"));
        }
        pass(h -> h.propertyValue(value));
    }

    @Override
    public void endProperty(String name) {
        pass(h -> h.endProperty(name));
    }

    @Override
    public void parameter(String name, String value) {
        pass(h -> h.parameter(name, value));
    }

    private void pass(Consumer<ContentHandler> call) {
        (held != null ? held : all).add(call);
    }
}
