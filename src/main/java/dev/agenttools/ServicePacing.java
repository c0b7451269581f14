package dev.agenttools;

import dev.agenttools.google.PacingShare;
import dev.agenttools.google.PacingStats;

/**
 * Internal, for the HTTP service (cli's {@code server}) and its tests: how a {@link Tools.Builder} is told that several
 * instances share the accounts' Google limits, and where the pacing counts its waits for the service's metrics. Public
 * only because the command line is another package; the published {@link Tools.Builder} names no internal type
 * (ArchitectureTest).
 */
public final class ServicePacing {
    private ServicePacing() {
    }

    /**
     * @param share how many instances serve each account (by default this process alone)
     * @param stats where the pacing counts its waits, Google's refusals and what it learned (by default nowhere)
     */
    public static Tools.Builder wire(Tools.Builder builder, PacingShare share, PacingStats stats) {
        return builder.pacingShare(share).pacingStats(stats);
    }
}
