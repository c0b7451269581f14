package dev.agenttools.server.oauth;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Each user's Google access token, kept in memory by account and refreshed from the stored (encrypted) refresh token
 * before it expires: when less than min(60 s, half its lifetime) is left. One refresh runs at a time per account; calls
 * that need the account's token meanwhile wait for it and take its result. Each instance refreshes on its own (Google
 * accepts concurrent refreshes of one refresh token), so instances need no lock between them. A token Google refused in
 * a call is renewed at once ({@link #renewed}), under the same lock. When Google refuses the refresh token, the account is forgotten (its stored token and every token of ours for it), so that its MCP client
 * signs the user in again. Thread-safe.
 */
final class GoogleTokens {
    private static final Duration MAX_MARGIN = Duration.ofSeconds(60);
    /** Accounts whose tokens are kept; past it, entries whose token has expired are dropped. */
    private static final int MAX_ACCOUNTS = 100_000;

    /** The account has no usable sign-in here any more: its client must sign the user in again. */
    static final class SignedOut extends Exception {
        private static final long serialVersionUID = 1L;

        SignedOut(String message) {
            super(message);
        }
    }

    private record Cached(String token, Instant refreshAt, Instant expiresAt) {
        @Override
        public String toString() {
            return "Cached[refreshAt=" + refreshAt + ", (token not shown)]";
        }
    }

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        volatile Cached cached;
    }

    private final OAuthStore store;
    private final TokenCipher cipher;
    private final Google google;
    private final Clock clock;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    GoogleTokens(OAuthStore store, TokenCipher cipher, Google google, Clock clock) {
        this.store = store;
        this.cipher = cipher;
        this.google = google;
        this.clock = clock;
    }

    /** Keeps a sign-in's tokens: the refresh token encrypted in the store (when Google sent one), the access token here. */
    void signedIn(String account, Google.Tokens tokens) throws SQLException {
        if (tokens.refreshToken() != null) {
            store.putGoogleRefreshToken(account, cipher.seal(tokens.refreshToken(), account), clock.instant());
        }
        entry(account).cached = cached(tokens);
    }

    /** The account's Google access token, refreshed first when it is near its expiry. */
    String accessToken(String account) throws SignedOut, Google.Unavailable, SQLException {
        Entry e = entry(account);
        Cached c = e.cached;
        if (c != null && clock.instant().isBefore(c.refreshAt())) {
            return c.token();
        }
        e.lock.lock();
        try {
            c = e.cached; // refreshed by the call this one waited for?
            if (c != null && clock.instant().isBefore(c.refreshAt())) {
                return c.token();
            }
            return refresh(e, account, c);
        } finally {
            e.lock.unlock();
        }
    }

    /**
     * A new Google access token for the account, after Google refused {@code refused} in a call (the user may have
     * revoked the grant, or the token ended early): refreshed at once, one refresh at a time per account; calls that
     * were refused the same token meanwhile take the token the first one got.
     *
     * @throws SignedOut when Google refuses the refresh too: the account is forgotten, its client must sign in again
     */
    String renewed(String account, String refused) throws SignedOut, Google.Unavailable, SQLException {
        Entry e = entry(account);
        e.lock.lock();
        try {
            Cached c = e.cached;
            if (c != null && !c.token().equals(refused) && clock.instant().isBefore(c.refreshAt())) {
                return c.token(); // renewed by the call this one waited for
            }
            return refresh(e, account, null);
        } finally {
            e.lock.unlock();
        }
    }

    /**
     * Refreshes under the entry's lock.
     *
     * @param usable the cached token to fall back on while it lasts when Google cannot be reached (null: none)
     */
    private String refresh(Entry e, String account, Cached usable) throws SignedOut, Google.Unavailable, SQLException {
        TokenCipher.Sealed sealed = store.googleRefreshToken(account);
        if (sealed == null) {
            e.cached = null;
            throw new SignedOut("the account's Google sign-in is not stored here any more; sign in again");
        }
        String refreshToken;
        try {
            refreshToken = cipher.open(sealed, account);
        } catch (TokenCipher.Unreadable unreadable) {
            e.cached = null;
            throw new SignedOut("the account's stored Google sign-in cannot be read (" + unreadable.getMessage() + "); sign in again");
        }
        Google.Tokens tokens;
        try {
            tokens = google.refresh(refreshToken);
        } catch (Google.Refused refused) {
            e.cached = null;
            store.endAccount(account);
            throw new SignedOut("Google refused the account's sign-in (revoked or expired); sign in again");
        } catch (Google.Unavailable unavailable) {
            if (usable != null && clock.instant().isBefore(usable.expiresAt())) {
                return usable.token(); // not expired yet: the refresh is tried again on the next call
            }
            throw unavailable;
        }
        if (tokens.refreshToken() != null && !tokens.refreshToken().equals(refreshToken)) {
            store.putGoogleRefreshToken(account, cipher.seal(tokens.refreshToken(), account), clock.instant());
        } else if (!sealed.keyId().equals(cipher.currentKeyId())) {
            // a key rotation under way: the token that still works is written again under the new key, so that an
            // active user's row leaves the old key within one Google token lifetime (an hour) and the old key can go
            store.putGoogleRefreshToken(account, cipher.seal(refreshToken, account), clock.instant());
        }
        Cached fresh = cached(tokens);
        e.cached = fresh;
        return fresh.token();
    }

    private Entry entry(String account) {
        if (entries.size() > MAX_ACCOUNTS) {
            Instant now = clock.instant();
            entries.entrySet().removeIf(en -> {
                Cached c = en.getValue().cached;
                return (c == null || !now.isBefore(c.expiresAt())) && !en.getValue().lock.isLocked();
            });
        }
        return entries.computeIfAbsent(account, a -> new Entry());
    }

    private Cached cached(Google.Tokens tokens) {
        Instant now = clock.instant();
        Duration margin = tokens.lifetime().dividedBy(2).compareTo(MAX_MARGIN) < 0 ? tokens.lifetime().dividedBy(2) : MAX_MARGIN;
        return new Cached(tokens.accessToken(), now.plus(tokens.lifetime()).minus(margin), now.plus(tokens.lifetime()));
    }
}
