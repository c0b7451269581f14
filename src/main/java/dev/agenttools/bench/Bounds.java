package dev.agenttools.bench;

import java.util.PriorityQueue;

/**
 * The fastest a scenario can possibly go against a server with the given latency and limits, found by
 * scheduling its calls as early as the server allows: one list, then the gets (or batches), each starting
 * when a concurrency slot is free and the quota bucket holds its units. Runs that follow each other without a
 * pause find the bucket drained by the run before (it has refilled only during the last round trip); runs
 * spaced out by at least the refill time start with a full bucket.
 *
 * @param latencyMs      one round trip
 * @param unitsPerMinute the per-user quota
 * @param burstUnits     the quota bucket's capacity
 * @param maxInFlight    calls the server allows in flight
 * @param batchSize      parts per batch request
 * @param partCostMs     server time per batch part
 * @param fullBucket     whether each run starts with a full quota bucket
 */
record Bounds(double latencyMs, int unitsPerMinute, int burstUnits, int maxInFlight, int batchSize, double partCostMs,
              boolean fullBucket) {
    private static final int UNITS_PER_CALL = 5;

    double of(Scenario s) {
        if (s.tool().equals("get_email")) {
            return latencyMs;
        }
        int n = s.n();
        return switch (s.strategy()) {
            case "sequential" -> (1 + n) * latencyMs;
            case "concurrent" -> schedule(n, 1, latencyMs);
            default -> {
                int chunk = Math.min(batchSize, maxInFlight);
                yield schedule(n, chunk, latencyMs + Math.min(n, chunk) * partCostMs);
            }
        };
    }

    /**
     * Greedy earliest-start schedule of {@code n} gets sent {@code perRequest} at a time (each request holding that
     * many slots and units for {@code requestMs}); identical jobs, so greedy is optimal.
     */
    private double schedule(int n, int perRequest, double requestMs) {
        double unitsPerMs = unitsPerMinute / 60_000.0;
        double units = (fullBucket ? burstUnits : Math.min(burstUnits, unitsPerMs * latencyMs)) - UNITS_PER_CALL;
        double last = 0; // time of the last bucket update
        int slotsPerRequest = Math.min(perRequest, maxInFlight);
        int lanes = Math.max(1, maxInFlight / slotsPerRequest);
        PriorityQueue<Double> free = new PriorityQueue<>();
        for (int i = 0; i < lanes; i++) {
            free.add(latencyMs); // the gets wait for the list's answer
        }
        double end = latencyMs;
        for (int sent = 0; sent < n; sent += perRequest) {
            int parts = Math.min(perRequest, n - sent);
            double cost = (double) UNITS_PER_CALL * parts;
            double start = free.poll();
            units = Math.min(burstUnits, units + (start - last) * unitsPerMs);
            if (units < cost) {
                start += (cost - units) / unitsPerMs;
                units = cost;
            }
            units -= cost;
            last = start;
            double finish = start + (perRequest == 1 ? requestMs : latencyMs + parts * partCostMs);
            free.add(finish);
            end = Math.max(end, finish);
        }
        return end;
    }

    /** How long an idle pause must be for the bucket to refill completely. */
    double refillMs() {
        return burstUnits / (unitsPerMinute / 60_000.0);
    }
}
