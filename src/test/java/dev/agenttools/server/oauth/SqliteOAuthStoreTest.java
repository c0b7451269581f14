package dev.agenttools.server.oauth;

import dev.agenttools.store.SqliteStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The store's promises on one SQLite file that two instances (two connections) share. */
class SqliteOAuthStoreTest extends OAuthStoreContract {
    @TempDir
    Path dir;
    private Path file;
    private int n;

    @Override
    void newPlace() {
        file = dir.resolve("oauth-" + n++ + ".db");
    }

    @Override
    OAuthStore open() throws Exception {
        return new SqliteOAuthStore(file);
    }

    @Test
    void aFileMadeBeforeTheReuseGraceGetsItsColumnAndTheTokensSpentThenNoGrace() throws Exception {
        Path old = dir.resolve("before-grace.db");
        String spentBefore = Secrets.next(Secrets.REFRESH_TOKEN);
        String unspent = Secrets.next(Secrets.REFRESH_TOKEN);
        // refresh_tokens as the store made it before spent_at, with one token spent then and one not
        try (Connection c = SqliteStore.openToWrite(old, true).connection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE refresh_tokens (digest TEXT PRIMARY KEY, account TEXT NOT NULL, client_id TEXT NOT NULL,"
                    + " scope TEXT NOT NULL, resource TEXT NOT NULL, grant_id TEXT NOT NULL, expires_at INTEGER NOT NULL,"
                    + " spent INTEGER NOT NULL DEFAULT 0)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO refresh_tokens VALUES (?, ?, ?, 'gmail.readonly', ?, ?, ?, ?)")) {
                for (String token : new String[] {spentBefore, unspent}) {
                    p.setString(1, Secrets.digest(token));
                    p.setString(2, ACCOUNT);
                    p.setString(3, CLIENT);
                    p.setString(4, RESOURCE);
                    p.setString(5, token == spentBefore ? "grant_old" : "grant_new");
                    p.setLong(6, NOW.plusSeconds(86_400).toEpochMilli());
                    p.setInt(7, token == spentBefore ? 1 : 0);
                    p.executeUpdate();
                }
            }
        }
        // two instances opening it at once: one adds the column, the other finds it added
        List<OAuthStore> both = together(() -> new SqliteOAuthStore(old), () -> new SqliteOAuthStore(old));
        try (OAuthStore a = both.get(0); OAuthStore b = both.get(1)) {
            assertThat(spend(a, unspent, NOW)).isInstanceOf(OAuthStore.Spent.Fresh.class);
            assertThat(spend(b, unspent, NOW.plusSeconds(1))).isInstanceOf(OAuthStore.Spent.Again.class);
            assertThat(spend(b, spentBefore, NOW)).as("spent at an unknown time: no grace")
                    .isEqualTo(new OAuthStore.Spent.Reused("grant_old"));
        }
    }

    @Test
    void aFileMadeBeforeTheUnusedClientExpiryAndTheCodeReuseCheckKeepsItsClientsAsTheyWereAndLearnsBoth() throws Exception {
        Path old = dir.resolve("before-unused.db");
        // clients and codes as the store made them before: one client with a token, one without
        try (Connection c = SqliteStore.openToWrite(old, true).connection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE clients (id TEXT PRIMARY KEY, name TEXT, redirect_uris TEXT NOT NULL, created_at INTEGER NOT NULL)");
            s.execute("CREATE TABLE codes (digest TEXT PRIMARY KEY, client_id TEXT NOT NULL, redirect_uri TEXT NOT NULL,"
                    + " challenge TEXT NOT NULL, scope TEXT NOT NULL, resource TEXT NOT NULL, account TEXT NOT NULL,"
                    + " expires_at INTEGER NOT NULL)");
            s.execute("CREATE TABLE refresh_tokens (digest TEXT PRIMARY KEY, account TEXT NOT NULL, client_id TEXT NOT NULL,"
                    + " scope TEXT NOT NULL, resource TEXT NOT NULL, grant_id TEXT NOT NULL, expires_at INTEGER NOT NULL,"
                    + " spent INTEGER NOT NULL DEFAULT 0, spent_at INTEGER)");
            for (String id : new String[] {CLIENT, "agt_client_idle"}) {
                s.execute("INSERT INTO clients VALUES ('" + id + "', null, 'http://127.0.0.1:9/cb', " + NOW.toEpochMilli() + ")");
            }
            s.execute("INSERT INTO refresh_tokens VALUES ('d', '" + ACCOUNT + "', '" + CLIENT + "', 'gmail.readonly', '"
                    + RESOURCE + "', 'grant_old', " + NOW.plus(Duration.ofDays(30)).toEpochMilli() + ", 0, null)");
        }
        try (OAuthStore a = new SqliteOAuthStore(old)) {
            Instant day = NOW.plus(Duration.ofHours(23));
            assertThat(a.client(CLIENT, NOW.plus(Duration.ofDays(2)))).as("it had signed in: lives on").isNotNull();
            assertThat(a.client("agt_client_idle", day)).as("never signed in: the day it had before").isNotNull();
            assertThat(a.client("agt_client_idle", NOW.plus(Duration.ofHours(24)))).isNull();
            assertThat(a.unusedClients(NOW.minusSeconds(1), NOW)).isEqualTo(1);
            String code = Secrets.digest(Secrets.next(Secrets.CODE));
            a.putCode(code, code(Duration.ofSeconds(60)));
            assertThat(redeem(a, code, "grant_1", NOW)).isInstanceOf(OAuthStore.Redeemed.Fresh.class);
            assertThat(redeem(a, code, "grant_2", NOW)).isEqualTo(new OAuthStore.Redeemed.Reused("grant_1"));
        }
    }

    @Test
    void aFileMadeBeforeTheConsentPageGetsItsColumnAndItsPendingSignInsCountAsNotConsented() throws Exception {
        Path old = dir.resolve("before-consent.db");
        String state = Secrets.digest(Secrets.next(Secrets.STATE));
        TokenCipher.Sealed verifier = CIPHER.seal("v", state);
        // pending as the store made it before the consent page, with a sign-in under way then
        try (Connection c = SqliteStore.openToWrite(old, true).connection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE pending (state_digest TEXT PRIMARY KEY, client_id TEXT NOT NULL,"
                    + " redirect_uri TEXT NOT NULL, client_state TEXT, challenge TEXT NOT NULL, scope TEXT NOT NULL,"
                    + " resource TEXT NOT NULL, key_id TEXT NOT NULL, google_verifier BLOB NOT NULL, expires_at INTEGER NOT NULL)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO pending VALUES (?, ?, 'http://127.0.0.1:9/cb', NULL, 'ch',"
                    + " 'gmail.readonly', ?, ?, ?, ?)")) {
                p.setString(1, state);
                p.setString(2, CLIENT);
                p.setString(3, RESOURCE);
                p.setString(4, verifier.keyId());
                p.setBytes(5, verifier.bytes());
                p.setLong(6, NOW.plusSeconds(600).toEpochMilli());
                p.executeUpdate();
            }
        }
        List<OAuthStore> both = together(() -> new SqliteOAuthStore(old), () -> new SqliteOAuthStore(old));
        try (OAuthStore a = both.get(0); OAuthStore b = both.get(1)) {
            OAuthStore.Pending before = a.takePending(state, NOW);
            assertThat(before.consented()).as("so its account must have approved the client").isFalse();
            String now = Secrets.digest(Secrets.next(Secrets.STATE));
            b.putPending(now, new OAuthStore.Pending(CLIENT, "http://127.0.0.1:9/cb", null, "ch", "gmail.readonly", RESOURCE,
                    verifier, NOW.plusSeconds(600), true));
            assertThat(a.takePending(now, NOW).consented()).isTrue();
        }
    }
}
