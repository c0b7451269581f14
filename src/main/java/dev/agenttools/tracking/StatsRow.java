package dev.agenttools.tracking;

/**
 * Call statistics of one tool and backend ({@code backend = "all"} for the tool as a whole).
 *
 * @param errorRate    share of calls that failed
 * @param fallbackRate share of calls the fallback answered
 */
public record StatsRow(String tool, String backend, long calls, double errorRate, double fallbackRate,
                       double p50Ms, double p90Ms, double p99Ms) {
}
