package dev.agenttools.habit;

import java.time.LocalDate;
import java.util.Objects;

/**
 * What was logged of a habit for one local day: one record per habit and day, a later log of the day replacing it.
 *
 * @param habitId the habit's id
 * @param day     the local day in the habit's zone
 * @param done    done, or explicitly not done
 * @param amount  how much (in the habit's unit), or null
 * @param note    up to {@value #MAX_NOTE_CHARS} characters, or null
 */
record HabitLog(String habitId, LocalDate day, boolean done, Double amount, String note) {
    static final int MAX_NOTE_CHARS = 1000;

    HabitLog {
        Objects.requireNonNull(habitId, "habitId");
        Objects.requireNonNull(day, "day");
    }
}
