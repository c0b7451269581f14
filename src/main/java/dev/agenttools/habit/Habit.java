package dev.agenttools.habit;

import java.text.Normalizer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A habit as kept: whose it is, what it is called, when it is due, what one day's target is, and the zone its days
 * are counted in.
 *
 * @param id           the store's id ({@code hab_} and 16 hex digits)
 * @param user         whose habit it is
 * @param name         1..{@value #MAX_NAME_CHARS} Unicode code points of plain text in NFC, unique per user without regard
 *                     to case, never of an id's form
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

    /** The form of an id; no name may have it (see {@link #looksLikeId}). */
    private static final Pattern ID = Pattern.compile("(?i)hab_[0-9a-f]{16}");

    /**
     * The name as compared: two names that differ only by case, or by how their accents are encoded (Unicode NFC), are
     * one.
     */
    static String nameKey(String name) {
        return Normalizer.normalize(Normalizer.normalize(name.strip(), Normalizer.Form.NFC)
                .toLowerCase(Locale.ROOT), Normalizer.Form.NFC);
    }

    /**
     * Whether {@code name} has the form of an id ({@code hab_} and 16 hex digits, any case): the habit param takes an id
     * or a name, so a name of that form would be another habit's id, or none, but never reachable by name.
     */
    static boolean looksLikeId(String name) {
        return ID.matcher(name.strip()).matches();
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
