package dev.agenttools.bench;

import dev.agenttools.google.Strategy;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The fastest a row of the benchmark can possibly go against a server with the given latency and limits. Each
 * run is scheduled as early as the server allows (one list, then the gets or batches, each starting when a
 * concurrency slot is free and the quota bucket holds its units), and the runs of a row follow each other as
 * the benchmark runs them, the bucket carried from one run to the next (refilled by any pause), starting full.
 * The bound of a row is the median of its measured runs' scheduled times.
 *
 * <p>Gmail and Calendar count against quotas of their own: Gmail 5 units per list or get, Calendar 1 per request
 * (for list_events: one calendarList.list, then one events.list per calendar).
 *
 * @param latencyMs   one round trip
 * @param gmail       Gmail's per-user quota
 * @param calendar    Calendar's per-user quota
 * @param maxInFlight calls the server allows in flight
 * @param batchSize   parts per batch request
 * @param partCostMs  server time per batch part
 * @param pauseMs     idle time before each measured run
 */
record Bounds(double latencyMs, Quota gmail, Quota calendar, int maxInFlight, int batchSize, double partCostMs,
              double pauseMs) {
    /**
     * A per-user quota as the server keeps it: a bucket of {@code burstUnits} refilled at {@code unitsPerMinute}.
     *
     * @param unitsPerCall what one call (a list, a get, one part of a batch) takes
     */
    record Quota(int unitsPerMinute, int burstUnits, int unitsPerCall) {
        /** Gmail's published limits: 15,000 units a minute per user; 5 units per messages.list or messages.get. */
        static final Quota GMAIL = new Quota(15_000, 250, 5);
        /** Calendar's: 600 requests a minute per user; Google counts them in a sliding minute, so a minute's worth may go at once. */
        static final Quota CALENDAR = new Quota(600, 600, 1);

        double unitsPerMs() {
            return unitsPerMinute / 60_000.0;
        }
    }

    /** One isolated run with a full bucket. */
    double of(Scenario s) {
        return of(s, 0, 1);
    }

    /** The row's bound: the median of its measured runs, scheduled back to back after its warm-up. */
    double of(Scenario s, int warmup, int runs) {
        if (s.warm()) {
            // messages.list and history.list at once; then the new messages' gets, when mail arrived
            return s.strategy().equals("warm") ? latencyMs : 2 * latencyMs;
        }
        if (!scheduled(s)) {
            return latencyMs;
        }
        return schedule(s, warmup, runs).medianMs;
    }

    /**
     * What the row takes from its API's quota bucket, scheduled from a full bucket: the units it needs at hand when it
     * starts so that the bucket never runs dry (all of it when it runs dry even from full), and the units it leaves
     * the bucket short when it ends. A Calendar row run back to back may leave the next one a third of a minute short.
     */
    record Drain(double neededUnits, double deficitUnits) {
    }

    Drain drain(Scenario s, int warmup, int runs) {
        Quota q = quota(s);
        Bucket bucket = scheduled(s) ? schedule(s, warmup, runs).bucket : drained(s, warmup + runs);
        double level = Math.min(q.burstUnits(), bucket.units + (bucket.clock - bucket.at) * q.unitsPerMs());
        return new Drain(q.burstUnits() - bucket.lowest, q.burstUnits() - level);
    }

    Quota quota(Scenario s) {
        return s.calendar() ? calendar : gmail;
    }

    private boolean scheduled(Scenario s) {
        return !s.single() && !s.warm() && (Scenario.STRATEGIES.contains(s.strategy()) || s.strategy().equals(BareClient.STRATEGY));
    }

    private record Schedule(double medianMs, Bucket bucket) {
    }

    private Schedule schedule(Scenario s, int warmup, int runs) {
        Bucket bucket = new Bucket(quota(s));
        double[] measured = new double[runs];
        for (int i = 0; i < warmup + runs; i++) {
            if (i >= warmup) {
                bucket.clock += pauseMs;
            }
            double took = run(s, bucket, bucket.clock);
            if (i >= warmup) {
                measured[i - warmup] = took;
            }
            bucket.clock += took;
        }
        Arrays.sort(measured);
        return new Schedule(measured[(runs - 1) / 2], bucket);
    }

    /** A one-call tool's bucket after {@code calls} calls a round trip apart. */
    private Bucket drained(Scenario s, int calls) {
        Bucket bucket = new Bucket(quota(s));
        for (int i = 0; i < calls; i++) {
            bucket.clock = bucket.take(bucket.clock, quota(s).unitsPerCall()) + latencyMs;
        }
        return bucket;
    }

    /** The quota bucket as the server keeps it, starting full; {@code clock} is when the row's last run ended. */
    private static final class Bucket {
        private final Quota quota;
        private double units;
        private double lowest;
        private double at;
        private double clock;

        Bucket(Quota quota) {
            this.quota = quota;
            this.units = quota.burstUnits();
            this.lowest = units;
        }

        /** The earliest time at or after {@code t} that {@code cost} units are there; takes them. */
        double take(double t, double cost) {
            double start = Math.max(t, at);
            units = Math.min(quota.burstUnits(), units + (start - at) * quota.unitsPerMs());
            if (units < cost) {
                start += (cost - units) / quota.unitsPerMs();
                units = cost;
            }
            units -= cost;
            lowest = Math.min(lowest, units);
            at = start;
            return start;
        }
    }

    /** How long one run takes when it starts at {@code t0}. */
    private double run(Scenario s, Bucket bucket, double t0) {
        int n = s.n();
        int unitsPerCall = quota(s).unitsPerCall();
        double listStart = bucket.take(t0, unitsPerCall);
        double listEnd = listStart + latencyMs;
        if (s.strategy().equals("sequential")) {
            double t = listEnd;
            for (int i = 0; i < n; i++) {
                t = bucket.take(t, unitsPerCall) + latencyMs;
            }
            return t - t0;
        }
        boolean batch = s.strategy().equals("batch");
        // the requests as the strategy cuts them: one per message, or the batch chunks
        List<Integer> requests = batch ? Strategy.chunkSizes(n, maxInFlight, batchSize)
                : Collections.nCopies(n, 1);
        int lanes = requests.isEmpty() ? 1 : Math.max(1, maxInFlight / requests.getFirst());
        PriorityQueue<Double> free = new PriorityQueue<>();
        for (int i = 0; i < lanes; i++) {
            free.add(listEnd);
        }
        double end = listEnd;
        for (int parts : requests) {
            double start = bucket.take(free.poll(), (double) unitsPerCall * parts);
            double finish = start + latencyMs + (batch ? parts * partCostMs : 0);
            free.add(finish);
            end = Math.max(end, finish);
        }
        return end - t0;
    }
}
