package dev.agenttools.habit;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Objects;

/**
 * A habit as kept: whose it is, what it is called, when it is due, what one day's target is, and the zone its days
 * are counted in.
 *
 * @param id           the store's id ({@code hab_} and 16 hex digits)
 * @param user         whose habit it is
 * @param name         1..{@value #MAX_NAME_CHARS} characters, unique per user without regard to case
 * @param schedule     when it is due
 * @param targetAmount one day's target (such as 30), or null
 * @param targetUnit   the target's unit (such as "minutes"), or null
 * @param zone         the IANA zone its days are local days of (the user's, changed when the user moves)
 * @param archived     kept with its logs, but left out of habit.list unless asked for
 * @param created      when it was created
 */
record Habit(String id, String user, String name, Schedule schedule, Double targetAmount, String targetUnit, ZoneId zone,
             boolean archived, Instant created) {
    static final int MAX_NAME_CHARS = 100;
    static final int MAX_UNIT_CHARS = 40;

    Habit {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(created, "created");
    }

    /** The name as compared: two names that differ only by case are one. */
    static String nameKey(String name) {
        return name.strip().toLowerCase(Locale.ROOT);
    }

    /** The day it was created, in its zone now (a habit moved west may have been created "tomorrow": see {@link Progress}). */
    LocalDate createdDay() {
        return LocalDate.ofInstant(created, zone);
    }

    /** Today in its zone at {@code now}: a log at 23:30 in Tokyo is that Tokyo day. */
    LocalDate today(Instant now) {
        return LocalDate.ofInstant(now, zone);
    }
}
