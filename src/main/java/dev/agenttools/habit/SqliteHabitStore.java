package dev.agenttools.habit;

import dev.agenttools.store.SqliteStore;
import dev.agenttools.tool.ToolException;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link HabitStore} in a SQLite file: habits and their logs, keyed by user, opened as {@link SqliteStore} opens the stores: owner-only in
 * a folder of the user's own, never through a symbolic link, a rollback journal rather than WAL (see SqliteStore for
 * why), each write one transaction that waits for the disk ({@code synchronous=FULL}). Several processes may share
 * the file, one writer at a time: a log is one upsert keyed by (user, habit, day), so two processes logging the same
 * day write one record, and creating a habit checks the user's count and the name in the same immediate transaction
 * as its insert, so neither limit can be raced past. One connection, its methods synchronized: thread-safe.
 */
final class SqliteHabitStore implements HabitStore {
    private static final String SCHEMA_HABITS = """
            CREATE TABLE IF NOT EXISTS habits (
              user TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, name_key TEXT NOT NULL, schedule TEXT NOT NULL,
              target_amount REAL, target_unit TEXT, zone TEXT NOT NULL, archived INTEGER NOT NULL DEFAULT 0,
              created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL,
              PRIMARY KEY (user, id), UNIQUE (user, name_key))""";
    private static final String SCHEMA_LOGS = """
            CREATE TABLE IF NOT EXISTS logs (
              user TEXT NOT NULL, habit_id TEXT NOT NULL, day TEXT NOT NULL, done INTEGER NOT NULL, amount REAL, note TEXT,
              updated_ms INTEGER NOT NULL,
              PRIMARY KEY (user, habit_id, day))""";
    private static final String HABIT_COLUMNS = "id, user, name, schedule, target_amount, target_unit, zone, archived, created_ms";
    private static final SecureRandom IDS = new SecureRandom();
    private final Path file;
    private final Connection connection;

    /**
     * Opens (creating the file, its folders and the tables when missing) the store.
     *
     * @throws ToolException INTERNAL naming the file when it is refused (a link, someone else's, a folder others may
     *                       write) or SQLite cannot open it (damaged: the message says so; nothing is deleted)
     */
    SqliteHabitStore(Path file) {
        this.file = file;
        Connection c = null;
        try {
            c = SqliteStore.openToWrite(file, true).connection();
            try (Statement s = c.createStatement()) {
                s.execute(SCHEMA_HABITS);
                s.execute(SCHEMA_LOGS);
            }
            migrateNameKeys(c);
            connection = c;
        } catch (SQLException e) {
            closeQuietly(c, e);
            throw failed("open", e);
        } catch (IOException e) {
            throw ToolException.internal("the habit store cannot be used (the file is refused)", "the habit store " + file
                    + " is not used: " + e.getMessage(), e);
        }
    }

    /**
     * Name keys are in Unicode NFC from {@code user_version} 1 on (before, only lowercased): in a file written before,
     * the keys of names typed in another form (an accent as a combining mark) are made again, once, in one immediate
     * transaction (another process opening the file meanwhile waits, then finds it done). A key that would then equal
     * another of the user's habits' is left as it was: that habit is still reached by its id.
     */
    private static void migrateNameKeys(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            if (userVersion(s) >= 1) {
                return;
            }
            s.execute("BEGIN IMMEDIATE");
            try {
                if (userVersion(s) < 1) {
                    List<String[]> rows = new ArrayList<>();
                    try (ResultSet rs = s.executeQuery("SELECT user, id, name, name_key FROM habits")) {
                        while (rs.next()) {
                            String key = Habit.nameKey(rs.getString(3));
                            if (!key.equals(rs.getString(4))) {
                                rows.add(new String[] {key, rs.getString(1), rs.getString(2)});
                            }
                        }
                    }
                    try (PreparedStatement p = c.prepareStatement("UPDATE OR IGNORE habits SET name_key = ? WHERE user = ? AND id = ?")) {
                        for (String[] row : rows) {
                            p.setString(1, row[0]);
                            p.setString(2, row[1]);
                            p.setString(3, row[2]);
                            p.executeUpdate();
                        }
                    }
                    s.execute("PRAGMA user_version = 1");
                }
                s.execute("COMMIT");
            } catch (SQLException | RuntimeException e) {
                rollback(s, e);
                throw e;
            }
        }
    }

    private static int userVersion(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    private ToolException failed(String what, SQLException e) {
        String why = SqliteStore.damaged(e) ? " (the file is damaged: it is left as it is; move it aside, or set "
                + HabitSettings.DB_VARIABLE + " to another file)"
                : (e.getErrorCode() & 0xff) == 5 ? " (another process held the file longer than "
                + "the 10 s wait: try again)" : "";
        String words = "the habit store cannot " + what + (SqliteStore.damaged(e) ? " (the file is damaged)"
                : (e.getErrorCode() & 0xff) == 5 ? " (the file was busy: try again)" : "");
        return ToolException.internal(words, "habit store " + file + ": cannot " + what + ": " + e.getMessage() + why, e);
    }

    private static void closeQuietly(Connection c, Exception cause) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException closing) {
                cause.addSuppressed(closing);
            }
        }
    }

    @Override
    public synchronized void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // closing: nothing is pending (every write committed)
        }
    }

    /**
     * Creates a habit.
     *
     * @throws ToolException INVALID_ARGUMENT when the user has a habit of that name (any case) or has
     *                       {@value #MAX_HABITS_PER_USER} habits already
     */
    @Override
    public synchronized Habit create(String user, NewHabit h, Instant now) {
        String id = "hab_" + HexFormat.of().formatHex(randomBytes());
        try (Statement s = connection.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            try {
                int count = count(user);
                if (count >= MAX_HABITS_PER_USER) {
                    throw ToolException.invalidArgument("name: you have " + count + " habits, the most kept per user is "
                            + MAX_HABITS_PER_USER + " (archived ones count): archive is not deletion; update an old one instead");
                }
                Optional<Habit> same = byName(user, h.name());
                if (same.isPresent()) {
                    throw ToolException.invalidArgument("name: a habit named \"" + same.get().name() + "\" exists already (id "
                            + same.get().id() + (same.get().archived() ? ", archived: habit.restore brings it back" : "")
                            + "); names are unique per user, whatever their case");
                }
                try (PreparedStatement p = connection.prepareStatement("INSERT INTO habits (user, id, name, name_key, schedule,"
                        + " target_amount, target_unit, zone, archived, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)")) {
                    p.setString(1, user);
                    p.setString(2, id);
                    bindDefinition(p, 3, h.name(), h.schedule(), h.targetAmount(), h.targetUnit(), h.zone());
                    p.setLong(9, now.toEpochMilli());
                    p.setLong(10, now.toEpochMilli());
                    p.executeUpdate();
                }
                s.execute("COMMIT");
            } catch (SQLException | RuntimeException e) {
                rollback(s, e);
                throw e;
            }
        } catch (SQLException e) {
            throw failed("create a habit", e);
        }
        return new Habit(id, user, h.name(), h.schedule(), h.targetAmount(), h.targetUnit(), h.zone(), false,
                Instant.ofEpochMilli(now.toEpochMilli()));
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[8];
        IDS.nextBytes(b);
        return b;
    }

    private static void rollback(Statement s, Exception cause) {
        try {
            s.execute("ROLLBACK");
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private int count(String user) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("SELECT count(*) FROM habits WHERE user = ?")) {
            p.setString(1, user);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        }
    }

    private Optional<Habit> byName(String user, String name) throws SQLException {
        return one("SELECT " + HABIT_COLUMNS + " FROM habits WHERE user = ? AND name_key = ?", user, Habit.nameKey(name));
    }

    private Optional<Habit> one(String sql, String user, String key) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            p.setString(1, user);
            p.setString(2, key);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(habit(rs)) : Optional.empty();
            }
        }
    }

    /** The user's habit with this id, else the one with this name (any case). */
    @Override
    public synchronized Optional<Habit> find(String user, String idOrName) {
        try {
            Optional<Habit> byId = one("SELECT " + HABIT_COLUMNS + " FROM habits WHERE user = ? AND id = ?", user, idOrName);
            return byId.isPresent() ? byId : byName(user, idOrName);
        } catch (SQLException e) {
            throw failed("read a habit", e);
        }
    }

    /**
     * Makes {@code change}: one UPDATE of the columns it gives, answering the row as it is after it ({@code RETURNING}),
     * so a change of other columns by another process meanwhile stands.
     *
     * @throws ToolException INVALID_ARGUMENT when another of the user's habits has the new name
     */
    @Override
    public synchronized Habit update(String user, String id, HabitChange change, Instant now) {
        List<String> columns = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        if (change.name() != null) {
            columns.add("name");
            values.add(change.name());
            columns.add("name_key");
            values.add(Habit.nameKey(change.name()));
        }
        if (change.schedule() != null) {
            columns.add("schedule");
            values.add(change.schedule().stored());
        }
        if (change.targetAmount() != null) {
            columns.add("target_amount");
            values.add(change.targetAmount().orElse(null));
        }
        if (change.targetUnit() != null) {
            columns.add("target_unit");
            values.add(change.targetUnit().orElse(null));
        }
        if (change.zone() != null) {
            columns.add("zone");
            values.add(change.zone().getId());
        }
        if (change.archived() != null) {
            columns.add("archived");
            values.add(change.archived() ? 1 : 0);
        }
        columns.add("updated_ms");
        values.add(now.toEpochMilli());
        String sql = "UPDATE habits SET " + String.join(", ", columns.stream().map(c -> c + " = ?").toList())
                + " WHERE user = ? AND id = ? RETURNING " + HABIT_COLUMNS;
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            int i = 1;
            for (Object v : values) {
                if (v == null) {
                    p.setNull(i++, Types.NULL);
                } else {
                    p.setObject(i++, v);
                }
            }
            p.setString(i++, user);
            p.setString(i, id);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    throw new ToolException(ToolException.Kind.NOT_FOUND, "habit: no habit " + id + " (deleted meanwhile?)");
                }
                return habit(rs);
            }
        } catch (SQLException e) {
            if ((e.getErrorCode() & 0xff) == 19) { // SQLITE_CONSTRAINT: the (user, name_key) key
                throw ToolException.invalidArgument("name: another habit is named \"" + change.name()
                        + "\" already; names are unique per user, whatever their case");
            }
            throw failed("update a habit", e);
        }
    }

    /** The user's habits, oldest first; archived ones only when asked. */
    @Override
    public synchronized List<Habit> habits(String user, boolean archivedToo) {
        try (PreparedStatement p = connection.prepareStatement("SELECT " + HABIT_COLUMNS + " FROM habits WHERE user = ?"
                + (archivedToo ? "" : " AND archived = 0") + " ORDER BY created_ms, id")) {
            p.setString(1, user);
            List<Habit> habits = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    habits.add(habit(rs));
                }
            }
            return habits;
        } catch (SQLException e) {
            throw failed("list habits", e);
        }
    }

    /**
     * Logs a day of a habit: one record per (user, habit, day), a second log of the day replacing the first (in one
     * statement, so a retried call, or two processes at once, leave one record).
     */
    @Override
    public synchronized void log(String user, HabitLog l, Instant now) {
        try (PreparedStatement p = connection.prepareStatement("INSERT INTO logs (user, habit_id, day, done, amount, note,"
                + " updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user, habit_id, day) DO UPDATE SET done = excluded.done,"
                + " amount = excluded.amount, note = excluded.note, updated_ms = excluded.updated_ms")) {
            p.setString(1, user);
            p.setString(2, l.habitId());
            p.setString(3, l.day().toString());
            p.setInt(4, l.done() ? 1 : 0);
            setDouble(p, 5, l.amount());
            p.setString(6, l.note());
            p.setLong(7, now.toEpochMilli());
            p.executeUpdate();
        } catch (SQLException e) {
            throw failed("log a day", e);
        }
    }

    @Override
    public synchronized long foreignWrites() {
        // SQLite's data_version: changes when another connection (of this process or another) commits, not for ours
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("PRAGMA data_version")) {
            return rs.next() ? rs.getLong(1) : -1;
        } catch (SQLException e) {
            return -1; // unknown: nothing is reused
        }
    }

    /** Every log of the user's habits, by habit id, each oldest day first. */
    @Override
    public synchronized Map<String, List<HabitLog>> logs(String user) {
        try (PreparedStatement p = connection.prepareStatement("SELECT habit_id, day, done, amount, note FROM logs WHERE user = ?"
                + " ORDER BY habit_id, day")) {
            p.setString(1, user);
            return logsOf(p);
        } catch (SQLException e) {
            throw failed("read logs", e);
        }
    }

    /**
     * Every log's day and done as one string a habit (SQLite's group_concat), and the amounts from {@code amountsFrom} on
     * in a second query. Why not the rows: sqlite-jdbc's row by row read of 20,000 logs (two years of 50 habits) took
     * 20 ms and most of a list's time; the same days concatenated in SQLite take 2–3 ms. Not ordered in SQL (an ORDER BY
     * inside group_concat sorts, 3 ms more): Progress orders the days itself.
     */
    @Override
    public synchronized Map<String, List<HabitLog>> progressLogs(String user, LocalDate amountsFrom) {
        try {
            Map<String, Map<LocalDate, Double>> amounts = new HashMap<>();
            try (PreparedStatement p = connection.prepareStatement("SELECT habit_id, day, amount FROM logs WHERE user = ?"
                    + " AND day >= ? AND amount IS NOT NULL")) {
                p.setString(1, user);
                p.setString(2, amountsFrom.toString());
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        amounts.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(day(rs.getString(2)), rs.getDouble(3));
                    }
                }
            }
            Map<String, List<HabitLog>> logs = new LinkedHashMap<>();
            try (PreparedStatement p = connection.prepareStatement("SELECT habit_id, group_concat(day || done, ',') FROM logs"
                    + " WHERE user = ? GROUP BY habit_id")) {
                p.setString(1, user);
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        String habitId = rs.getString(1);
                        logs.put(habitId, daysDone(habitId, rs.getString(2), amountsFrom, amounts.getOrDefault(habitId, Map.of())));
                    }
                }
            }
            return logs;
        } catch (SQLException e) {
            throw failed("read logs", e);
        }
    }

    /** Reads {@code 2026-12-01 1,2026-12-02 0,...} (a day, then 1 for done or 0 for not), each day's amount looked up. */
    private static List<HabitLog> daysDone(String habitId, String concatenated, LocalDate amountsFrom, Map<LocalDate, Double> amounts) {
        List<HabitLog> logs = new ArrayList<>(concatenated.length() / 12 + 1);
        int from = 0;
        while (from < concatenated.length()) {
            int comma = concatenated.indexOf(',', from);
            int end = comma < 0 ? concatenated.length() : comma;
            LocalDate day = day(concatenated.substring(from, end - 1));
            Double amount = day.isBefore(amountsFrom) ? null : amounts.get(day);
            logs.add(new HabitLog(habitId, day, concatenated.charAt(end - 1) == '1', amount, null));
            from = end + 1;
        }
        return logs;
    }

    /** One habit's logs, oldest first. */
    @Override
    public synchronized List<HabitLog> logs(String user, String habitId) {
        try (PreparedStatement p = connection.prepareStatement("SELECT habit_id, day, done, amount, note FROM logs WHERE user = ?"
                + " AND habit_id = ? ORDER BY day")) {
            p.setString(1, user);
            p.setString(2, habitId);
            return logsOf(p).getOrDefault(habitId, List.of());
        } catch (SQLException e) {
            throw failed("read logs", e);
        }
    }

    private static Map<String, List<HabitLog>> logsOf(PreparedStatement p) throws SQLException {
        Map<String, List<HabitLog>> logs = new LinkedHashMap<>();
        try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                double amount = rs.getDouble(4);
                Double a = rs.wasNull() ? null : amount;
                logs.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                        .add(new HabitLog(rs.getString(1), day(rs.getString(2)), rs.getInt(3) != 0, a, rs.getString(5)));
            }
        }
        return logs;
    }

    /**
     * A stored day, always written as YYYY-MM-DD by {@link LocalDate#toString}, read by hand: {@link LocalDate#parse}'s
     * formatter was the largest cost of reading two years of 50 habits' logs (20,000 days a list).
     */
    static LocalDate day(String stored) {
        if (stored.length() == 10 && stored.charAt(4) == '-' && stored.charAt(7) == '-') {
            try {
                return LocalDate.of(Integer.parseInt(stored, 0, 4, 10), Integer.parseInt(stored, 5, 7, 10),
                        Integer.parseInt(stored, 8, 10, 10));
            } catch (NumberFormatException | DateTimeException e) {
                // not one we wrote: the strict parser below names what is wrong
            }
        }
        return LocalDate.parse(stored);
    }

    private static Habit habit(ResultSet rs) throws SQLException {
        double amount = rs.getDouble(5);
        Double target = rs.wasNull() ? null : amount;
        return new Habit(rs.getString(1), rs.getString(2), rs.getString(3), Schedule.ofStored(rs.getString(4)), target,
                rs.getString(6), ZoneId.of(rs.getString(7)), rs.getInt(8) != 0, Instant.ofEpochMilli(rs.getLong(9)));
    }

    /** A new habit's definition into six parameters from {@code first}: name, name_key, schedule, target_amount, target_unit, zone. */
    private static void bindDefinition(PreparedStatement p, int first, String name, Schedule schedule, Double targetAmount,
                                       String targetUnit, ZoneId zone) throws SQLException {
        p.setString(first, name);
        p.setString(first + 1, Habit.nameKey(name));
        p.setString(first + 2, schedule.stored());
        setDouble(p, first + 3, targetAmount);
        p.setString(first + 4, targetUnit);
        p.setString(first + 5, zone.getId());
    }

    private static void setDouble(PreparedStatement p, int i, Double v) throws SQLException {
        if (v == null) {
            p.setNull(i, Types.REAL);
        } else {
            p.setDouble(i, v);
        }
    }
}
