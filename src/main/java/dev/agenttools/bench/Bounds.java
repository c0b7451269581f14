package dev.agenttools.bench;

/**
 * The fastest a scenario can possibly go against a server with the given latency and limits: the round trips
 * it cannot avoid, and, for large lists, the time the per-user quota needs to allow all the calls.
 *
 * @param latencyMs     one round trip
 * @param unitsPerMinute the per-user quota
 * @param burstUnits    the quota bucket's capacity
 * @param maxInFlight   calls the server allows in flight
 * @param batchSize     parts per batch request
 * @param partCostMs    server time per batch part
 */
record Bounds(double latencyMs, int unitsPerMinute, int burstUnits, int maxInFlight, int batchSize, double partCostMs) {
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

    /** When the quota allows the last get to start, plus its round trip. */
    double quotaBoundMs(int n) {
        double needed = UNITS_PER_CALL * (1.0 + n) - burstUnits;
        double unitsPerMs = unitsPerMinute / 60_000.0;
        double lastStart = Math.max(latencyMs, needed / unitsPerMs);
        return lastStart + latencyMs;
    }

    private static int waves(int n, int width) {
        return (n + width - 1) / width;
    }
}
