package dev.agenttools.habit;

import dev.agenttools.tool.ToolException;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where habits and their logs are kept, per user. Two kinds: a SQLite file that the processes of one machine share
 * ({@link SqliteHabitStore}), or a DynamoDB table that instances on several machines share ({@link DynamoHabitStore});
 * {@link #open} picks the one the settings name. Both keep the same promises, held by one contract test run against
 * both ({@code HabitStoreContract}):
 *
 * <ul>
 *   <li>One log per (user, habit, day): a later log of the day replaces it, so a retried call, or two instances
 *       logging the same day at once, leave one record.</li>
 *   <li>Creating a habit checks the user's count ({@value #MAX_HABITS_PER_USER}) and the name (unique per user,
 *       whatever its case) atomically with the write: two instances cannot race past either.</li>
 *   <li>Two users never reach each other's habits or logs.</li>
 *   <li>A failure of the store (a damaged or locked file, a throttled or unreachable table) is a {@link ToolException}
 *       naming the file or table, and loses nothing already written.</li>
 * </ul>
 *
 * <p>Thread-safe.
 */
interface HabitStore extends AutoCloseable {
    /** The most habits (archived ones included) one user keeps. */
    int MAX_HABITS_PER_USER = 200;

    /** What a new habit is made of (its id, user and creation time are the store's). */
    record NewHabit(String name, Schedule schedule, Double targetAmount, String targetUnit, ZoneId zone) {
    }

    /** The store the settings name: their DynamoDB table when set, else their SQLite file. */
    static HabitStore open(HabitSettings settings) {
        return settings.table() != null ? DynamoHabitStore.open(settings.table()) : new SqliteHabitStore(settings.file());
    }

    /**
     * Creates a habit.
     *
     * @throws ToolException INVALID_ARGUMENT when the user has a habit of that name (any case) or has
     *                       {@value #MAX_HABITS_PER_USER} habits already
     */
    Habit create(String user, NewHabit h, Instant now);

    /** The user's habit with this id, else the one with this name (any case). */
    Optional<Habit> find(String user, String idOrName);

    /**
     * Makes {@code change} to the user's habit {@code id}, writing only the fields it gives (another instance's change of
     * other fields meanwhile stands), and answers the habit as stored after it.
     *
     * @throws ToolException INVALID_ARGUMENT when another of the user's habits has the new name; NOT_FOUND when the
     *                       user has no habit of that id
     */
    Habit update(String user, String id, HabitChange change, Instant now);

    /** The user's habits, oldest first; archived ones only when asked. */
    List<Habit> habits(String user, boolean archivedToo);

    /** Logs a day of a habit: one record per (user, habit, day), a second log of the day replacing the first. */
    void log(String user, HabitLog l, Instant now);

    /** Every log of the user's habits, by habit id, each oldest day first (habit.list reads them at once). */
    Map<String, List<HabitLog>> logs(String user);

    /** One habit's logs, oldest first. */
    List<HabitLog> logs(String user, String habitId);

    /**
     * What habit.list counts every habit's progress from, by habit id, each habit's logs in no given order: the day and
     * done of every log, the amount of those from {@code amountsFrom} on (today's, shown by the list). Earlier amounts
     * and notes may be left out (null): a store that reads them slower than the days alone leaves them out.
     */
    default Map<String, List<HabitLog>> progressLogs(String user, LocalDate amountsFrom) {
        return logs(user);
    }

    /**
     * A number that changes whenever another connection or process has written to the store since it was last read
     * (this store's own writes excepted: whoever makes them knows), or -1 where the store has no cheap way to tell
     * (then nothing read from it may be reused). What {@code habit.list} checks before reusing the progress it
     * computed from every log.
     */
    default long foreignWrites() {
        return -1;
    }

    @Override
    void close();
}
