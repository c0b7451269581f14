package dev.agenttools.emulator.api;

import java.util.function.LongSupplier;

/**
 * Gmail's per-user quota as a token bucket of quota units: it holds up to {@code burst} units and refills at
 * {@code unitsPerMinute / 60} units a second. Thread-safe.
 */
public final class QuotaBucket {
    private final double capacity;
    private final double unitsPerNano;
    private final LongSupplier nanoTime;
    private double units;
    private long lastRefill;

    public QuotaBucket(int unitsPerMinute, int burst) {
        this(unitsPerMinute, burst, System::nanoTime);
    }

    /** @param nanoTime the time source ({@link System#nanoTime()}; a test's own to refill without waiting) */
    QuotaBucket(int unitsPerMinute, int burst, LongSupplier nanoTime) {
        this.capacity = burst;
        this.unitsPerNano = unitsPerMinute / 60.0 / 1_000_000_000.0;
        this.units = burst;
        this.nanoTime = nanoTime;
        this.lastRefill = nanoTime.getAsLong();
    }

    /** Takes the units if the bucket holds them; false (and nothing taken) when it does not. */
    public synchronized boolean tryTake(int cost) {
        long now = nanoTime.getAsLong();
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
        long now = nanoTime.getAsLong();
        return Math.min(capacity, units + (now - lastRefill) * unitsPerNano);
    }
}
