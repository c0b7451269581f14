package dev.agenttools.google;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the pacing of the Google APIs did, per API ("gmail", "calendar"), for a service's metrics: calls that waited in
 * an account's pacer and for how long, the rate-limit refusals Google answered by kind, and, read only when asked
 * ({@link #snapshot}), how many accounts are paced and how many of them at a learned rate or cap on calls in flight
 * below the configured one, or at a share of the limits (served by several instances). Counts only: it reads the
 * pacers, never the accounts they are kept under, so no address, account key or token is read here or given out.
 *
 * <p>Made by whoever builds the registry and shows them (the HTTP service), and handed through
 * {@code Tools.Builder.pacingStats} and the {@link GoogleConnection} to each API's {@link GoogleCalls}; by default
 * {@link #NONE}. Thread-safe. A call that does not wait counts nothing; a wait or a refusal is two adds on a
 * {@link LongAdder} (no lock, no allocation), on a path that has already waited or been refused. The pacers of a
 * registry are counted as long as the PacingStats lives: one registry per PacingStats (as the server builds).
 */
public final class PacingStats {
    /** Nothing shown: the pacers count into counters no one reads, and none of them is kept. */
    public static final PacingStats NONE = new PacingStats(false);

    private final boolean kept;
    /** By API label, in name order (the order /metrics shows them in). */
    private final Map<String, Api> apis = new ConcurrentSkipListMap<>();

    /** Counts what the pacers of the APIs built on it report, from now on. */
    public PacingStats() {
        this(true);
    }

    private PacingStats(boolean kept) {
        this.kept = kept;
    }

    /** One API's counts at one moment. Wait seconds and refusals count since start; the accounts are as of now. */
    public record Snapshot(String api, long waits, double waitSeconds, long quotaRefusals, long concurrencyRefusals,
                           long refusedForTime, int accounts, int rateBelowConfigured, int concurrencyBelowConfigured,
                           int shared) {
    }

    /** Each API's counts now, in name order; an API shows once a {@link GoogleCalls} for it is made. */
    public List<Snapshot> snapshot() {
        List<Snapshot> all = new ArrayList<>();
        apis.forEach((name, api) -> all.add(api.snapshot(name)));
        return all;
    }

    /**
     * Where the pacers of one API count: {@code api} as errors name it ("Gmail"), shown in lower case. Several
     * {@link GoogleCalls} of one API (registries built on one PacingStats) add up.
     */
    Counts counts(String api) {
        return kept ? entry(api).counts : new Counts();
    }

    /** The accounts of {@code api} paced in {@code pacers}, read on each {@link #snapshot}. */
    void watch(String api, PerAccount<QuotaPacer> pacers) {
        if (kept) {
            entry(api).pacers.add(pacers);
        }
    }

    private Api entry(String api) {
        return apis.computeIfAbsent(api.toLowerCase(Locale.ROOT), k -> new Api());
    }

    /** What one API's pacers count as they go. Thread-safe, lock-free. */
    static final class Counts {
        private final LongAdder waits = new LongAdder();
        private final LongAdder waitNanos = new LongAdder();
        private final LongAdder quotaRefusals = new LongAdder();
        private final LongAdder concurrencyRefusals = new LongAdder();
        private final LongAdder refusedForTime = new LongAdder();

        /** A call waited {@code nanos} in a pacer (for quota, a free slot, its turn or a Retry-After pause) before it went or gave up. */
        void waited(long nanos) {
            waits.increment();
            waitNanos.add(Math.max(0, nanos));
        }

        /** Google refused a call for its rate: a concurrency refusal, or one for quota. */
        void refused(boolean concurrency) {
            (concurrency ? concurrencyRefusals : quotaRefusals).increment();
        }

        /** A call was refused at once: the quota could not serve it before its deadline (admission by time). */
        void refusedForTime() {
            refusedForTime.increment();
        }
    }

    private static final class Api {
        private final Counts counts = new Counts();
        private final List<PerAccount<QuotaPacer>> pacers = new CopyOnWriteArrayList<>();

        Snapshot snapshot(String name) {
            // an account and what its credential was known as before share one pacer: count pacers, not keys
            Set<QuotaPacer> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            int rate = 0;
            int concurrency = 0;
            int shared = 0;
            for (PerAccount<QuotaPacer> accounts : pacers) {
                for (QuotaPacer pacer : accounts.values()) {
                    if (seen.add(pacer)) {
                        QuotaPacer.Learned learned = pacer.learned();
                        rate += learned.rateBelowConfigured() ? 1 : 0;
                        concurrency += learned.capBelowConfigured() ? 1 : 0;
                        shared += learned.shared() ? 1 : 0;
                    }
                }
            }
            return new Snapshot(name, counts.waits.sum(), counts.waitNanos.sum() / 1e9, counts.quotaRefusals.sum(),
                    counts.concurrencyRefusals.sum(), counts.refusedForTime.sum(), seen.size(), rate, concurrency, shared);
        }
    }
}
