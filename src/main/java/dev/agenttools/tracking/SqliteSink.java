package dev.agenttools.tracking;

import dev.agenttools.store.SqliteStore;
import dev.agenttools.tool.Diagnostics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Call records in a SQLite file (sqlite-jdbc), opened as {@link SqliteStore} opens the stores: owner-only in a folder
 * of the user's own, never through a symbolic link, with a rollback journal and no memory mapping, so that several
 * processes can write to one file (one at a time), a crash loses at most the batch being written, never the file,
 * and another process damaging the files costs records, never this process. Batches go in one transaction each,
 * which waits for the disk ({@code synchronous=FULL}: a power cut does not damage the file either). Opening the store
 * moves the records one-shot calls left in its {@link Spool} into it first.
 */
public final class SqliteSink implements CallSink {
    private static final String SCHEMA = """
            CREATE TABLE IF NOT EXISTS calls (
              ts_ms INTEGER NOT NULL, tool_name TEXT NOT NULL, agent_name TEXT NOT NULL, duration_ms REAL NOT NULL,
              backend TEXT, strategy TEXT NOT NULL, status TEXT NOT NULL, error_code TEXT, items INTEGER NOT NULL,
              request_id TEXT NOT NULL)""";
    /** The spool files whose lines are in {@code calls}: a file read twice is inserted once (see {@link Spool}). */
    private static final String INGESTED_SCHEMA = "CREATE TABLE IF NOT EXISTS spool_ingested (name TEXT PRIMARY KEY, ts_ms INTEGER NOT NULL)";
    private static final String INSERT = "INSERT INTO calls (ts_ms, tool_name, agent_name, duration_ms, backend, strategy, status,"
            + " error_code, items, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    /**
     * INSERT unless the same call is there: its start, request id, tool and duration (to the nanosecond, so two calls
     * are the same only when they are one), found through the (tool_name, ts_ms) index. For the records that may be in
     * already: a dead process's journal, and spool files (which may hold a journal's records, see {@link Tracking}).
     */
    private static final String INSERT_ONCE = "INSERT INTO calls (ts_ms, tool_name, agent_name, duration_ms, backend, strategy,"
            + " status, error_code, items, request_id) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM calls"
            + " WHERE tool_name = ?2 AND ts_ms = ?1 AND request_id = ?10 AND duration_ms = ?4)";
    private final Path file;
    private final Connection connection;
    private final Ingested ingested;

    /**
     * What opening the store moved in from its spool.
     *
     * @param files     spool files whose lines were inserted (not those another ingester had inserted already)
     * @param records   records inserted
     * @param malformed lines of those files that were not a call record, skipped
     */
    record Ingested(int files, int records, int malformed) {
        static final Ingested NOTHING = new Ingested(0, 0, 0);
    }

    /**
     * Opens (creating the file, its folders and the tables when missing) a store to write and read, then ingests its
     * spool. A spool that cannot be ingested now stays for the next open (stderr says why): it does not stop the store.
     *
     * @throws IllegalStateException naming the file when SQLite cannot open it
     * @throws UncheckedIOException  naming the path when the file or its folder is refused (a symbolic link, someone
     *                               else's, a folder others may write), or with a {@link SqliteStore.HeldInWalMode}
     *                               cause when an older version's WAL-mode file is open in another process
     */
    public SqliteSink(Path file) {
        this.file = file;
        Connection c = null;
        try {
            c = SqliteStore.openToWrite(file, true).connection();
            connection = c;
            try (Statement s = connection.createStatement()) {
                s.execute(SCHEMA);
                s.execute("CREATE INDEX IF NOT EXISTS calls_by_tool_time ON calls (tool_name, ts_ms)");
                s.execute("CREATE INDEX IF NOT EXISTS calls_by_time ON calls (ts_ms)");
                s.execute(INGESTED_SCHEMA);
            }
            ingested = ingestSpool();
            connection.setAutoCommit(false);
            connection.commit();
        } catch (SQLException e) {
            closeAfter(c, e);
            throw new IllegalStateException("cannot open the call store " + file + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("the call store " + file + " is not used: " + e.getMessage(), e);
        }
    }

    private SqliteSink(Path file, Connection readOnly) {
        this.file = file;
        this.connection = readOnly;
        this.ingested = Ingested.NOTHING;
    }

    /**
     * Moves the spooled records in, each taken spool file in one transaction (BEGIN IMMEDIATE, so that the check for
     * the file's name and the inserts see no other writer in between) that also records the file's name; deletes the
     * file after the commit. Runs before the connection leaves auto-commit mode. Never throws: what is not ingested
     * stays pending for the next open.
     */
    private Ingested ingestSpool() {
        Spool spool = new Spool(file);
        int files = 0;
        int records = 0;
        int malformed = 0;
        try {
            for (Path taken : spool.take()) {
                Spool.Lines lines = Spool.read(taken);
                if (lines == null) {
                    continue; // another ingester finished it
                }
                String name = taken.getFileName().toString();
                boolean inserted;
                try (Statement s = connection.createStatement()) {
                    s.execute("BEGIN IMMEDIATE");
                    try {
                        inserted = !alreadyIngested(name);
                        if (inserted) {
                            try (PreparedStatement insert = connection.prepareStatement(INSERT_ONCE)) {
                                for (CallRecord r : lines.records()) {
                                    bind(insert, r);
                                    insert.executeUpdate();
                                }
                            }
                            try (PreparedStatement done = connection.prepareStatement("INSERT INTO spool_ingested (name, ts_ms) VALUES (?, ?)")) {
                                done.setString(1, name);
                                done.setLong(2, System.currentTimeMillis());
                                done.executeUpdate();
                            }
                        }
                        s.execute("COMMIT");
                    } catch (SQLException | RuntimeException e) {
                        try {
                            s.execute("ROLLBACK");
                        } catch (SQLException rollingBack) {
                            e.addSuppressed(rollingBack);
                        }
                        throw e;
                    }
                }
                Spool.remove(taken);
                if (inserted) {
                    files++;
                    records += lines.records().size();
                    malformed += lines.malformed();
                }
            }
        } catch (IOException | SQLException e) {
            Diagnostics.warn("the spooled call records of " + file + " stay pending (" + records
                    + " ingested before this): " + e.getMessage());
        }
        if (malformed > 0) {
            Diagnostics.warn("skipped " + malformed + " malformed lines of the call spool " + spool.file());
        }
        return new Ingested(files, records, malformed);
    }

    private boolean alreadyIngested(String spoolFile) throws SQLException {
        try (PreparedStatement q = connection.prepareStatement("SELECT 1 FROM spool_ingested WHERE name = ?")) {
            q.setString(1, spoolFile);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** What opening this store moved in from its spool. */
    Ingested ingested() {
        return ingested;
    }

    /**
     * Opens an existing store to read. With spooled records pending, that means opening it to write (creating it if
     * need be), since they must be ingested to be counted; otherwise read-only, creating nothing (no folder, file or
     * table), and empty when there is no file or no calls table yet, which means no call has been recorded there. A
     * file an older version left in WAL mode is converted first (see {@link SqliteStore#openToRead}).
     */
    static Optional<SqliteSink> openToRead(Path file) {
        try {
            if (new Spool(file).hasPending()) {
                return Optional.of(new SqliteSink(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look for the call spool of " + file + ": " + e.getMessage(), e);
        }
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        Connection c = null;
        try {
            c = SqliteStore.openToRead(file, true).connection();
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'calls'")) {
                if (!rs.next()) {
                    c.close();
                    return Optional.empty();
                }
            }
            c.setAutoCommit(false);
            return Optional.of(new SqliteSink(file, c));
        } catch (SQLException e) {
            closeAfter(c, e);
            throw new IllegalStateException("cannot read the call store " + file + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the call store " + file + ": " + e.getMessage(), e);
        }
    }

    /** Closes {@code c} (when open) after {@code e}, which keeps any failure of the close as suppressed. */
    private static void closeAfter(Connection c, SQLException e) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (SQLException closing) {
            e.addSuppressed(closing);
        }
    }

    @Override
    public String name() {
        return "sqlite";
    }

    public Path file() {
        return file;
    }

    /**
     * Busy or locked: another process held the file past the 10 s busy timeout (to open it as well as to write).
     * Kept and tried again; any other failure (a damaged file, a full disk, a refused path) is not.
     */
    @Override
    public boolean mayPass(Exception refusal) {
        return busy(refusal);
    }

    static boolean busy(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            // the primary result codes SQLITE_BUSY and SQLITE_LOCKED (sqlite-jdbc's error code is the primary one)
            if (t instanceof SQLException sql && (sql.getErrorCode() == 5 || sql.getErrorCode() == 6)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public synchronized void write(List<CallRecord> batch) throws SQLException {
        write(batch, INSERT);
    }

    @Override
    public synchronized void replay(List<CallRecord> batch) throws SQLException {
        write(batch, INSERT_ONCE);
    }

    private void write(List<CallRecord> batch, String sql) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
            for (CallRecord r : batch) {
                bind(insert, r);
                insert.addBatch();
            }
            insert.executeBatch();
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        }
    }

    private static void bind(PreparedStatement insert, CallRecord r) throws SQLException {
        insert.setLong(1, r.ts().toEpochMilli());
        insert.setString(2, r.toolName());
        insert.setString(3, r.agentName());
        insert.setDouble(4, r.durationMs());
        insert.setString(5, r.backend());
        insert.setString(6, r.strategy());
        insert.setString(7, r.status());
        insert.setString(8, r.errorCode());
        insert.setInt(9, r.items());
        insert.setString(10, r.requestId());
    }

    @Override
    public synchronized List<CallRecord> read(Instant since, String tool) throws SQLException {
        String sql = "SELECT ts_ms, tool_name, agent_name, duration_ms, backend, strategy, status, error_code, items, request_id"
                + " FROM calls WHERE ts_ms >= ?" + (tool == null ? "" : " AND tool_name = ?") + " ORDER BY ts_ms";
        try (PreparedStatement q = connection.prepareStatement(sql)) {
            q.setLong(1, since.toEpochMilli());
            if (tool != null) {
                q.setString(2, tool);
            }
            List<CallRecord> out = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    out.add(new CallRecord(Instant.ofEpochMilli(rs.getLong(1)), rs.getString(2), rs.getString(3), rs.getDouble(4),
                            rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getInt(9), rs.getString(10)));
                }
            } finally {
                connection.commit();
            }
            return out;
        }
    }

    /**
     * Statistics per tool and backend, computed by SQL: nearest-rank percentiles from window functions (SQLite has
     * no percentile aggregate), plus an "all" row per tool. A failed call has no backend and is grouped by the
     * strategy it asked for, but only calls the fallback answered count as fallbacks: the registry's own fallback
     * (backend {@code fallback}) and the Python client's (backend {@code python}, written by agent_tools.tracking). Rows: per tool, "all" first,
     * then by calls, most first, ties by backend name. {@link StatsCalculator} must give the same rows.
     */
    public synchronized List<StatsRow> stats(Instant since, String tool) throws SQLException {
        String filter = "ts_ms >= ?" + (tool == null ? "" : " AND tool_name = ?");
        String sql = """
                WITH f AS (
                  SELECT tool_name, COALESCE(backend, strategy) AS backend, (calls.backend IS 'fallback' OR (calls.backend IS 'python' AND status = 'ok')) AS fell_back,
                         status, duration_ms FROM calls WHERE %s
                  UNION ALL
                  SELECT tool_name, 'all', (calls.backend IS 'fallback' OR (calls.backend IS 'python' AND status = 'ok')), status, duration_ms FROM calls WHERE %s),
                r AS (SELECT f.*, ROW_NUMBER() OVER w AS rn, COUNT(*) OVER (PARTITION BY tool_name, backend) AS n
                      FROM f WINDOW w AS (PARTITION BY tool_name, backend ORDER BY duration_ms))
                SELECT tool_name, backend, MAX(n) AS calls,
                       SUM(status = 'error') * 1.0 / MAX(n) AS error_rate,
                       SUM(fell_back) * 1.0 / MAX(n) AS fallback_rate,
                       MIN(CASE WHEN rn * 100 >= 50 * n THEN duration_ms END) AS p50,
                       MIN(CASE WHEN rn * 100 >= 90 * n THEN duration_ms END) AS p90,
                       MIN(CASE WHEN rn * 100 >= 99 * n THEN duration_ms END) AS p99
                FROM r
                GROUP BY tool_name, backend
                ORDER BY tool_name, backend = 'all' DESC, calls DESC, backend""".formatted(filter, filter);
        try (PreparedStatement q = connection.prepareStatement(sql)) {
            int i = 1;
            for (int part = 0; part < 2; part++) {
                q.setLong(i++, since.toEpochMilli());
                if (tool != null) {
                    q.setString(i++, tool);
                }
            }
            List<StatsRow> rows = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    rows.add(new StatsRow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getDouble(4), rs.getDouble(5),
                            rs.getDouble(6), rs.getDouble(7), rs.getDouble(8)));
                }
            } finally {
                connection.commit();
            }
            return rows;
        }
    }

    @Override
    public synchronized void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            Diagnostics.warn("closing the call store " + file + " failed: " + e.getMessage());
        }
    }
}
