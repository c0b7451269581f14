package dev.agenttools.google;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Whose Google account a call acts as, for what is kept per user (pacing, caches): Gmail's quota and concurrency
 * limits are per user, so a process serving many users paces each on its own. Known by its address once the
 * connection has learned who the credential is ({@link GoogleConnection}), so that every access token of one user
 * (Google's last an hour) is one account; until then by the credential alone: the stored sign-in, or an access
 * token, kept only as a SHA-256 digest (never the token). Equal when their ids are.
 *
 * <p>A class rather than a record only for {@link #formerly}, which equality ignores: an account known by its
 * address remembers what its credential was known as before, so that what was kept for that ({@link PerAccount})
 * carries over instead of starting afresh when the address becomes known.
 */
public final class Account {
    public static final Account STORED_SIGN_IN = new Account("stored-sign-in", null, false);

    private final String id;
    private final Account formerly;
    /** Whether it is known by its address (else by its credential alone). */
    private final boolean byAddress;
    /** {@link #shareKey}, made once: a digest, asked before every request when instances share pacing. */
    private volatile String shareKey;

    private Account(String id, Account formerly, boolean byAddress) {
        this.id = id;
        this.formerly = formerly;
        this.byAddress = byAddress;
    }

    /** The account a bearer token acts as; equal tokens are the same account, and no two differ only by hash collisions. */
    public static Account ofToken(String token) {
        return new Account("token-" + digest(token), null, false);
    }

    /**
     * The Google account with this address (Google's addresses are case-insensitive), reached with a credential that
     * was known as {@code formerly} (or null) before its address was.
     */
    static Account ofAddress(String address, Account formerly) {
        return new Account(address.toLowerCase(Locale.ROOT), formerly, true);
    }

    /**
     * The account's address in lower case; or, until it is known, {@code stored-sign-in}, or {@code token-} and 16 hex
     * digits of the token's digest.
     */
    public String id() {
        return id;
    }

    /**
     * A name for the account that instances may share in a store: 16 hex digits of its id's SHA-256 (an address or a
     * token's digest never leaves the process as such).
     */
    public String shareKey() {
        String key = shareKey;
        if (key == null) {
            key = "acct-" + digest(id); // a race makes it twice, the same
            shareKey = key;
        }
        return key;
    }

    /** Whether the account is known by its address, rather than by its credential alone. */
    boolean byAddress() {
        return byAddress;
    }

    /** What the credential this account was reached with was known as before its address was known; null if nothing. */
    Account formerly() {
        return formerly;
    }

    /** 16 hex digits (64 bits) of a secret's SHA-256: a key for it that does not reveal it. */
    static String digest(String secret) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Account a && a.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "Account[id=" + id + "]";
    }
}
