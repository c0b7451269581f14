package dev.agenttools.server.oauth;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Access tokens a DynamoDB store has checked lately, by digest, so that a client's next calls cost no round trip
 * (docs/mcp-authorization.md: the 0.5 ms p50). Bounded in entries ({@code maxEntries}, least recently used go
 * first) and in time: an entry answers for at most {@code lifetime} after its check, and never past its token's
 * expiry. What this instance ends (a token, a grant, an account) leaves the cache at once; what another instance ends
 * is seen here within {@code lifetime}. Only tokens found good are kept: an unknown token always goes to the store.
 * Thread-safe (Guava's cache is).
 */
final class CheckedTokens {
    private record Entry(OAuthStore.Grant grant, Instant until) {
    }

    private final Duration lifetime;
    private final Cache<String, Entry> cache;
    /** Counts the drops: a check that started before one must not keep what it read (it may be what was dropped). */
    private final AtomicLong drops = new AtomicLong();

    CheckedTokens(int maxEntries, Duration lifetime) {
        this.lifetime = lifetime;
        // Guava's own expiry (the system ticker) only frees memory; the answer is bounded by until, on the store's clock
        this.cache = CacheBuilder.newBuilder().maximumSize(maxEntries).expireAfterWrite(lifetime).build();
    }

    /** The checked token's grant, or null when not here or checked longer than the lifetime ago. */
    OAuthStore.Grant get(String digest, Instant now) {
        Entry e = cache.getIfPresent(digest);
        if (e == null) {
            return null;
        }
        if (!now.isBefore(e.until())) {
            cache.asMap().remove(digest, e);
            return null;
        }
        return e.grant();
    }

    /** What {@link #put} is to be given: taken before the store is read. */
    long mark() {
        return drops.get();
    }

    /** Keeps a token just found good, unless something was dropped since {@code mark} (it may have been this token). */
    void put(String digest, OAuthStore.Grant grant, Instant now, long mark) {
        Instant until = now.plus(lifetime);
        Entry e = new Entry(grant, grant.expiresAt().isBefore(until) ? grant.expiresAt() : until);
        if (drops.get() == mark) {
            cache.put(digest, e);
            if (drops.get() != mark) {
                cache.asMap().remove(digest, e); // a drop ran while it was put: it may have missed it
            }
        }
    }

    void dropToken(String digest) {
        drops.incrementAndGet();
        cache.invalidate(digest);
    }

    void dropGrant(String grant) {
        drop(g -> g.grant().equals(grant));
    }

    void dropAccount(String account) {
        drop(g -> g.account().equals(account));
    }

    private void drop(Predicate<OAuthStore.Grant> which) {
        drops.incrementAndGet();
        // a scan of at most maxEntries: grants and accounts end rarely (a revocation, a reuse, Google refusing)
        cache.asMap().values().removeIf(e -> which.test(e.grant()));
    }

    long size() {
        return cache.size();
    }
}
