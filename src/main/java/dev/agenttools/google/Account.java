package dev.agenttools.google;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Whose Google account a call acts as, for what is kept per user (pacing, caches): Gmail's quota and concurrency
 * limits are per user, so a process serving many users paces each on its own. Known by its credential: the stored
 * sign-in, or an access token, kept only as a SHA-256 digest (never the token). A token refreshed (Google's last an
 * hour) starts afresh.
 *
 * @param id {@code stored-sign-in}, or {@code token-} and 16 hex digits of the token's digest
 */
public record Account(String id) {
    public static final Account STORED_SIGN_IN = new Account("stored-sign-in");

    /** The account a bearer token acts as; equal tokens are the same account, and no two differ only by hash collisions. */
    public static Account ofToken(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return new Account("token-" + HexFormat.of().formatHex(digest, 0, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
