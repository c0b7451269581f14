package dev.agenttools.habit;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * When a habit is due: every day, on given weekdays (a Mon/Wed/Fri habit is not due on a Tuesday), or N times in
 * each week (Monday to Sunday, any days). Immutable.
 *
 * @param kind          which of the three
 * @param days          the weekdays, for {@link Kind#WEEKDAYS} (1 to 6 of them; all 7 is {@link Kind#DAILY}); empty otherwise
 * @param timesPerWeek  1..7 for {@link Kind#TIMES_PER_WEEK}; 0 otherwise
 */
record Schedule(Kind kind, Set<DayOfWeek> days, int timesPerWeek) {
    enum Kind {
        DAILY, WEEKDAYS, TIMES_PER_WEEK;

        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final Schedule DAILY = new Schedule(Kind.DAILY, Set.of(), 0);

    Schedule {
        Objects.requireNonNull(kind, "kind");
        days = days.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(days));
        switch (kind) {
            case DAILY -> {
                if (!days.isEmpty() || timesPerWeek != 0) {
                    throw new IllegalArgumentException("a daily schedule has no days and no times_per_week");
                }
            }
            case WEEKDAYS -> {
                if (days.isEmpty() || timesPerWeek != 0) {
                    throw new IllegalArgumentException("a weekdays schedule needs 1 or more days and no times_per_week");
                }
            }
            case TIMES_PER_WEEK -> {
                if (!days.isEmpty() || timesPerWeek < 1 || timesPerWeek > 7) {
                    throw new IllegalArgumentException("a times_per_week schedule needs times_per_week 1..7 and no days, got "
                            + timesPerWeek);
                }
            }
        }
    }

    static Schedule weekdays(Set<DayOfWeek> days) {
        return days.size() == 7 ? DAILY : new Schedule(Kind.WEEKDAYS, days, 0);
    }

    static Schedule timesPerWeek(int n) {
        return new Schedule(Kind.TIMES_PER_WEEK, Set.of(), n);
    }

    /** Whether {@code day} is one the habit is due on by its weekday (every day for a times-a-week habit: any day counts). */
    boolean dueOn(LocalDate day) {
        return kind != Kind.WEEKDAYS || days.contains(day.getDayOfWeek());
    }

    /** The stored form: {@code daily}, {@code weekdays:MONDAY,WEDNESDAY} or {@code times_per_week:3}. */
    String stored() {
        return switch (kind) {
            case DAILY -> "daily";
            case WEEKDAYS -> "weekdays:" + String.join(",", days.stream().map(DayOfWeek::name).toList());
            case TIMES_PER_WEEK -> "times_per_week:" + timesPerWeek;
        };
    }

    /** Reads {@link #stored()}. */
    static Schedule ofStored(String s) {
        if (s.equals("daily")) {
            return DAILY;
        }
        if (s.startsWith("weekdays:")) {
            Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
            for (String d : s.substring("weekdays:".length()).split(",")) {
                days.add(DayOfWeek.valueOf(d));
            }
            return weekdays(days);
        }
        if (s.startsWith("times_per_week:")) {
            return timesPerWeek(Integer.parseInt(s.substring("times_per_week:".length())));
        }
        throw new IllegalArgumentException("not a stored schedule: " + s);
    }

    /** The weekdays' wire names, Monday first: {@code mon}, {@code wed}. */
    List<String> dayNames() {
        List<String> names = new ArrayList<>();
        for (DayOfWeek d : days) {
            names.add(shortName(d));
        }
        return names;
    }

    static String shortName(DayOfWeek d) {
        return d.getDisplayName(TextStyle.SHORT, Locale.ROOT).toLowerCase(Locale.ROOT);
    }

    /** A weekday by its English name or its first three letters, any case; null when it is neither. */
    static DayOfWeek day(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        for (DayOfWeek d : DayOfWeek.values()) {
            String full = d.name().toLowerCase(Locale.ROOT);
            if (n.equals(full) || n.equals(full.substring(0, 3))) {
                return d;
            }
        }
        return null;
    }
}
