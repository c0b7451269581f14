package dev.agenttools.google;

import dev.agenttools.tool.Deadline;

import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Client-side pacing to one user's limits at one API (Gmail's or Calendar's), so that bursts wait here instead of earning 429s: a token bucket of
 * quota units and a cap on calls in flight. One pacer per user (see {@link PerAccount}), shared by all that user's
 * calls in the process. Thread-safe.
 *
 * <p>It starts from the configured quota and concurrency and <b>adapts</b> to what the API (Gmail, Calendar) says (AIMD, as TCP does):
 * a rate-limit answer halves the rate (a quota refusal) or the cap on calls in flight (a concurrency refusal), and
 * empties the bucket; each success wins back a little, so that a limit lower than configured (a new project's 6,000
 * units a minute, a busy account's lower concurrency) is learned in a few refusals and probed again only slowly.
 * Refusals of calls sent before the last cut say nothing new (they were sent at the old pace) and cut nothing more;
 * but a concurrency refusal also bounds the cap below the number of our calls that were in flight when the refused
 * one went out, which learns a limit of 2 from one burst of 10. A Retry-After pauses every call of the user until
 * then.
 *
 * <p>Calls waiting are served earliest deadline first, so that when the quota cannot serve them all in time, the
 * ones that can still make it do (a retried get of the first list goes before the gets of later lists), instead of
 * all of them sharing the wait and all missing.
 *
 * <p>The bucket holds {@value #HEADROOM} of the burst: Gmail charges a call when it arrives, a little after we sent
 * it, and a bucket that is full in between loses the refill of that moment; the headroom absorbs ~100 ms of such
 * delay, so that pacing alone keeps 429s away.
 */
final class QuotaPacer {
    static final double HEADROOM = 0.9;
    /** What a refusal leaves of the rate or the cap. */
    static final double CUT = 0.5;
    /** What each success adds to the rate, as a share of it: back to double in ~35 successes. */
    static final double RATE_GAIN = 0.02;
    /** Successes per call of cap won back, per call of cap: from 2 to 3 in ~8 successes. */
    static final double CAP_GAIN = 0.25;
    /** The lowest the rate is cut to, as a share of the configured one. */
    static final double MIN_RATE_SHARE = 1.0 / 100;
    /** How much slower the limits grow near the level Gmail last refused: probing it costs a refusal each time. */
    static final double NEAR_REFUSAL_SLOWDOWN = 4;

    /** The API paced ("Gmail", "Calendar"), for errors: each has its own quota, and the error names the one spent. */
    private final String api;
    private final int configuredUnitsPerMinute;
    private final int configuredBurst;
    private final int configuredMaxInFlight;
    private final Ticker ticker;
    /** Where waits and refusals are counted for metrics (counters no one reads when none are shown). */
    private final PacingStats.Counts counts;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a slot frees, the cap grows, or the first in line changes. */
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Waiter> waiting = new PriorityQueue<>(
            Comparator.comparingLong(Waiter::endNanos).thenComparingLong(Waiter::arrival));
    // guarded by lock
    private long arrivals;
    private int inFlight;
    private double rateShare = 1.0;
    private double capacity;
    private double unitsPerNano;
    private double units;
    private long lastRefill;
    private double capLevel;
    private int cap;
    private long lastRateCut;
    private long lastCapCut;
    /** The rate share and the cap Gmail last refused at (infinite before any refusal, and once grown past). */
    private double refusedRateShare = Double.POSITIVE_INFINITY;
    private double refusedCap = Double.POSITIVE_INFINITY;
    private long pausedUntil;
    /** Whether any call was let go: a pacer told of more instances after that may have overspent with them. */
    private boolean sentAny;
    /** Instances pacing this user's calls at once (see {@link #share}); this one paces at its share of the limits. */
    private volatile int instances = 1; // written under the lock; read without it by share()'s unchanged case

    /** @param api the API paced, as its errors name it ("Gmail", "Calendar") */
    public QuotaPacer(String api, int unitsPerMinute, int burst, int maxInFlight) {
        this(api, unitsPerMinute, burst, maxInFlight, Ticker.SYSTEM, new PacingStats.Counts());
    }

    QuotaPacer(String api, int unitsPerMinute, int burst, int maxInFlight, Ticker ticker) {
        this(api, unitsPerMinute, burst, maxInFlight, ticker, new PacingStats.Counts());
    }

    /** @param counts where its waits and the refusals it learns from are counted ({@link PacingStats}) */
    QuotaPacer(String api, int unitsPerMinute, int burst, int maxInFlight, Ticker ticker, PacingStats.Counts counts) {
        check(unitsPerMinute, burst, maxInFlight);
        this.counts = java.util.Objects.requireNonNull(counts, "counts");
        this.api = api;
        this.configuredUnitsPerMinute = unitsPerMinute;
        this.configuredBurst = burst;
        this.configuredMaxInFlight = maxInFlight;
        this.ticker = ticker;
        this.lastRefill = ticker.nanoTime();
        // before any call: the first refusal cuts
        this.lastRateCut = lastRefill - 1;
        this.lastCapCut = lastRefill - 1;
        this.pausedUntil = lastRefill;
        setRate(1.0);
        this.units = capacity;
        this.capLevel = maxInFlight;
        this.cap = maxInFlight;
    }

    /** @throws IllegalArgumentException unless all three are positive */
    static void check(int unitsPerMinute, int burst, int maxInFlight) {
        if (unitsPerMinute <= 0 || burst <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException("quota pacing needs positive units per minute, burst and concurrency, got "
                    + unitsPerMinute + ", " + burst + ", " + maxInFlight);
        }
    }

    /** A call waiting its turn: by when it must be done, then in order of arrival. */
    private record Waiter(long endNanos, long arrival) {
    }

    /** A slot to make one call; closing it frees the slot. */
    public interface Permit extends AutoCloseable {
        /** When the call was let go ({@link System#nanoTime()}, or the test's clock). */
        long sentNanos();

        /** Our calls in flight for this user when it was let go, its own slots included. */
        int inFlightAtSend();

        @Override
        void close();
    }

    /**
     * Waits for its turn (earliest deadline first), {@code slots} call slots (at most the current cap) and
     * {@code cost} quota units, within the deadline. A call that had to wait (for quota, a slot, its turn or a
     * Retry-After pause) is counted with how long it waited, whether it then went or gave up.
     *
     * @throws InterruptedException when the call is cancelled
     * @throws dev.agenttools.tool.ToolException DEADLINE when the wait would outlast the deadline
     */
    public Permit acquire(int cost, int slots, Deadline deadline, String what) throws InterruptedException {
        // a slot wait is real time, so it is counted down on the real clock (the ticker may be a test's virtual one)
        long arrived = ticker.nanoTime();
        long slotWaitLeft = Math.max(0, deadline.remainingNanos(arrived));
        boolean waited = false; // the usual case: counted nowhere, so a call that need not wait pays nothing more
        lock.lockInterruptibly();
        Waiter me = new Waiter(deadline.endNanos(), arrivals++);
        waiting.add(me);
        try {
            while (true) {
                if (waiting.peek() == me) {
                    int wanted = Math.max(1, Math.min(slots, cap));
                    if (inFlight + wanted <= cap) {
                        long now = ticker.nanoTime();
                        refill(now);
                        boolean paused = now < pausedUntil;
                        // a call costing more than the bucket holds waits for a full bucket, not forever
                        double needed = Math.min(cost, capacity);
                        if (!paused && units >= needed) {
                            units -= needed;
                            inFlight += wanted;
                            sentAny = true;
                            waiting.poll();
                            changed.signalAll();
                            return permit(wanted, now, inFlight);
                        }
                        long waitNanos = paused ? pausedUntil - now : (long) Math.ceil((needed - units) / unitsPerNano);
                        if (waitNanos > deadline.remainingNanos(now)) {
                            throw deadline.exceeded(what + (paused ? " (" + api + " asked us to wait before the next call)"
                                    : " (the " + api + " quota allows no more calls in time)"));
                        }
                        lock.unlock();
                        waited = true;
                        try {
                            ticker.sleep(waitNanos);
                        } finally {
                            lock.lock();
                        }
                        continue;
                    }
                }
                long left = Math.min(slotWaitLeft, deadline.remainingNanos(ticker.nanoTime()));
                if (left <= 0) {
                    throw deadline.exceeded(what + " (waiting for a free request slot)");
                }
                long before = System.nanoTime();
                waited = true;
                changed.awaitNanos(left);
                slotWaitLeft -= System.nanoTime() - before;
            }
        } finally {
            if (waiting.remove(me)) {
                changed.signalAll(); // gave up (deadline, interrupt): the next in line may go
            }
            lock.unlock();
            if (waited) {
                counts.waited(ticker.nanoTime() - arrived);
            }
        }
    }

    private Permit permit(int slots, long sent, int inFlightNow) {
        return new Permit() {
            private boolean closed;

            @Override
            public long sentNanos() {
                return sent;
            }

            @Override
            public int inFlightAtSend() {
                return inFlightNow;
            }

            @Override
            public void close() {
                lock.lock();
                try {
                    if (!closed) {
                        closed = true;
                        inFlight -= slots;
                        changed.signalAll();
                    }
                } finally {
                    lock.unlock();
                }
            }
        };
    }

    private void refill(long now) {
        units = Math.min(capacity, units + (now - lastRefill) * unitsPerNano);
        lastRefill = now;
    }

    private void setRate(double share) {
        rateShare = Math.max(MIN_RATE_SHARE, Math.min(1.0, share));
        unitsPerNano = configuredUnitsPerMinute * rateShare / instances / 60.0 / 1e9;
        capacity = Math.max(1, configuredBurst * rateShare * HEADROOM / instances);
        units = Math.min(units, capacity);
    }

    /** This instance's share of the configured concurrency: at least one call. */
    private double maxLevel() {
        return Math.max(1, (double) configuredMaxInFlight / instances);
    }

    private void setCap(double level) {
        capLevel = Math.max(1, Math.min(maxLevel(), level));
        int next = (int) capLevel;
        if (next > cap) {
            changed.signalAll();
        }
        cap = next;
    }

    /** A call sent under {@code permit} was answered: the limits it ran under held; win back a little. */
    public void succeeded(Permit permit) {
        lock.lock();
        try {
            refill(ticker.nanoTime());
            double rateGain = RATE_GAIN / (rateShare * (1 + RATE_GAIN) >= refusedRateShare * 0.9 ? NEAR_REFUSAL_SLOWDOWN : 1);
            setRate(rateShare * (1 + rateGain));
            if (rateShare > refusedRateShare) {
                refusedRateShare = Double.POSITIVE_INFINITY; // past it without a refusal: whatever limited us then has gone
            }
            double capGain = CAP_GAIN / capLevel / (capLevel + 1 >= refusedCap ? NEAR_REFUSAL_SLOWDOWN : 1);
            setCap(capLevel + capGain);
            if (capLevel > refusedCap) {
                refusedCap = Double.POSITIVE_INFINITY;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A call sent under {@code permit} was refused for its rate ({@link GoogleErrors#rateLimited}): cut the cap on
     * calls in flight (a concurrency refusal) or the rate (a quota refusal), once for all the calls sent at the old
     * pace; and pause for what Google asked ({@code retryAfter}, or null).
     */
    public void rateLimited(Permit permit, boolean concurrency, Duration retryAfter) {
        counts.refused(concurrency);
        lock.lock();
        try {
            long now = ticker.nanoTime();
            refill(now);
            if (concurrency) {
                double level = capLevel;
                if (permit.sentNanos() > lastCapCut) {
                    level = Math.min(capLevel, cap) * CUT;
                    lastCapCut = now;
                }
                // Gmail refused with this many of ours in flight: its limit (for us) is below that
                refusedCap = permit.inFlightAtSend();
                setCap(Math.min(level, permit.inFlightAtSend() - 1));
            } else {
                if (permit.sentNanos() > lastRateCut) {
                    refusedRateShare = rateShare;
                    setRate(rateShare * CUT);
                    lastRateCut = now;
                }
                units = 0; // Gmail's bucket is empty: ours too, so the next call waits for the refill
            }
            if (retryAfter != null) {
                pausedUntil = Math.max(pausedUntil, now + retryAfter.toNanos());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Paces at a share of the user's limits: {@code count} instances (this one included) serve this user at once, each
     * at 1/count of the quota, the burst and the calls in flight (at least one), so that together they stay within the
     * user's limits. When instances leave, what was learned from refusals is kept as a proportion; when more come, it
     * is forgotten (those refusals were earned together with the newcomers' calls) and the bucket starts empty if
     * calls went at the larger share. Cheap when the count is unchanged.
     */
    public void share(int count) {
        int n = Math.max(1, count);
        if (n == instances) {
            return; // the usual case: no lock on the call's path
        }
        lock.lock();
        try {
            if (n == instances) {
                return;
            }
            double before = instances;
            instances = n;
            refill(ticker.nanoTime());
            if (n > before) {
                // More instances than this one knew of: the refusals it learned from were earned together with their
                // unseen calls, so they say nothing of the user's limits; and if it has sent calls at its larger share,
                // it and the others may have spent the user's bucket between them. Start over at the new share, from
                // an empty bucket then (a pacer that has sent nothing keeps its share of a full one).
                refusedRateShare = Double.POSITIVE_INFINITY;
                refusedCap = Double.POSITIVE_INFINITY;
                setRate(1.0);
                if (sentAny) {
                    units = 0;
                }
                setCap(maxLevel());
            } else {
                setRate(rateShare);
                // the same share of the new per-instance concurrency as learned; more room now may wake callers
                setCap(capLevel * before / n);
                refusedCap = refusedCap * before / n;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What was learned of the account's limits, for metrics: a rate or a cap on calls in flight below the configured
     * one (this instance's share of it, when shared), and whether it paces at a share.
     */
    record Learned(boolean rateBelowConfigured, boolean capBelowConfigured, boolean shared) {
    }

    Learned learned() {
        lock.lock();
        try {
            return new Learned(rateShare < 1.0, cap < (int) maxLevel(), instances > 1);
        } finally {
            lock.unlock();
        }
    }

    /** Calls let in flight at once now (the configured cap, or less after concurrency refusals). */
    public int maxInFlight() {
        lock.lock();
        try {
            return cap;
        } finally {
            lock.unlock();
        }
    }

    /** Quota units a minute let through now (the configured quota, or less after refusals). */
    public double unitsPerMinute() {
        lock.lock();
        try {
            return configuredUnitsPerMinute * rateShare / instances;
        } finally {
            lock.unlock();
        }
    }
}
