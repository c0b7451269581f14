package dev.agenttools.google;

import dev.agenttools.tool.Deadline;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Client-side pacing to one user's Gmail limits, so that bursts wait here instead of earning 429s: a token bucket of
 * quota units and a cap on calls in flight. One pacer per user (see {@link PerAccount}), shared by all that user's
 * calls in the process. Thread-safe.
 *
 * <p>It starts from the configured quota and concurrency and <b>adapts</b> to what Gmail says (AIMD, as TCP does):
 * a rate-limit answer halves the rate (a quota refusal) or the cap on calls in flight (a concurrency refusal), and
 * empties the bucket; each success wins back a little, so that a limit lower than configured (a new project's 6,000
 * units a minute, a busy account's lower concurrency) is learned in a few refusals and probed again only slowly.
 * Refusals of calls sent before the last cut say nothing new (they were sent at the old pace) and cut nothing more.
 * A Retry-After pauses every call of the user until then.
 *
 * <p>The bucket holds {@value #HEADROOM} of the burst: Gmail charges a call when it arrives, a little after we sent
 * it, and a bucket that is full in between loses the refill of that moment; the headroom absorbs ~100 ms of such
 * delay, so that pacing alone keeps 429s away.
 */
public final class QuotaPacer {
    static final double HEADROOM = 0.9;
    /** What a refusal leaves of the rate or the cap. */
    static final double CUT = 0.5;
    /** What each success adds to the rate, as a share of it: back to double in ~35 successes. */
    static final double RATE_GAIN = 0.02;
    /** Successes per call of cap won back, per call of cap: from 2 to 3 in ~8 successes. */
    static final double CAP_GAIN = 0.25;
    /** The lowest the rate is cut to, as a share of the configured one. */
    static final double MIN_RATE_SHARE = 1.0 / 100;

    private final int configuredUnitsPerMinute;
    private final int configuredBurst;
    private final int configuredMaxInFlight;
    private final Slots slots;
    private final Ticker ticker;
    // guarded by this
    private double rateShare = 1.0;
    private double capacity;
    private double unitsPerNano;
    private double units;
    private long lastRefill;
    private double capLevel;
    private int cap;
    private long lastRateCut;
    private long lastCapCut;
    private long pausedUntil;

    public QuotaPacer(int unitsPerMinute, int burst, int maxInFlight) {
        this(unitsPerMinute, burst, maxInFlight, Ticker.SYSTEM);
    }

    QuotaPacer(int unitsPerMinute, int burst, int maxInFlight, Ticker ticker) {
        if (unitsPerMinute <= 0 || burst <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException("quota pacing needs positive units per minute, burst and concurrency, got "
                    + unitsPerMinute + ", " + burst + ", " + maxInFlight);
        }
        this.configuredUnitsPerMinute = unitsPerMinute;
        this.configuredBurst = burst;
        this.configuredMaxInFlight = maxInFlight;
        this.ticker = ticker;
        this.lastRefill = ticker.nanoTime();
        this.lastRateCut = lastRefill;
        this.lastCapCut = lastRefill;
        this.pausedUntil = lastRefill;
        setRate(1.0);
        this.units = capacity;
        this.capLevel = maxInFlight;
        this.cap = maxInFlight;
        this.slots = new Slots(maxInFlight);
    }

    /** A slot to make one call; closing it frees the slot. */
    public interface Permit extends AutoCloseable {
        /** When the call was let go ({@link System#nanoTime()}, or the test's clock). */
        long sentNanos();

        @Override
        void close();
    }

    /**
     * Waits for {@code slots} call slots (at most the current cap) and {@code cost} quota units, within the
     * deadline.
     *
     * @throws InterruptedException when the call is cancelled
     * @throws dev.agenttools.tool.ToolException DEADLINE when the wait would outlast the deadline
     */
    public Permit acquire(int cost, int slots, Deadline deadline, String what) throws InterruptedException {
        int wanted = Math.max(1, Math.min(slots, maxInFlight()));
        if (!this.slots.tryAcquire(wanted, Math.max(0, deadline.remainingNanos(ticker.nanoTime())), TimeUnit.NANOSECONDS)) {
            throw deadline.exceeded(what + " (waiting for a free request slot)");
        }
        try {
            takeUnits(cost, deadline, what);
        } catch (InterruptedException | RuntimeException e) {
            this.slots.release(wanted);
            throw e;
        }
        long sent = ticker.nanoTime();
        return new Permit() {
            @Override
            public long sentNanos() {
                return sent;
            }

            @Override
            public void close() {
                QuotaPacer.this.slots.release(wanted);
            }
        };
    }

    private void takeUnits(int cost, Deadline deadline, String what) throws InterruptedException {
        while (true) {
            long waitNanos;
            boolean paused;
            synchronized (this) {
                long now = ticker.nanoTime();
                refill(now);
                paused = now < pausedUntil;
                // a call costing more than the bucket holds waits for a full bucket, not forever
                double needed = Math.min(cost, capacity);
                if (!paused && units >= needed) {
                    units -= needed;
                    return;
                }
                waitNanos = paused ? pausedUntil - now : (long) Math.ceil((needed - units) / unitsPerNano);
            }
            if (waitNanos > deadline.remainingNanos(ticker.nanoTime())) {
                throw deadline.exceeded(what + (paused ? " (Gmail asked us to wait before the next call)"
                        : " (the Gmail quota allows no more calls in time)"));
            }
            ticker.sleep(waitNanos);
        }
    }

    private void refill(long now) {
        units = Math.min(capacity, units + (now - lastRefill) * unitsPerNano);
        lastRefill = now;
    }

    private void setRate(double share) {
        rateShare = Math.max(MIN_RATE_SHARE, Math.min(1.0, share));
        unitsPerNano = configuredUnitsPerMinute * rateShare / 60.0 / 1e9;
        capacity = Math.max(1, configuredBurst * rateShare * HEADROOM);
        units = Math.min(units, capacity);
    }

    private void setCap(double level) {
        capLevel = Math.max(1, Math.min(configuredMaxInFlight, level));
        int next = (int) capLevel;
        if (next > cap) {
            slots.release(next - cap);
        } else if (next < cap) {
            slots.shrink(cap - next);
        }
        cap = next;
    }

    /** A call sent under {@code permit} was answered: the limits it ran under held; win back a little. */
    public synchronized void succeeded(Permit permit) {
        refill(ticker.nanoTime());
        setRate(rateShare * (1 + RATE_GAIN));
        setCap(capLevel + CAP_GAIN / capLevel);
    }

    /**
     * A call sent under {@code permit} was refused for its rate ({@link GoogleErrors#rateLimited}): cut the cap on
     * calls in flight (a concurrency refusal) or the rate (a quota refusal), once for all the calls sent at the old
     * pace; and pause for what Google asked ({@code retryAfter}, or null).
     */
    public synchronized void rateLimited(Permit permit, boolean concurrency, Duration retryAfter) {
        long now = ticker.nanoTime();
        refill(now);
        if (concurrency) {
            if (permit.sentNanos() >= lastCapCut) {
                setCap(Math.min(capLevel, cap) * CUT);
                lastCapCut = now;
            }
        } else {
            if (permit.sentNanos() >= lastRateCut) {
                setRate(rateShare * CUT);
                lastRateCut = now;
            }
            units = 0; // Gmail's bucket is empty: ours too, so the next call waits for the refill
        }
        if (retryAfter != null) {
            pausedUntil = Math.max(pausedUntil, now + retryAfter.toNanos());
        }
    }

    /** Calls let in flight at once now (the configured cap, or less after concurrency refusals). */
    public synchronized int maxInFlight() {
        return cap;
    }

    /** Quota units a minute let through now (the configured quota, or less after refusals). */
    public synchronized double unitsPerMinute() {
        return configuredUnitsPerMinute * rateShare;
    }

    /** A fair semaphore whose permits can also be taken away (the cap shrinking while calls are in flight). */
    private static final class Slots extends Semaphore {
        private static final long serialVersionUID = 1L;

        Slots(int permits) {
            super(permits, true);
        }

        void shrink(int n) {
            reducePermits(n);
        }
    }
}
