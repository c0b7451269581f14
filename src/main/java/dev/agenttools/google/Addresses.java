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
    /** The longest address an answer may give (RFC 5321's 64-character local part, @, 255-character domain). */
    static final int MAX_ADDRESS_CHARS = 320;

    /** What is known of one credential. */
    private static final class Credential {
        String address;
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
    private final Map<String, Credential> credentials = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Credential> eldest) {
            return size() > MAX_CREDENTIALS;
        }
    };

    Addresses() {
        this(RETRY_AFTER);
    }

    Addresses(Duration retryAfter) {
        this.retryAfter = retryAfter;
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
            c.failed = false;
        } else if (c.address == null) {
            c.failed = true;
            c.failedAt = System.nanoTime();
        }
    }

    /** The credential's address, from an answer made for another reason; ignored unless it is an address. */
    synchronized void learned(String key, String address) {
        if (plausible(address)) {
            credentials.computeIfAbsent(key, k -> new Credential()).address = address;
        }
    }

    /** The address learned for the credential, if it is known. */
    synchronized Optional<String> addressOf(String key) {
        Credential c = credentials.get(key);
        return Optional.ofNullable(c == null ? null : c.address);
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
