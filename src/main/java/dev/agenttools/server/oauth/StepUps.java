package dev.agenttools.server.oauth;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;

import java.time.Duration;
import java.time.Instant;

/**
 * The grants whose token was just refused a tool for want of scope (403 {@code insufficient_scope}), with the wider
 * scope the refusal named, for a short while: the next refresh of such a grant that names no scope is answered
 * {@code invalid_grant} (authorize again with that scope) instead of another token of the same narrow scope.
 *
 * <p>Why: MCP TypeScript SDK 1.x answers a 403 {@code insufficient_scope} by calling its {@code auth()}, which refreshes
 * whenever it holds a refresh token (sending no {@code scope}: RFC 6749 section 6 lets a refresh only keep or narrow
 * the scope), then retries the call, meets the same 403 and gives up ("Server returned 403 after trying upscoping").
 * On {@code invalid_grant} from the refresh, that {@code auth()} drops its tokens and starts an authorization with the
 * challenge's scope: the step-up. SDK 2.x re-authorizes without refreshing, so it never meets this. A client that
 * refreshes within the window for another reason (its access token expired just then) is sent to authorize once
 * more, which the tool it was refused needs anyway. Each mark is spent by the refresh it answers.
 *
 * <p>Kept in memory, per instance (the 403 and the SDK's refresh come within milliseconds of each other, on one
 * connection's worth of requests): behind a balancer that sends the refresh to another instance, the client meets the
 * 1.x failure above. Bounded in entries ({@link #MAX_ENTRIES}, least recently used go first) and in time
 * ({@link #WINDOW}, on the server's clock). Thread-safe (Guava's cache is).
 */
final class StepUps {
    /** How long after a 403 {@code insufficient_scope} a refresh of its grant is sent to authorize again. */
    static final Duration WINDOW = Duration.ofSeconds(60);
    /** Grants remembered at most (about 200 bytes each). */
    static final int MAX_ENTRIES = 10_000;

    private record Mark(String scope, Instant until) {
    }

    private final Duration window;
    private final Cache<String, Mark> marks;

    StepUps(int maxEntries, Duration window) {
        this.window = window;
        // Guava's own expiry (the system ticker) only frees memory; the answer is bounded by until, on the server's clock
        this.marks = CacheBuilder.newBuilder().maximumSize(maxEntries).expireAfterWrite(window).build();
    }

    /** The grant's token was refused for want of {@code scope} (the wider scope the challenge named) at {@code now}. */
    void asked(String grant, String scope, Instant now) {
        marks.put(grant, new Mark(scope, now.plus(window)));
    }

    /** The wider scope the grant was refused for within the window before {@code now}, spent; else null. */
    String take(String grant, Instant now) {
        Mark mark = marks.asMap().remove(grant);
        return mark == null || !now.isBefore(mark.until()) ? null : mark.scope();
    }

    boolean isEmpty() {
        return marks.size() == 0;
    }
}
