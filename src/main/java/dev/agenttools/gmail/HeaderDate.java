package dev.agenttools.gmail;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An RFC 5322 Date header as an instant with the header's own offset, named zones included ({@code MST} is
 * -07:00, RFC 5322 4.3). Strict about the calendar: an hour 59 or a 31 February is no date at all (the caller
 * then falls back to the arrival time) rather than a date two days later, as lenient parsers make it. Accepts
 * what real mail writes besides: no weekday, 2- and 3-digit years, no seconds, comments such as {@code (PDT)}.
 * Written by hand because the JDK's RFC_1123 formatter refuses most of that and Angus Mail's MailDateFormat is
 * either lenient about the calendar or refuses named zones.
 */
final class HeaderDate {
    private static final Pattern DATE = Pattern.compile(
            "^\\s*(?:[A-Za-z]{2,9}\\s*,?\\s*)?(\\d{1,2})[\\s-]+([A-Za-z]{3,9})\\.?[\\s-]+(\\d{2,4})\\s+"
                    + "(\\d{1,2}):(\\d{1,2})(?::(\\d{1,2}))?(?:\\.\\d+)?\\s*([+-]\\d{4}|[A-Za-z]{1,5})?(?:\\s.*)?$");
    private static final Map<String, Integer> MONTHS = Map.ofEntries(Map.entry("jan", 1), Map.entry("feb", 2),
            Map.entry("mar", 3), Map.entry("apr", 4), Map.entry("may", 5), Map.entry("jun", 6), Map.entry("jul", 7),
            Map.entry("aug", 8), Map.entry("sep", 9), Map.entry("oct", 10), Map.entry("nov", 11), Map.entry("dec", 12));
    /** RFC 5322 4.3's obsolete zones, in hours. Military letters and unknown names mean "-0000", i.e. UTC. */
    private static final Map<String, Integer> ZONES = Map.of("UT", 0, "GMT", 0, "UTC", 0, "Z", 0, "EST", -5, "EDT", -4,
            "CST", -6, "CDT", -5, "MST", -7, "MDT", -6);
    private static final Map<String, Integer> PACIFIC = Map.of("PST", -8, "PDT", -7);

    private HeaderDate() {
    }

    static Optional<OffsetDateTime> parse(String header) {
        if (header == null) {
            return Optional.empty();
        }
        Matcher m = DATE.matcher(header);
        if (!m.matches()) {
            return Optional.empty();
        }
        Integer month = MONTHS.get(m.group(2).substring(0, 3).toLowerCase(Locale.ROOT));
        if (month == null) {
            return Optional.empty();
        }
        int year = Integer.parseInt(m.group(3));
        if (m.group(3).length() == 2) {
            year += year < 50 ? 2000 : 1900; // RFC 5322 4.3
        } else if (m.group(3).length() == 3) {
            year += 1900;
        }
        try {
            LocalDateTime local = LocalDateTime.of(year, month, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(4)),
                    Integer.parseInt(m.group(5)), m.group(6) == null ? 0 : Integer.parseInt(m.group(6)));
            return Optional.of(OffsetDateTime.of(local, offset(m.group(7))));
        } catch (DateTimeException impossible) {
            return Optional.empty();
        }
    }

    private static ZoneOffset offset(String zone) {
        if (zone == null) {
            return ZoneOffset.UTC;
        }
        if (zone.startsWith("+") || zone.startsWith("-")) {
            int sign = zone.startsWith("-") ? -1 : 1;
            int hours = Integer.parseInt(zone.substring(1, 3));
            int minutes = Integer.parseInt(zone.substring(3, 5));
            if (hours > 18 || minutes > 59) {
                throw new DateTimeException("offset out of range: " + zone);
            }
            return ZoneOffset.ofHoursMinutes(sign * hours, sign * minutes);
        }
        String upper = zone.toUpperCase(Locale.ROOT);
        Integer hours = ZONES.getOrDefault(upper, PACIFIC.getOrDefault(upper, 0));
        return ZoneOffset.ofHours(hours);
    }
}
