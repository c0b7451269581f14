package dev.agenttools.google;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Client-side pacing that mirrors Gmail's per-user limits, so that bursts wait here instead of earning 429s:
 * a token bucket of quota units ({@code unitsPerMinute}, holding up to {@code burst}) and a cap on calls in
 * flight. One pacer per user, shared by all calls of the process. Thread-safe.
 *
 * <p>The bucket holds {@value #HEADROOM} of Gmail's burst: Gmail charges a call when it arrives, a little after we
 * sent it, and a bucket that is full in between loses the refill of that moment; the headroom absorbs ~100 ms of
 * such delay, so that pacing alone keeps 429s away.
 */
public final class QuotaPacer {
    static final double HEADROOM = 0.9;
    private final double capacity;
    private final double unitsPerNano;
    private final Semaphore inFlight;
    private final int maxInFlight;
    private final Ticker ticker;
    private double units;
    private long lastRefill;

    public QuotaPacer(int unitsPerMinute, int burst, int maxInFlight) {
        this(unitsPerMinute, burst, maxInFlight, Ticker.SYSTEM);
    }

    QuotaPacer(int unitsPerMinute, int burst, int maxInFlight, Ticker ticker) {
        if (unitsPerMinute <= 0 || burst <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException("quota pacing needs positive units per minute, burst and concurrency, got "
                    + unitsPerMinute + ", " + burst + ", " + maxInFlight);
        }
        this.capacity = Math.max(1, burst * HEADROOM);
        this.unitsPerNano = unitsPerMinute / 60.0 / 1e9;
        this.units = capacity;
        this.ticker = ticker;
        this.lastRefill = ticker.nanoTime();
        this.maxInFlight = maxInFlight;
        this.inFlight = new Semaphore(maxInFlight, true);
    }

    /** A slot to make one call; closing it frees the slot. */
    public interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Waits for a concurrency slot and {@code cost} quota units, within the deadline.
     *
     * @throws InterruptedException when the call is cancelled
     * @throws dev.agenttools.tool.ToolException DEADLINE when the wait would outlast the deadline
     */
    public Permit acquire(int cost, int slots, Deadline deadline, String what) throws InterruptedException {
        int wanted = Math.min(slots, maxInFlight);
        if (!inFlight.tryAcquire(wanted, Math.max(0, deadline.remainingNanos(ticker.nanoTime())), TimeUnit.NANOSECONDS)) {
            throw deadline.exceeded(what + " (waiting for a free request slot)");
        }
        try {
            takeUnits(Math.min(cost, (int) capacity), deadline, what);
        } catch (InterruptedException | RuntimeException e) {
            inFlight.release(wanted);
            throw e;
        }
        return () -> inFlight.release(wanted);
    }

    private void takeUnits(int cost, Deadline deadline, String what) throws InterruptedException {
        while (true) {
            long waitNanos;
            synchronized (this) {
                long now = ticker.nanoTime();
                units = Math.min(capacity, units + (now - lastRefill) * unitsPerNano);
                lastRefill = now;
                if (units >= cost) {
                    units -= cost;
                    return;
                }
                waitNanos = (long) Math.ceil((cost - units) / unitsPerNano);
            }
            if (waitNanos > deadline.remainingNanos(ticker.nanoTime())) {
                throw deadline.exceeded(what + " (the Gmail quota allows no more calls in time)");
            }
            ticker.sleep(waitNanos);
        }
    }

    public int maxInFlight() {
        return maxInFlight;
    }
}
