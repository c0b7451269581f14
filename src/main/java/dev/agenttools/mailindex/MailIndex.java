package dev.agenttools.gmail;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.agenttools.tool.Json;
import dev.agenttools.store.SqliteStore;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the tools have seen of each mailbox, so that a list asked again costs one round trip: each message's summary
 * (its content never changes once delivered) with its current labels, and the historyId the index is synced to.
 * One SQLite file for every account, owner-only, opened as {@link SqliteStore} opens the stores (no symbolic link
 * followed, a rollback journal and no memory mapping, processes sharing it); an account is a server and an address
 * ({@code https://gmail.googleapis.com/|me@example.com}), so one server's or one address's data is never another's.
 * Which address a credential belongs to is kept by the credential's digest (never the credential).
 *
 * <p>Failures are thrown as four kinds of IllegalStateException: {@link Refused} (the file is not to be used as it
 * stands), {@link Damaged} (SQLite, or an entry, says the file is damaged: set it aside), {@link Replaced} (another
 * process did that: open it anew) and the plain kind (busy, disk full, a closed index: this list goes on without it). Thread-safe (one
 * connection, used under this object's lock).
 */
final class MailIndex implements AutoCloseable {
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

    /** The file is not used as it stands (a link, a folder others may write, an older version's WAL file in use). */
    static final class Refused extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Refused(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The path names another file than the one opened: open it anew. */
    static final class Replaced extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Replaced(String message) {
            super(message);
        }
    }

    /**
     * The file is damaged: a page SQLite cannot read, not a database at all, or an entry that is not one. Names the
     * file by its real path and which file it was (its file key), so that only that file is ever set aside.
     */
    static final class Damaged extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final transient Path file;
        private final transient Object fileKey;

        Damaged(String message, Throwable cause, Path file, Object fileKey) {
            super(message, cause);
            this.file = file;
            this.fileKey = fileKey;
        }

        /**
         * Moves the damaged file aside as {@code <file>.damaged-<time>} (with its journal), never deleting it, unless
         * the path names another file by now (another process set it aside and started a new one).
         *
         * @return where it went, or null when it was not moved
         */
        Path setAside() throws IOException {
            return SqliteStore.setAside(file, fileKey);
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
     * @throws Refused               when the file or its folder is refused, or held in WAL mode by another process
     * @throws Damaged               when the file is not a sound database
     * @throws IllegalStateException when it cannot be opened now for another reason (the caller lists without it)
     */
    static MailIndex open(Path file, int maxMessagesPerAccount) {
        SqliteStore.Opened opened;
        try {
            // a cache, rebuilt when found damaged: its commits (one per list) do not wait for the disk, which costs
            // 0.5-1 ms on an idle SSD and 10-20 ms when other processes keep it busy, on the list's own time
            opened = SqliteStore.openToWrite(file, false);
        } catch (IOException e) {
            throw new Refused("the mail index " + file + " is not used: " + e.getMessage(), e);
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

    /** Damaged when SQLite says the file is, else the plain kind. */
    private static IllegalStateException failure(String what, SQLException e, Path real, Object fileKey) {
        return SqliteStore.damaged(e) ? new Damaged(what + ": " + e.getMessage(), e, real, fileKey)
                : new IllegalStateException(what + ": " + e.getMessage(), e);
    }

    private IllegalStateException failure(String what, SQLException e) {
        return failure(what, e, opened.file(), opened.fileKey());
    }

    Path file() {
        return file;
    }

    /** The account a credential was last seen to act as, if it was. */
    synchronized Optional<String> accountOf(String credential) {
        return query("SELECT account FROM credentials WHERE credential = ?", List.of(credential), rs -> rs.getString(1)).stream().findFirst();
    }

    synchronized void remember(String credential, String account) {
        update("INSERT INTO credentials (credential, account, seen_ms) VALUES (?, ?, ?) "
                + "ON CONFLICT (credential) DO UPDATE SET account = excluded.account, seen_ms = excluded.seen_ms",
                List.of(credential, account, System.currentTimeMillis()));
    }

    /** The historyId the account's entries are synced to; empty when the account has none. */
    synchronized Optional<BigInteger> historyId(String account) {
        return query("SELECT history_id FROM accounts WHERE account = ?", List.of(account), rs -> new BigInteger(rs.getString(1).strip()))
                .stream().findFirst();
    }

    /** The indexed summaries among {@code ids}, with their current labels, by id. */
    synchronized Map<String, EmailSummary> summaries(String account, List<String> ids) {
        Map<String, EmailSummary> out = new HashMap<>();
        for (int from = 0; from < ids.size(); from += 500) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + 500));
            List<Object> params = new ArrayList<>();
            params.add(account);
            params.addAll(chunk);
            String marks = String.join(",", java.util.Collections.nCopies(chunk.size(), "?"));
            for (EmailSummary s : query("SELECT summary, label_ids FROM messages WHERE account = ? AND id IN (" + marks + ")", params,
                    rs -> withLabels(read(rs.getString(1)), List.of(read(rs.getString(2), String[].class))))) {
                out.put(s.id(), s);
            }
        }
        return out;
    }

    /** Forgets the account's messages and syncs it anew from {@code historyId} (a first list, or a history too old). */
    synchronized void reset(String account, BigInteger historyId) {
        transaction(() -> {
            update("DELETE FROM messages WHERE account = ?", List.of(account));
            setHistoryId(account, historyId);
        });
    }

    /**
     * Applies what changed since the index's historyId: each changed message's labels as Gmail gave them, deletions,
     * and the mailbox's new historyId. Messages the index does not hold are left out (they are fetched when listed).
     */
    synchronized void apply(String account, GmailService.Changes changes) {
        transaction(() -> {
            for (Map.Entry<String, List<String>> e : changes.labels().entrySet()) {
                update("UPDATE messages SET label_ids = ? WHERE account = ? AND id = ?",
                        List.of(write(e.getValue()), account, e.getKey()));
            }
            for (String id : changes.deleted()) {
                update("DELETE FROM messages WHERE account = ? AND id = ?", List.of(account, id));
            }
            setHistoryId(account, changes.historyId());
        });
    }

    /** Adds summaries fetched whole (a summary read with an error is not kept: the next list fetches it again). */
    synchronized void put(String account, List<EmailSummary> summaries, Map<String, Long> internalDates) {
        if (summaries.isEmpty()) {
            return;
        }
        transaction(() -> {
            for (EmailSummary s : summaries) {
                update("INSERT INTO messages (account, id, internal_date, summary, label_ids) VALUES (?, ?, ?, ?, ?) "
                                + "ON CONFLICT (account, id) DO UPDATE SET summary = excluded.summary, label_ids = excluded.label_ids",
                        List.of(account, s.id(), internalDates.getOrDefault(s.id(), 0L), write(withLabels(s, null)), // labels kept apart
                                write(s.labelIds() == null ? List.of() : s.labelIds())));
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

    /** The summary with these labels and the unread flag they give (as MessageDecoder derives it); null: neither. */
    private static EmailSummary withLabels(EmailSummary s, List<String> labels) {
        return new EmailSummary(s.id(), s.threadId(), s.subject(), s.from(), s.to(), s.date(), s.dateSource(), s.dateRaw(),
                s.snippet(), labels, labels == null ? null : labels.contains("UNREAD"), s.hasAttachments());
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
                    throw new Damaged("a damaged entry in the mail index " + file + ": " + e, e, opened.file(), opened.fileKey());
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
            throw new Replaced("the mail index " + file + " was replaced by another process (set aside as damaged?)");
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

    private static String write(Object value) {
        try {
            return Json.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an index entry", e);
        }
    }

    private static EmailSummary read(String json) {
        return read(json, EmailSummary.class);
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
