package dev.agenttools.emulator;

import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The fault model: injected 5xx answers, slow answers, messages deleted between list and get. Seeded, so a
 * run with the same seed and the same sequence of calls injects the same faults. Thread-safe.
 */
final class Faults {
    private final SplittableRandom random;
    private final double failRate;
    private final Map<Integer, Integer> statusWeights;
    private final int totalWeight;
    private final double slowRate;
    private final Duration slowBy;
    private final double vanishRate;

    Faults(EmulatorConfig config) {
        this.random = new SplittableRandom(config.seed() ^ 0x5EED_FA17L);
        this.failRate = config.failRate();
        this.statusWeights = new java.util.TreeMap<>(config.failStatuses());
        this.totalWeight = statusWeights.values().stream().mapToInt(Integer::intValue).sum();
        this.slowRate = config.slowRate();
        this.slowBy = config.slowBy();
        this.vanishRate = config.vanishRate();
    }

    /** The status of an injected failure for this call, or 0 for none. */
    synchronized int injectedStatus() {
        if (failRate == 0 || random.nextDouble() >= failRate) {
            return 0;
        }
        int pick = random.nextInt(totalWeight);
        for (Map.Entry<Integer, Integer> e : statusWeights.entrySet()) {
            pick -= e.getValue();
            if (pick < 0) {
                return e.getKey();
            }
        }
        throw new IllegalStateException("weights do not add up");
    }

    /** Extra time this call takes (zero for most). */
    synchronized Duration slowness() {
        return slowRate > 0 && random.nextDouble() < slowRate ? slowBy : Duration.ZERO;
    }

    /** Whether a message just listed is deleted before the client can fetch it. */
    synchronized boolean vanishes() {
        return vanishRate > 0 && random.nextDouble() < vanishRate;
    }
}
