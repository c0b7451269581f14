package dev.agenttools.emulator;

/**
 * Gmail's per-user quota as a token bucket of quota units: it holds up to {@code burst} units and refills at
 * {@code unitsPerMinute / 60} units a second. Thread-safe.
 */
final class QuotaBucket {
    private final double capacity;
    private final double unitsPerNano;
    private double units;
    private long lastRefill;

    QuotaBucket(int unitsPerMinute, int burst) {
        this.capacity = burst;
        this.unitsPerNano = unitsPerMinute / 60.0 / 1_000_000_000.0;
        this.units = burst;
        this.lastRefill = System.nanoTime();
    }

    /** Takes the units if the bucket holds them; false (and nothing taken) when it does not. */
    synchronized boolean tryTake(int cost) {
        long now = System.nanoTime();
        units = Math.min(capacity, units + (now - lastRefill) * unitsPerNano);
        lastRefill = now;
        if (units < cost) {
            return false;
        }
        units -= cost;
        return true;
    }

    /** Units available right now (for counters and tests). */
    synchronized double available() {
        long now = System.nanoTime();
        return Math.min(capacity, units + (now - lastRefill) * unitsPerNano);
    }
}
