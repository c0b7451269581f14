package dev.agenttools.emulator.api;

import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fault model: injected 5xx answers, slow answers, messages deleted between list and get, and (set by tests
 * only) messages that are listed but cannot be fetched. Seeded, so a run with the same seed and the same sequence
 * of calls injects the same faults. Thread-safe.
 */
public final class Faults {
    private final SplittableRandom random;
    private final double failRate;
    private final Map<Integer, Integer> statusWeights;
    private final int totalWeight;
    private final double slowRate;
    private final Duration slowBy;
    private final double vanishRate;
    /** Messages whose every messages.get fails, by hex id: set by tests only, never from a flag. */
    private final Map<String, Integer> failingGets = new ConcurrentHashMap<>();

    /**
     * @param failStatuses injected statuses and their weights
     * @param slowBy       what a slow answer adds
     */
    public Faults(long seed, double failRate, Map<Integer, Integer> failStatuses, double slowRate, Duration slowBy,
                  double vanishRate) {
        this.random = new SplittableRandom(seed ^ 0x5EED_FA17L);
        this.failRate = failRate;
        this.statusWeights = new TreeMap<>(failStatuses);
        this.totalWeight = statusWeights.values().stream().mapToInt(Integer::intValue).sum();
        this.slowRate = slowRate;
        this.slowBy = slowBy;
        this.vanishRate = vanishRate;
    }

    /** The status of an injected failure for this call, or 0 for none. */
    public synchronized int injectedStatus() {
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
    public synchronized Duration slowness() {
        return slowRate > 0 && random.nextDouble() < slowRate ? slowBy : Duration.ZERO;
    }

    /** Whether a message just listed is deleted before the client can fetch it. */
    public synchronized boolean vanishes() {
        return vanishRate > 0 && random.nextDouble() < vanishRate;
    }

    /** From now on, every messages.get of message {@code hexId} fails with {@code status}; it is still listed. */
    public void failGets(String hexId, int status) {
        errorFor(status); // refuse a status we cannot answer now, not at the get
        failingGets.put(hexId, status);
    }

    /** Throws the error set for a get of {@code hexId}, if any. */
    public void checkGet(String hexId) {
        Integer status = failingGets.get(hexId);
        if (status != null) {
            throw errorFor(status);
        }
    }

    private static ApiError errorFor(int status) {
        return switch (status) {
            case 400 -> ApiError.invalidId();
            case 401 -> ApiError.invalidCredentials();
            case 403 -> ApiError.insufficientScopes();
            case 429 -> ApiError.quotaExhausted();
            default -> {
                if (status < 500 || status > 599) {
                    throw new IllegalArgumentException("a failing get answers 400, 401, 403, 429 or 5xx, not " + status);
                }
                yield ApiError.injected(status);
            }
        };
    }
}
