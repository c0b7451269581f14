package dev.agenttools.emulator.http;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * How long the server takes: one latency (± jitter) per HTTP request, plus a small cost per batch part, plus the
 * handshake on a connection's first request. Seeded; thread-safe.
 */
public final class LatencyModel {
    private final SplittableRandom random;
    private final long latencyNanos;
    private final long jitterNanos;
    private final long handshakeNanos;
    private final long partNanos;

    /** @param batchPartCost what each part of a batch adds to its one latency */
    public LatencyModel(long seed, Duration latency, Duration jitter, Duration handshake, Duration batchPartCost) {
        this.random = new SplittableRandom(seed ^ 0x1A7E_11C7L);
        this.latencyNanos = latency.toNanos();
        this.jitterNanos = jitter.toNanos();
        this.handshakeNanos = handshake.toNanos();
        this.partNanos = batchPartCost.toNanos();
    }

    /** One round trip: latency drawn uniformly from latency ± jitter, never below zero. */
    synchronized long roundTripNanos() {
        long jitter = jitterNanos == 0 ? 0 : random.nextLong(-jitterNanos, jitterNanos + 1);
        return Math.max(0, latencyNanos + jitter);
    }

    long batchNanos(int parts) {
        return roundTripNanos() + parts * partNanos;
    }

    long handshakeNanos() {
        return handshakeNanos;
    }
}
