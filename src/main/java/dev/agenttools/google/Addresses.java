package dev.agenttools.google;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who each credential is: the address of the Google account it acts as, once learned, so that all the access tokens
 * of one user (a refreshed token is a new one every hour) are one {@link Account} to the pacer and the caches. Keyed
 * by the credential's key (a digest, never the credential) and bounded like the per-account maps: past
 * {@value #MAX_CREDENTIALS} credentials the least recently used is forgotten (and asked again if seen again).
 * Thread-safe.
 *
 * <p>When to ask: not before a credential's second session in this process. A one-shot {@code call} process answers
 * one call and exits, so an answer to "who is this" would be quota spent for nothing there; a process that sees a
 * credential again (a resident server, {@code serve}, {@code mcp}) is one where knowing it pays. This rule needs no
 * setting from the process, and costs a long-running server only that a credential's first call is paced as the
 * credential alone. A lookup that failed is asked again by a later session, at most once every
 * {@link #RETRY_AFTER}, so that a credential that cannot be asked does not cost a request on every call.
 */
final class Addresses {
    static final int MAX_CREDENTIALS = 1_000;
    /** How long a lookup may take, in the background, before it is given up (and asked again later). */
    static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(10);
    static final Duration RETRY_AFTER = Duration.ofMinutes(1);
    /**
     * How long an address Google gave for a credential stands as proof of who the caller is ({@link #confirmed}) before
     * it is asked again. Why: the Habit tools key a user's habits by it and call Google for nothing else, so without
     * asking again a credential the user revoked (signed out, removed the app's access) would keep reaching their habits
     * for as long as this process remembers it. Five minutes bounds that, for one users.getProfile (1 quota unit) per
     * credential every five minutes of use.
     */
    static final Duration CONFIRMED_FOR = Duration.ofMinutes(5);
    /** The longest address an answer may give (RFC 5321's 64-character local part, @, 255-character domain). */
    static final int MAX_ADDRESS_CHARS = 320;

    /** What is known of one credential. */
    private static final class Credential {
        String address;
        /** When Google last gave the address ({@link System#nanoTime()}); meaningful when {@link #address} is set. */
        long confirmedAt;
        /** Sessions opened, counted up to 2. */
        int sessions;
        boolean asking;
        /** When its last lookup failed ({@link System#nanoTime()}); meaningful when {@link #failed}. */
        long failedAt;
        boolean failed;
    }

    /**
     * What a new session of a credential finds.
     *
     * @param address the address, when known (as the API gave it), else null
     * @param ask     whether this session is the one to ask who the credential is
     */
    record Seen(String address, boolean ask) {
    }

    private final Duration retryAfter;
    private final Duration confirmedFor;
    private final Map<String, Credential> credentials = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Credential> eldest) {
            return size() > MAX_CREDENTIALS;
        }
    };

    Addresses() {
        this(RETRY_AFTER, CONFIRMED_FOR);
    }

    Addresses(Duration retryAfter, Duration confirmedFor) {
        this.retryAfter = retryAfter;
        this.confirmedFor = confirmedFor;
    }

    /**
     * A session of the credential {@code key} opens: what is known, and whether it should ask (when it may, the address
     * is unknown, nobody is asking, this is the credential's second session or later, and no lookup failed lately).
     * When it says ask, the caller must report the answer with {@link #answered}.
     */
    synchronized Seen opened(String key, boolean mayAsk) {
        Credential c = credentials.computeIfAbsent(key, k -> new Credential());
        if (c.sessions < 2) {
            c.sessions++; // only "a second one" matters
        }
        boolean ask = mayAsk && c.address == null && !c.asking && c.sessions >= 2
                && (!c.failed || System.nanoTime() - c.failedAt >= retryAfter.toNanos());
        if (ask) {
            c.asking = true;
        }
        return new Seen(c.address, ask);
    }

    /** The credential's lookup ended: with its address, or null (or something that is not an address) when it failed. */
    synchronized void answered(String key, String address) {
        Credential c = credentials.computeIfAbsent(key, k -> new Credential());
        c.asking = false;
        if (plausible(address)) {
            c.address = address;
            c.confirmedAt = System.nanoTime();
            c.failed = false;
        } else if (c.address == null) {
            c.failed = true;
            c.failedAt = System.nanoTime();
        }
    }

    /** The credential's address, from an answer made for another reason; ignored unless it is an address. */
    synchronized void learned(String key, String address) {
        if (plausible(address)) {
            Credential c = credentials.computeIfAbsent(key, k -> new Credential());
            c.address = address;
            c.confirmedAt = System.nanoTime();
        }
    }

    /** The address learned for the credential, if it is known. */
    synchronized Optional<String> addressOf(String key) {
        Credential c = credentials.get(key);
        return Optional.ofNullable(c == null ? null : c.address);
    }

    /**
     * The address Google gave for the credential within the last {@link #CONFIRMED_FOR}, if it did: what may stand for
     * the caller's identity without asking again (the pacing and caches take {@link #addressOf}, however old).
     */
    synchronized Optional<String> confirmed(String key) {
        Credential c = credentials.get(key);
        return c != null && c.address != null && System.nanoTime() - c.confirmedAt < confirmedFor.toNanos()
                ? Optional.of(c.address) : Optional.empty();
    }

    synchronized int size() {
        return credentials.size();
    }

    /** An address as Google gives it: something@somewhere, no spaces or control characters, not too long. */
    static boolean plausible(String address) {
        if (address == null || address.length() > MAX_ADDRESS_CHARS) {
            return false;
        }
        int at = address.lastIndexOf('@');
        if (at < 1 || at == address.length() - 1) {
            return false;
        }
        return address.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f || ch > 0x9f && !Character.isWhitespace(ch));
    }
}
