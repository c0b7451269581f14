package dev.agenttools.bench;

import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * The fastest a row of the benchmark can possibly go against a server with the given latency and limits. Each
 * run is scheduled as early as the server allows (one list, then the gets or batches, each starting when a
 * concurrency slot is free and the quota bucket holds its units), and the runs of a row follow each other as
 * the benchmark runs them, the bucket carried from one run to the next (refilled by any pause), starting full.
 * The bound of a row is the median of its measured runs' scheduled times.
 *
 * @param latencyMs      one round trip
 * @param unitsPerMinute the per-user quota
 * @param burstUnits     the quota bucket's capacity
 * @param maxInFlight    calls the server allows in flight
 * @param batchSize      parts per batch request
 * @param partCostMs     server time per batch part
 * @param pauseMs        idle time before each measured run
 */
record Bounds(double latencyMs, int unitsPerMinute, int burstUnits, int maxInFlight, int batchSize, double partCostMs,
              double pauseMs) {
    private static final int UNITS_PER_CALL = 5;

    /** One isolated run with a full bucket. */
    double of(Scenario s) {
        return of(s, 0, 1);
    }

    double of(Scenario s, int warmup, int runs) {
        if (s.tool().equals("get_email") || !Scenario.STRATEGIES.contains(s.strategy()) && !s.strategy().equals(BareClient.STRATEGY)) {
            return latencyMs;
        }
        Bucket bucket = new Bucket();
        double[] measured = new double[runs];
        double now = 0;
        for (int i = 0; i < warmup + runs; i++) {
            if (i >= warmup) {
                now += pauseMs;
            }
            double took = run(s, bucket, now);
            if (i >= warmup) {
                measured[i - warmup] = took;
            }
            now += took;
        }
        Arrays.sort(measured);
        return measured[(runs - 1) / 2];
    }

    /** The quota bucket as the server keeps it: capacity burstUnits, refilled continuously. */
    private final class Bucket {
        private double units = burstUnits;
        private double at;

        /** The earliest time at or after {@code t} that {@code cost} units are there; takes them. */
        double take(double t, double cost) {
            double unitsPerMs = unitsPerMinute / 60_000.0;
            double start = Math.max(t, at);
            units = Math.min(burstUnits, units + (start - at) * unitsPerMs);
            if (units < cost) {
                start += (cost - units) / unitsPerMs;
                units = cost;
            }
            units -= cost;
            at = start;
            return start;
        }
    }

    /** How long one run takes when it starts at {@code t0}. */
    private double run(Scenario s, Bucket bucket, double t0) {
        int n = s.n();
        double listStart = bucket.take(t0, UNITS_PER_CALL);
        double listEnd = listStart + latencyMs;
        if (s.strategy().equals("sequential")) {
            double t = listEnd;
            for (int i = 0; i < n; i++) {
                t = bucket.take(t, UNITS_PER_CALL) + latencyMs;
            }
            return t - t0;
        }
        int perRequest = s.strategy().equals("batch") ? Math.min(batchSize, maxInFlight) : 1;
        int lanes = Math.max(1, maxInFlight / perRequest);
        PriorityQueue<Double> free = new PriorityQueue<>();
        for (int i = 0; i < lanes; i++) {
            free.add(listEnd);
        }
        double end = listEnd;
        for (int sent = 0; sent < n; sent += perRequest) {
            int parts = Math.min(perRequest, n - sent);
            double start = bucket.take(free.poll(), (double) UNITS_PER_CALL * parts);
            double finish = start + latencyMs + (perRequest == 1 ? 0 : parts * partCostMs);
            free.add(finish);
            end = Math.max(end, finish);
        }
        return end - t0;
    }

    /** How long an idle pause must be for the bucket to refill completely. */
    double refillMs() {
        return burstUnits / (unitsPerMinute / 60_000.0);
    }
}
