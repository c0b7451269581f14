package dev.agenttools.server.oauth;

import dev.agenttools.store.SqliteStore;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * The {@link OAuthStore} in one SQLite file that several instances on one machine share (opened as the
 * other stores are: owner-only, in a folder others may not write, never through a link, durable commits). Secrets are
 * kept as SHA-256 digests ({@link Secrets#digest}) or, where they must be read back, as AES-GCM ciphertexts
 * ({@link TokenCipher}). One-time values (a pending sign-in, a code, a refresh token) are spent by one statement whose
 * count of changed rows says who spent it, so two instances never both spend one.
 *
 * <p>Thread-safe: one connection, used under this object's lock (each statement takes microseconds).
 */
final class SqliteOAuthStore implements OAuthStore {
    private final Connection c;

    SqliteOAuthStore(Path file) throws IOException, SQLException {
        this.c = SqliteStore.openToWrite(file, true).connection();
        try (Statement s = c.createStatement()) {
            // signed_in: 1 once tokens were issued to it; unused_until: until then, when it goes
            s.execute("CREATE TABLE IF NOT EXISTS clients (id TEXT PRIMARY KEY, name TEXT, redirect_uris TEXT NOT NULL,"
                    + " created_at INTEGER NOT NULL, signed_in INTEGER NOT NULL DEFAULT 0, unused_until INTEGER)");
            s.execute("CREATE TABLE IF NOT EXISTS pending (state_digest TEXT PRIMARY KEY, client_id TEXT NOT NULL,"
                    + " redirect_uri TEXT NOT NULL, client_state TEXT, challenge TEXT NOT NULL, scope TEXT NOT NULL,"
                    + " resource TEXT NOT NULL, key_id TEXT NOT NULL, google_verifier BLOB NOT NULL, expires_at INTEGER NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS codes (digest TEXT PRIMARY KEY, client_id TEXT NOT NULL, redirect_uri TEXT NOT NULL,"
                    + " challenge TEXT NOT NULL, scope TEXT NOT NULL, resource TEXT NOT NULL, account TEXT NOT NULL,"
                    + " expires_at INTEGER NOT NULL, spent INTEGER NOT NULL DEFAULT 0, grant_id TEXT, remember_until INTEGER)");
            for (String table : List.of("access_tokens", "refresh_tokens")) {
                s.execute("CREATE TABLE IF NOT EXISTS " + table + " (digest TEXT PRIMARY KEY, account TEXT NOT NULL,"
                        + " client_id TEXT NOT NULL, scope TEXT NOT NULL, resource TEXT NOT NULL, grant_id TEXT NOT NULL,"
                        + " expires_at INTEGER NOT NULL" + (table.equals("refresh_tokens")
                        ? ", spent INTEGER NOT NULL DEFAULT 0, spent_at INTEGER" : "") + ")");
                s.execute("CREATE INDEX IF NOT EXISTS " + table + "_grant ON " + table + " (grant_id)");
                s.execute("CREATE INDEX IF NOT EXISTS " + table + "_account ON " + table + " (account)");
            }
            addColumn(s, "refresh_tokens", "spent_at", "INTEGER");
            addColumn(s, "codes", "spent", "INTEGER NOT NULL DEFAULT 0");
            addColumn(s, "codes", "grant_id", "TEXT");
            addColumn(s, "codes", "remember_until", "INTEGER");
            if (addColumn(s, "clients", "signed_in", "INTEGER NOT NULL DEFAULT 0")) {
                // a file made before: a client with tokens has signed in; one without keeps its old 24 h
                s.execute("UPDATE clients SET signed_in = 1 WHERE id IN (SELECT client_id FROM refresh_tokens)");
            }
            if (addColumn(s, "clients", "unused_until", "INTEGER")) {
                s.execute("UPDATE clients SET unused_until = created_at + 86400000 WHERE unused_until IS NULL");
            }
            addColumn(s, "pending", "consented", "INTEGER NOT NULL DEFAULT 0");
            s.execute("CREATE TABLE IF NOT EXISTS consents (digest TEXT PRIMARY KEY, client_id TEXT NOT NULL,"
                    + " redirect_uri TEXT NOT NULL, client_state TEXT, challenge TEXT NOT NULL, scope TEXT NOT NULL,"
                    + " resource TEXT NOT NULL, login_hint TEXT, browser TEXT NOT NULL, account TEXT, expires_at INTEGER NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS approvals (account TEXT NOT NULL, client_id TEXT NOT NULL,"
                    + " expires_at INTEGER NOT NULL, PRIMARY KEY (account, client_id))");
            // grants ended, so that a rotation racing the end (a reuse on another instance) stores nothing that works
            s.execute("CREATE TABLE IF NOT EXISTS ended_grants (grant_id TEXT PRIMARY KEY, ended_at INTEGER NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS google_accounts (account TEXT PRIMARY KEY, key_id TEXT NOT NULL,"
                    + " refresh_token BLOB NOT NULL, updated_at INTEGER NOT NULL)");
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /**
     * Adds a column a file made by an older version lacks ({@code refresh_tokens.spent_at}, before the reuse grace: its
     * rows spent then have none, so a reuse of one ends its grant, as it did; the codes' and clients' columns of the
     * code-reuse check and the unused-client expiry). Of two instances opening such a file at once, the second's ALTER
     * fails on the column the first added, which is then there.
     *
     * @return whether this call added it
     */
    private static boolean addColumn(Statement s, String table, String column, String type) throws SQLException {
        if (hasColumn(s, table, column)) {
            return false;
        }
        try {
            s.execute("ALTER TABLE " + table + " ADD COLUMN " + column + " " + type);
            return true;
        } catch (SQLException e) {
            if (!hasColumn(s, table, column)) {
                throw e;
            }
            return false;
        }
    }

    private static boolean hasColumn(Statement s, String table, String column) throws SQLException {
        try (ResultSet r = s.executeQuery("SELECT 1 FROM pragma_table_info('" + table + "') WHERE name = '" + column + "'")) {
            return r.next();
        }
    }

    @Override
    public synchronized void putClient(Client client, Instant unusedUntil) throws SQLException {
        // the redirect URIs one per line: a URI has no line break
        update("INSERT INTO clients (id, name, redirect_uris, created_at, unused_until) VALUES (?, ?, ?, ?, ?)",
                client.id(), client.name(), String.join("\n", client.redirectUris()), client.createdAt().toEpochMilli(),
                unusedUntil.toEpochMilli());
    }

    /** Keeps a client that has not signed in at least until {@code until} (a sign-in it started, a code issued to it). */
    private void keepUnused(String clientId, Instant until) throws SQLException {
        update("UPDATE clients SET unused_until = MAX(unused_until, ?) WHERE id = ? AND signed_in = 0",
                until.toEpochMilli(), clientId);
    }

    @Override
    public synchronized Client client(String id, Instant now) throws SQLException {
        return one("SELECT name, redirect_uris, created_at FROM clients WHERE id = ? AND (signed_in = 1 OR unused_until > ?)",
                r -> new Client(id, r.getString(1), Arrays.asList(r.getString(2).split("\n")), Instant.ofEpochMilli(r.getLong(3))),
                id, now.toEpochMilli());
    }

    @Override
    public synchronized int unusedClients(Instant registeredAfter, Instant now) throws SQLException {
        return one("SELECT COUNT(*) FROM clients WHERE signed_in = 0 AND created_at > ?", r -> r.getInt(1),
                registeredAfter.toEpochMilli());
    }

    @Override
    public synchronized int purgeIdleClients(Instant now, Instant registeredBefore) throws SQLException {
        // an unused client's sign-ins and codes push unused_until on: past it, nothing of it is under way
        return update("DELETE FROM clients WHERE (signed_in = 0 AND unused_until <= ?)"
                + " OR (signed_in = 1 AND created_at < ?"
                + " AND id NOT IN (SELECT client_id FROM pending) AND id NOT IN (SELECT client_id FROM consents)"
                + " AND id NOT IN (SELECT client_id FROM codes WHERE spent = 0)"
                + " AND id NOT IN (SELECT client_id FROM access_tokens) AND id NOT IN (SELECT client_id FROM refresh_tokens))",
                now.toEpochMilli(), registeredBefore.toEpochMilli());
    }

    @Override
    public synchronized void putPending(String stateDigest, Pending p) throws SQLException {
        update("INSERT INTO pending (state_digest, client_id, redirect_uri, client_state, challenge, scope, resource, key_id,"
                        + " google_verifier, expires_at, consented) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                stateDigest, p.clientId(), p.redirectUri(), p.clientState(), p.challenge(), p.scope(), p.resource(),
                p.googleVerifier().keyId(), p.googleVerifier().bytes(), p.expiresAt().toEpochMilli(), p.consented() ? 1 : 0);
        keepUnused(p.clientId(), p.expiresAt());
    }

    /** The pending sign-in of this state, spent (null when unknown, already spent or expired). */
    @Override
    public synchronized Pending takePending(String stateDigest, Instant now) throws SQLException {
        return one("DELETE FROM pending WHERE state_digest = ? RETURNING client_id, redirect_uri, client_state, challenge,"
                + " scope, resource, key_id, google_verifier, expires_at, consented", r -> r.getLong(9) <= now.toEpochMilli() ? null
                : new Pending(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5), r.getString(6),
                new TokenCipher.Sealed(r.getString(7), r.getBytes(8)), Instant.ofEpochMilli(r.getLong(9)), r.getInt(10) == 1),
                stateDigest);
    }

    @Override
    public synchronized void putConsent(String digest, Consent k) throws SQLException {
        update("INSERT INTO consents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", digest, k.clientId(), k.redirectUri(),
                k.clientState(), k.challenge(), k.scope(), k.resource(), k.loginHint(), k.browser(), k.account(),
                k.expiresAt().toEpochMilli());
        keepUnused(k.clientId(), k.expiresAt());
    }

    @Override
    public synchronized Consent takeConsent(String digest, Instant now) throws SQLException {
        return one("DELETE FROM consents WHERE digest = ? RETURNING client_id, redirect_uri, client_state, challenge, scope,"
                + " resource, login_hint, browser, account, expires_at", r -> r.getLong(10) <= now.toEpochMilli() ? null
                : new Consent(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5), r.getString(6),
                r.getString(7), r.getString(8), r.getString(9), Instant.ofEpochMilli(r.getLong(10))), digest);
    }

    public synchronized void putApproval(String account, String clientId, Instant expiresAt) throws SQLException {
        update("INSERT OR REPLACE INTO approvals VALUES (?, ?, ?)", account, clientId, expiresAt.toEpochMilli());
    }

    @Override
    public synchronized boolean approved(String account, String clientId, Instant now) throws SQLException {
        return one("SELECT 1 FROM approvals WHERE account = ? AND client_id = ? AND expires_at > ?", r -> true,
                account, clientId, now.toEpochMilli()) != null;
    }

    @Override
    public synchronized void putCode(String digest, Code code) throws SQLException {
        update("INSERT INTO codes (digest, client_id, redirect_uri, challenge, scope, resource, account, expires_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", digest, code.clientId(), code.redirectUri(), code.challenge(),
                code.scope(), code.resource(), code.account(), code.expiresAt().toEpochMilli());
        keepUnused(code.clientId(), code.expiresAt());
    }

    /**
     * Redeems the code ({@link OAuthStore#redeemCode}): one UPDATE marks it spent with its grant, so exactly one
     * instance redeems it; the row is kept, spent, until {@code rememberUntil}, for a reuse to find the grant.
     */
    @Override
    public synchronized Redeemed redeemCode(String digest, String grant, Instant now, Instant rememberUntil) throws SQLException {
        Code fresh = one("UPDATE codes SET spent = 1, grant_id = ?, remember_until = ? WHERE digest = ? AND spent = 0"
                + " AND expires_at > ? RETURNING client_id, redirect_uri, challenge, scope, resource, account, expires_at",
                r -> new Code(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5), r.getString(6),
                        Instant.ofEpochMilli(r.getLong(7))), grant, rememberUntil.toEpochMilli(), digest, now.toEpochMilli());
        if (fresh != null) {
            return new Redeemed.Fresh(fresh);
        }
        String first = one("SELECT grant_id FROM codes WHERE digest = ? AND spent = 1 AND remember_until > ?",
                r -> r.getString(1), digest, now.toEpochMilli());
        if (first == null) {
            return new Redeemed.None();
        }
        endGrant(first);
        return new Redeemed.Reused(first);
    }

    /** Stores an access token's and a refresh token's digests together (one transaction). */
    @Override
    public synchronized void putTokens(String accessDigest, Grant access, String refreshDigest, Grant refresh) throws SQLException {
        transaction(() -> {
            if (one("SELECT 1 FROM ended_grants WHERE grant_id = ?", r -> true, refresh.grant()) != null) {
                return false; // ended by a reuse of its refresh token: the client gets tokens that do not work
            }
            insertToken("access_tokens", accessDigest, access);
            insertToken("refresh_tokens", refreshDigest, refresh);
            update("UPDATE clients SET signed_in = 1 WHERE id = ? AND signed_in = 0", refresh.clientId());
            return true;
        });
    }

    private void insertToken(String table, String digest, Grant g) throws SQLException {
        update("INSERT INTO " + table + " (digest, account, client_id, scope, resource, grant_id, expires_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?)", digest, g.account(), g.clientId(), g.scope(), g.resource(), g.grant(),
                g.expiresAt().toEpochMilli());
    }

    /** The access token of this digest, null when unknown or expired. */
    @Override
    public synchronized Grant accessToken(String digest, Instant now) throws SQLException {
        return one("SELECT account, client_id, scope, resource, grant_id, expires_at FROM access_tokens WHERE digest = ?"
                + " AND expires_at > ?", SqliteOAuthStore::grant, digest, now.toEpochMilli());
    }

    /** A refresh token's grant and when it was spent (null: not yet, or spent before the column was added). */
    private record SpentRow(Grant grant, Instant spentAt) {
    }

    /**
     * Spends a refresh token ({@link OAuthStore#spendRefreshToken}): one UPDATE sets {@code spent} and {@code spent_at}
     * together, so exactly one instance spends it, and {@code spent_at}, never changed after, decides every reuse.
     */
    @Override
    public synchronized Spent spendRefreshToken(String digest, String clientId, Instant now, Duration grace) throws SQLException {
        Grant fresh = one("UPDATE refresh_tokens SET spent = 1, spent_at = ? WHERE digest = ? AND spent = 0"
                + " RETURNING account, client_id, scope, resource, grant_id, expires_at", SqliteOAuthStore::grant,
                now.toEpochMilli(), digest);
        if (fresh != null) {
            return fresh.expiresAt().isAfter(now) ? new Spent.Fresh(fresh) : new Spent.None();
        }
        // unknown (or its grant or account ended: their rows are deleted), or spent before
        SpentRow before = one("SELECT account, client_id, scope, resource, grant_id, expires_at, spent_at FROM refresh_tokens"
                + " WHERE digest = ?", r -> {
                    Grant grant = grant(r);
                    long at = r.getLong(7);
                    return new SpentRow(grant, r.wasNull() ? null : Instant.ofEpochMilli(at));
                }, digest);
        if (before == null) {
            return new Spent.None();
        }
        if (OAuthStore.isRetry(before.grant(), before.spentAt(), clientId, now, grace)) {
            return new Spent.Again(before.grant());
        }
        endGrant(before.grant().grant());
        return new Spent.Reused(before.grant().grant());
    }

    /** Ends a grant: its access tokens and refresh tokens, spent or not. */
    @Override
    public synchronized void endGrant(String grant) throws SQLException {
        transaction(() -> {
            for (String table : List.of("access_tokens", "refresh_tokens")) {
                update("DELETE FROM " + table + " WHERE grant_id = ?", grant);
            }
            // only for purge, which keeps it past any refresh token's life
            update("INSERT OR IGNORE INTO ended_grants VALUES (?, ?)", grant, System.currentTimeMillis());
            return true;
        });
    }

    /** Ends one access token (RFC 7009 for an access token); its grant's refresh token still works. */
    @Override
    public synchronized void endAccessToken(String digest) throws SQLException {
        update("DELETE FROM access_tokens WHERE digest = ?", digest);
    }

    /** What a refresh token (spent or not) stands for, or null (an ended grant's are deleted). */
    @Override
    public synchronized Grant refreshToken(String digest) throws SQLException {
        return one("SELECT account, client_id, scope, resource, grant_id, expires_at FROM refresh_tokens WHERE digest = ?",
                SqliteOAuthStore::grant, digest);
    }

    /** Forgets an account: its Google refresh token and every token of ours issued for it (Google refused the grant). */
    @Override
    public synchronized void endAccount(String account) throws SQLException {
        for (String table : List.of("access_tokens", "refresh_tokens", "codes", "google_accounts")) {
            update("DELETE FROM " + table + " WHERE account = ?", account);
        }
    }

    @Override
    public synchronized void putGoogleRefreshToken(String account, TokenCipher.Sealed sealed, Instant now) throws SQLException {
        update("INSERT INTO google_accounts VALUES (?, ?, ?, ?) ON CONFLICT (account) DO UPDATE SET key_id = excluded.key_id,"
                + " refresh_token = excluded.refresh_token, updated_at = excluded.updated_at",
                account, sealed.keyId(), sealed.bytes(), now.toEpochMilli());
    }

    /** The account's sealed Google refresh token, or null. */
    @Override
    public synchronized TokenCipher.Sealed googleRefreshToken(String account) throws SQLException {
        return one("SELECT key_id, refresh_token FROM google_accounts WHERE account = ?",
                r -> new TokenCipher.Sealed(r.getString(1), r.getBytes(2)), account);
    }

    /** Deletes what has expired (refresh tokens spent or not, once past their lifetime). */
    @Override
    public synchronized void purge(Instant now) throws SQLException {
        for (String table : List.of("pending", "consents", "approvals", "access_tokens", "refresh_tokens")) {
            update("DELETE FROM " + table + " WHERE expires_at <= ?", now.toEpochMilli());
        }
        // a spent code is kept until remember_until, for a reuse to find its grant
        update("DELETE FROM codes WHERE (spent = 0 AND expires_at <= ?) OR (spent = 1 AND (remember_until IS NULL"
                + " OR remember_until <= ?))", now.toEpochMilli(), now.toEpochMilli());
        // a grant's refresh tokens live at most 365 days (OAuthSettings): its end need not be kept longer
        update("DELETE FROM ended_grants WHERE ended_at <= ?", now.minus(Duration.ofDays(366)).toEpochMilli());
    }

    private static Grant grant(ResultSet r) throws SQLException {
        return new Grant(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5),
                Instant.ofEpochMilli(r.getLong(6)));
    }

    @Override
    public synchronized void close() throws SQLException {
        c.close();
    }

    /** Maps a result row to a value (null: as if there were no row). */
    private interface Row<T> {
        T from(ResultSet r) throws SQLException;
    }

    /** A transaction's work: true to commit, false to roll back. */
    private interface Work {
        boolean run() throws SQLException;
    }

    /** Runs {@code sql} with {@code values} bound: the count of rows it changed. */
    private int update(String sql, Object... values) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            bind(p, values);
            return p.executeUpdate();
        }
    }

    /** Runs {@code sql} (a query, or a statement with RETURNING) with {@code values} bound: its first row's value, or null. */
    private <T> T one(String sql, Row<T> row, Object... values) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            bind(p, values);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? row.from(r) : null;
            }
        }
    }

    /** Runs {@code work} as one transaction, rolled back when it says so or fails. */
    private void transaction(Work work) throws SQLException {
        c.setAutoCommit(false);
        try {
            if (work.run()) {
                c.commit();
            } else {
                c.rollback();
            }
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * Binds {@code values} to {@code s}'s parameters in order, each by its type (a String, a long, an int, bytes; null
     * as SQL NULL): one line where a statement of eleven columns took eleven.
     */
    private static void bind(PreparedStatement s, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            switch (values[i]) {
                case null -> s.setNull(i + 1, Types.NULL);
                case String v -> s.setString(i + 1, v);
                case Long v -> s.setLong(i + 1, v);
                case Integer v -> s.setInt(i + 1, v);
                case byte[] v -> s.setBytes(i + 1, v);
                default -> throw new IllegalArgumentException("no SQLite binding for a " + values[i].getClass().getSimpleName());
            }
        }
    }
}
