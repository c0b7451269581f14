package dev.agenttools.bench;

/**
 * The fastest a scenario can possibly go against a server with the given latency and limits: the round trips
 * it cannot avoid, and, for large lists, the time the per-user quota needs to allow all the calls. Runs that
 * follow each other without a pause find the quota bucket drained by the run before, so their quota bound is
 * the sustained rate; runs spaced out by at least the bucket's refill time start with a full bucket.
 *
 * @param latencyMs     one round trip
 * @param unitsPerMinute the per-user quota
 * @param burstUnits    the quota bucket's capacity
 * @param maxInFlight   calls the server allows in flight
 * @param batchSize     parts per batch request
 * @param partCostMs    server time per batch part
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
            case "concurrent" -> Math.max(latencyMs + waves(n, maxInFlight) * latencyMs, quotaBoundMs(n));
            default -> {
                int chunk = Math.min(batchSize, maxInFlight);
                double rounds = waves(waves(n, chunk), Math.max(1, maxInFlight / chunk));
                yield Math.max(latencyMs + rounds * latencyMs + Math.min(n, chunk) * partCostMs, quotaBoundMs(n));
            }
        };
    }

    /**
     * With a full bucket: when the quota allows the last get to start, plus its round trip. Back to back: the
     * sustained rate, one call's units over the refill rate.
     */
    double quotaBoundMs(int n) {
        double unitsPerMs = unitsPerMinute / 60_000.0;
        double units = UNITS_PER_CALL * (1.0 + n);
        if (!fullBucket) {
            return units / unitsPerMs;
        }
        double lastStart = Math.max(latencyMs, (units - burstUnits) / unitsPerMs);
        return lastStart + latencyMs;
    }

    /** How long an idle pause must be for the bucket to refill completely. */
    double refillMs() {
        return burstUnits / (unitsPerMinute / 60_000.0);
    }

    private static int waves(int n, int width) {
        return (n + width - 1) / width;
    }
}
