package dev.agenttools.bench;

import org.HdrHistogram.Histogram;

import java.util.List;

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

    /**
     * A row from times taken elsewhere (a peer process's own clock, or runs timed one by one): p50 and the rest read
     * off an HdrHistogram at microsecond precision, as the runner's own rows are.
     */
    static Row of(String tool, String strategy, int n, int warmup, List<Double> okMs, int errors, double requests,
                  long connections, long rateLimited, double boundMs) {
        Histogram h = new Histogram(3_600_000_000L, 3);
        okMs.forEach(ms -> h.recordValue(Math.max(0, Math.round(ms * 1e3))));
        boolean any = h.getTotalCount() > 0;
        return new Row(tool, strategy, n, okMs.size() + errors, warmup, any ? h.getMean() / 1e3 : Double.NaN,
                any ? h.getMinValue() / 1e3 : Double.NaN, any ? h.getMaxValue() / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(50) / 1e3 : Double.NaN, any ? h.getValueAtPercentile(90) / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(99) / 1e3 : Double.NaN, errors, requests, connections, rateLimited, boundMs, null);
    }

    Row withStrategy(String name) {
        return new Row(tool, name, n, runs, warmup, avgMs, minMs, maxMs, p50Ms, p90Ms, p99Ms, errors, requests,
                connections, rateLimited, boundMs, speedup);
    }

    Row withSpeedup(Double s) {
        return new Row(tool, strategy, n, runs, warmup, avgMs, minMs, maxMs, p50Ms, p90Ms, p99Ms, errors, requests,
                connections, rateLimited, boundMs, s);
    }
}
