package dev.agenttools.bench;

/**
 * The measured result of one scenario (snake_case in the results JSON).
 *
 * @param requests    API calls the server answered per tool call (emulator only; -1 when unknown)
 * @param connections connections the server saw opened during the measured runs (emulator only; -1 when unknown)
 * @param rateLimited calls the server refused with 429 during the measured runs (emulator only)
 * @param boundMs     the physical bound: round trips × latency, and the quota's limit where it binds
 * @param speedup     sequential's p50 over this row's p50 (1 for sequential; null when sequential was not run)
 */
record Row(String tool, String strategy, int n, int runs, int warmup, double avgMs, double minMs, double maxMs,
           double p50Ms, double p90Ms, double p99Ms, int errors, double requests, long connections, long rateLimited,
           double boundMs, Double speedup) {

    Row withSpeedup(Double s) {
        return new Row(tool, strategy, n, runs, warmup, avgMs, minMs, maxMs, p50Ms, p90Ms, p99Ms, errors, requests,
                connections, rateLimited, boundMs, s);
    }
}
