package dev.agenttools.calendar;

import com.google.api.services.calendar.model.CalendarListEntry;
import dev.agenttools.tool.ToolException;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The time range a Calendar tool asks about, from its {@code time_min} and {@code time_max} params: RFC 3339 times
 * with an offset, or dates read in the user's zone ({@code time_min} from the day's midnight, {@code time_max} to
 * the end of its day). Without {@code time_max}: the end of {@code time_min}'s day when that is a date, else the end
 * of today; without either: today.
 *
 * @param min inclusive start
 * @param max exclusive end, after {@code min}
 */
record TimeRange(Instant min, Instant max) {
    TimeRange {
        if (!min.isBefore(max)) {
            throw ToolException.invalidArgument("time_max must be after time_min, got " + min + " .. " + max);
        }
    }

    /** Whether these params need the user's zone (a date, or a default), which only the calendar list tells. */
    static boolean needsZone(String timeMin, String timeMax) {
        return !isTime(timeMin) || !isTime(timeMax);
    }

    static TimeRange of(String timeMin, String timeMax, ZoneId zone) {
        Instant min = timeMin == null ? LocalDate.now(zone).atStartOfDay(zone).toInstant() : bound("time_min", timeMin, zone, false);
        Instant max;
        if (timeMax != null) {
            max = bound("time_max", timeMax, zone, true);
        } else if (timeMin != null && !isTime(timeMin)) {
            max = bound("time_min", timeMin, zone, true);
        } else {
            max = min.atZone(zone).toLocalDate().plusDays(1).atStartOfDay(zone).toInstant();
        }
        if (!min.isBefore(max)) {
            throw ToolException.invalidArgument("time_max must be after time_min, got " + timeMin + " .. " + timeMax);
        }
        return new TimeRange(min, max);
    }

    /** The user's zone: the primary calendar's, else UTC. */
    static ZoneId userZone(List<CalendarListEntry> calendars) {
        return calendars.stream().filter(c -> Boolean.TRUE.equals(c.getPrimary())).map(c -> zone(c.getTimeZone()))
                .findFirst().orElse(ZoneOffset.UTC);
    }

    /** A zone by its IANA id; UTC for none or one Java does not know. */
    static ZoneId zone(String id) {
        try {
            return id == null ? ZoneOffset.UTC : ZoneId.of(id);
        } catch (DateTimeException e) {
            return ZoneOffset.UTC;
        }
    }

    static boolean isTime(String v) {
        return v != null && v.contains("T");
    }

    /** An RFC 3339 time, or a date: its start ({@code end} false) or the start of the next day ({@code end} true). */
    private static Instant bound(String name, String value, ZoneId zone, boolean end) {
        try {
            if (isTime(value)) {
                return OffsetDateTime.parse(value.strip()).toInstant();
            }
            LocalDate day = LocalDate.parse(value.strip());
            return (end ? day.plusDays(1) : day).atStartOfDay(zone).toInstant();
        } catch (DateTimeParseException e) {
            throw ToolException.invalidArgument(name + " must be an RFC 3339 time with an offset (2026-12-01T09:00:00+01:00) "
                    + "or a date (2026-12-01), got \"" + (value.length() > 40 ? value.substring(0, 40) + "..." : value) + "\"");
        }
    }
}
