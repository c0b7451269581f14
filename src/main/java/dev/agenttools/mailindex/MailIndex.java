package dev.agenttools.mailindex;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.agenttools.store.SqliteStore;
import dev.agenttools.tool.Json;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * What the tools have seen of each mailbox, so that a list asked again costs one round trip: each message's summary
 * (its content never changes once delivered) with its current labels, and the historyId the index is synced to.
 * One SQLite file for every account, owner-only, opened as {@link SqliteStore} opens the stores (no symbolic link
 * followed, a rollback journal and no memory mapping, processes sharing it); an account is a server and an address
 * ({@code https://gmail.googleapis.com/|me@example.com}), so one server's or one address's data is never another's.
 * Which address a credential belongs to is kept by the credential's digest (never the credential).
 *
 * <p>A summary is kept as the caller wrote it (its JSON, without the labels) and its labels apart (they change), so
 * that the index knows nothing of Gmail's records. Failures are thrown as the kinds of {@link MailIndexException}:
 * {@link MailIndexException.Refused Refused} (the file is not to be used as it stands),
 * {@link MailIndexException.Damaged Damaged} (SQLite, or an entry, says the file is damaged: set it aside),
 * {@link MailIndexException.Replaced Replaced} (another process did that: open it anew) and
 * {@link MailIndexException.Unavailable Unavailable} (busy, disk full, a closed index: this list goes on without it).
 * Lists reach it through {@link OpenIndex}, which opens it and deals with those. Thread-safe (one connection, used
 * under this object's lock).
 */
public final class MailIndex implements AutoCloseable {
    private static final String SCHEMA = """
            CREATE TABLE IF NOT EXISTS credentials (credential TEXT PRIMARY KEY, account TEXT NOT NULL, seen_ms INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS accounts (account TEXT PRIMARY KEY, history_id TEXT NOT NULL, synced_ms INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS messages (account TEXT NOT NULL, id TEXT NOT NULL, internal_date INTEGER NOT NULL,
                summary TEXT NOT NULL, label_ids TEXT NOT NULL, PRIMARY KEY (account, id));
            CREATE INDEX IF NOT EXISTS messages_by_age ON messages (account, internal_date);
            """;
    private final Path file;
    private final SqliteStore.Opened opened;
    private final Connection connection;
    private final int maxMessagesPerAccount;

    /**
     * One summary fetched whole, as the index keeps it.
     *
     * @param internalDate when Gmail received it (epoch ms): the oldest go first past the size bound
     * @param summary      the summary's JSON without its labels, read back by the caller's reader
     *                     ({@link #summaries})
     * @param labelIds     its labels now (null: none)
     */
    public record Entry(String id, long internalDate, String summary, List<String> labelIds) {
        public Entry {
            if (id == null || summary == null) {
                throw new IllegalArgumentException("an index entry needs an id and a summary");
            }
            labelIds = labelIds == null ? List.of() : labelIds;
        }
    }

    private MailIndex(Path file, SqliteStore.Opened opened, int maxMessagesPerAccount) {
        this.file = file;
        this.opened = opened;
        this.connection = opened.connection();
        this.maxMessagesPerAccount = maxMessagesPerAccount;
    }

    /**
     * Opens the index at {@code file}, creating it (and its folder, owner-only) when missing.
     *
     * @param maxMessagesPerAccount the most messages kept per account; the oldest go first
     * @throws MailIndexException.Refused     when the file or its folder is refused, or held in WAL mode by another
     *                                        process
     * @throws MailIndexException.Damaged     when the file is not a sound database
     * @throws MailIndexException.Unavailable when it cannot be opened now for another reason (the caller lists without it)
     */
    static MailIndex open(Path file, int maxMessagesPerAccount) {
        SqliteStore.Opened opened;
        try {
            // a cache, rebuilt when found damaged: its commits (one per list) do not wait for the disk, which costs
            // 0.5-1 ms on an idle SSD and 10-20 ms when other processes keep it busy, on the list's own time
            opened = SqliteStore.openToWrite(file, false);
        } catch (IOException e) {
            throw new MailIndexException.Refused("the mail index " + file + " is not used: " + e.getMessage(), e);
        } catch (SqliteStore.OpenFailed e) {
            throw failure("cannot open the mail index " + file, e, e.file(), e.fileKey());
        }
        try (Statement s = opened.connection().createStatement()) {
            for (String statement : SCHEMA.split(";")) {
                if (!statement.isBlank()) {
                    s.execute(statement);
                }
            }
        } catch (SQLException e) {
            try {
                opened.connection().close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw failure("cannot open the mail index " + file, e, opened.file(), opened.fileKey());
        }
        return new MailIndex(file, opened, maxMessagesPerAccount);
    }

    /** Damaged when SQLite says the file is, else unavailable. */
    private static MailIndexException failure(String what, SQLException e, Path real, Object fileKey) {
        return SqliteStore.damaged(e) ? new MailIndexException.Damaged(what + ": " + e.getMessage(), e, real, fileKey)
                : new MailIndexException.Unavailable(what + ": " + e.getMessage(), e);
    }

    private MailIndexException failure(String what, SQLException e) {
        return failure(what, e, opened.file(), opened.fileKey());
    }

    Path file() {
        return file;
    }

    /** The account a credential was last seen to act as, if it was. */
    public synchronized Optional<String> accountOf(String credential) {
        return query("SELECT account FROM credentials WHERE credential = ?", List.of(credential), rs -> rs.getString(1)).stream().findFirst();
    }

    public synchronized void remember(String credential, String account) {
        update("INSERT INTO credentials (credential, account, seen_ms) VALUES (?, ?, ?) "
                + "ON CONFLICT (credential) DO UPDATE SET account = excluded.account, seen_ms = excluded.seen_ms",
                List.of(credential, account, System.currentTimeMillis()));
    }

    /** The historyId the account's entries are synced to; empty when the account has none. */
    public synchronized Optional<BigInteger> historyId(String account) {
        return query("SELECT history_id FROM accounts WHERE account = ?", List.of(account), rs -> new BigInteger(rs.getString(1).strip()))
                .stream().findFirst();
    }

    /**
     * The indexed summaries among {@code ids}, by id, each read back by {@code read} from what {@link #put} kept (its
     * summary's JSON and its current labels); what {@code read} throws marks the file damaged.
     */
    public synchronized <T> Map<String, T> summaries(String account, List<String> ids, BiFunction<String, List<String>, T> read) {
        Map<String, T> out = new HashMap<>();
        for (int from = 0; from < ids.size(); from += 500) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + 500));
            List<Object> params = new ArrayList<>();
            params.add(account);
            params.addAll(chunk);
            String marks = String.join(",", Collections.nCopies(chunk.size(), "?"));
            for (Map.Entry<String, T> s : query("SELECT id, summary, label_ids FROM messages WHERE account = ? AND id IN (" + marks + ")",
                    params, rs -> Map.entry(rs.getString(1), read.apply(rs.getString(2), List.of(read(rs.getString(3), String[].class)))))) {
                out.put(s.getKey(), s.getValue());
            }
        }
        return out;
    }

    /** Forgets the account's messages and syncs it anew from {@code historyId} (a first list, or a history too old). */
    public synchronized void reset(String account, BigInteger historyId) {
        transaction(() -> {
            update("DELETE FROM messages WHERE account = ?", List.of(account));
            setHistoryId(account, historyId);
        });
    }

    /**
     * Applies what changed since the index's historyId: each changed message's labels as Gmail gave them, deletions,
     * and the mailbox's new historyId. Messages the index does not hold are left out (they are fetched when listed).
     */
    public synchronized void apply(String account, Map<String, List<String>> labels, Set<String> deleted, BigInteger historyId) {
        transaction(() -> {
            for (Map.Entry<String, List<String>> e : labels.entrySet()) {
                update("UPDATE messages SET label_ids = ? WHERE account = ? AND id = ?",
                        List.of(write(e.getValue()), account, e.getKey()));
            }
            for (String id : deleted) {
                update("DELETE FROM messages WHERE account = ? AND id = ?", List.of(account, id));
            }
            setHistoryId(account, historyId);
        });
    }

    /** Adds summaries fetched whole (a summary read with an error is not kept: the next list fetches it again). */
    public synchronized void put(String account, List<Entry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        transaction(() -> {
            for (Entry e : entries) {
                update("INSERT INTO messages (account, id, internal_date, summary, label_ids) VALUES (?, ?, ?, ?, ?) "
                                + "ON CONFLICT (account, id) DO UPDATE SET summary = excluded.summary, label_ids = excluded.label_ids",
                        List.of(account, e.id(), e.internalDate(), e.summary(), write(e.labelIds())));
            }
            // the size bound: the oldest mail goes first (lists ask for the newest)
            update("DELETE FROM messages WHERE account = ? AND id IN (SELECT id FROM messages WHERE account = ? "
                    + "ORDER BY internal_date DESC LIMIT -1 OFFSET ?)", List.of(account, account, maxMessagesPerAccount));
        });
    }

    /** Entries per account, for `cache status`. */
    synchronized Map<String, Long> counts() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Object[] row : query("SELECT a.account, (SELECT COUNT(*) FROM messages m WHERE m.account = a.account) FROM accounts a "
                + "ORDER BY a.account", List.of(), rs -> new Object[] {rs.getString(1), rs.getLong(2)})) {
            out.put((String) row[0], (Long) row[1]);
        }
        return out;
    }

    /** Forgets everything. */
    synchronized void clear() {
        transaction(() -> {
            update("DELETE FROM messages", List.of());
            update("DELETE FROM accounts", List.of());
            update("DELETE FROM credentials", List.of());
        });
    }

    private void setHistoryId(String account, BigInteger historyId) {
        update("INSERT INTO accounts (account, history_id, synced_ms) VALUES (?, ?, ?) "
                        + "ON CONFLICT (account) DO UPDATE SET history_id = excluded.history_id, synced_ms = excluded.synced_ms",
                List.of(account, historyId.toString(), System.currentTimeMillis()));
    }

    private interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> List<T> query(String sql, List<?> params, Row<T> row) {
        stillTheFile();
        try (PreparedStatement p = prepare(sql, params); ResultSet rs = p.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                try {
                    out.add(row.read(rs));
                } catch (RuntimeException e) {
                    // a NULL, a number that is not one, or JSON that is not an entry: what a damaged page reads as
                    throw new MailIndexException.Damaged("a damaged entry in the mail index " + file + ": " + e, e, opened.file(), opened.fileKey());
                }
            }
            return out;
        } catch (SQLException e) {
            throw failure("the mail index " + file + " cannot be read", e);
        }
    }

    /**
     * Throws when the path names another file than the one opened (another process set this one aside and made a
     * new one): SQLite finds a journal by the file's name, so a transaction on the moved file would leave its
     * journal beside the new one, for the new one's next reader to roll back into it as if it were its own.
     */
    private void stillTheFile() {
        Object now = SqliteStore.fileKey(opened.file());
        if (opened.fileKey() != null && !opened.fileKey().equals(now)) {
            throw new MailIndexException.Replaced("the mail index " + file + " was replaced by another process (set aside as damaged?)");
        }
    }

    private void update(String sql, List<?> params) {
        try (PreparedStatement p = prepare(sql, params)) {
            p.executeUpdate();
        } catch (SQLException e) {
            throw failure("the mail index " + file + " cannot be written", e);
        }
    }

    private PreparedStatement prepare(String sql, List<?> params) throws SQLException {
        PreparedStatement p = connection.prepareStatement(sql);
        for (int i = 0; i < params.size(); i++) {
            p.setObject(i + 1, params.get(i));
        }
        return p;
    }

    /**
     * Runs {@code work} in one transaction that takes the write lock first (BEGIN IMMEDIATE): one that read first
     * and then wrote could meet another process's writer halfway and fail at once instead of waiting its turn.
     */
    private void transaction(Runnable work) {
        stillTheFile();
        try (Statement s = connection.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            try {
                work.run();
                s.execute("COMMIT");
            } catch (RuntimeException e) {
                try {
                    s.execute("ROLLBACK");
                } catch (SQLException rollingBack) {
                    e.addSuppressed(rollingBack); // SQLite rolled back already (after some errors it does)
                }
                throw e;
            }
        } catch (SQLException e) {
            throw failure("the mail index " + file + " cannot be written", e);
        }
    }

    private static String write(List<String> labels) {
        try {
            return Json.MAPPER.writeValueAsString(labels);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write an index entry's labels", e); // a list of strings always can
        }
    }

    private static <T> T read(String json, Class<T> type) {
        try {
            return Json.MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not an entry: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // closing: nothing left to do with it
        }
    }
}
