package dev.agenttools.google;

import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;

import java.time.Duration;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

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
 * <p><b>Admission by time</b>: a call that could not be served before its deadline, counting the quota promised to
 * the calls admitted before it and wanted by those waiting, is refused at once ({@link ToolException.Kind#RATE_LIMITED}
 * with when to try again) before it spends any quota, instead of waiting out its deadline. A tool call that makes
 * several requests (a list and its gets) is admitted once for all of them ({@link #admit}): the quota it needs is
 * promised to it, so that once admitted its later requests are not refused and no quota is spent on a call that then
 * fails; a request past its call's promise (a retry) is refused only when the calls due before it leave it no time.
 * The line stays earliest deadline first, not cheapest first: reordering by cost would starve the lists behind a
 * stream of single gets, and admission already bounds what any call waits to what its deadline allows.
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

    /** What a request is thought to take before any was timed. */
    static final double INITIAL_LATENCY_NANOS = 200e6;
    /** How much each request's time moves the average: about the last ten count. */
    static final double LATENCY_WEIGHT = 0.1;
    /**
     * The part of a call's time left (less its round trips) that its wait for quota may fill when it is admitted: the
     * rest absorbs a rate that drops after it was admitted (another instance's demand rises, Google refuses), so that
     * an admitted call does not miss its deadline.
     */
    static final double ADMIT_SHARE = 0.75;
    /** The longest a waiting call sleeps before it looks again: a share raised meanwhile is used within this. */
    static final long MAX_SLEEP_NANOS = 250_000_000;

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
    /**
     * Whether a call went paced by this instance's bucket alone (not booked in the shared one) since other instances
     * were last found: only such calls are unseen by the shared bucket. Calls booked in it (a user new here is booked
     * while the store has not yet said whether others serve it) are counted there already.
     */
    private boolean sentPacedHere;
    /** This instance's share of the user's limits (see {@link #share}): 1 alone. */
    private volatile double fraction = 1.0; // written under the lock; read without it by share()'s unchanged case
    /** Other instances asking of this user's limits, as last told. */
    private volatile int otherInstances;
    /**
     * Whether this pacer sent calls at a larger share before other instances were found serving the user too: the
     * bucket they share holds less than it says then, and is emptied before this pacer's next booking.
     */
    private boolean emptyShared;
    /**
     * Quota units booked in the shared bucket for this instance's calls and not spent yet: calls paced here (the store
     * has failed) count them as promised, since those go at their booked times.
     */
    private double bookedLeft;
    /** The most booked units a call paced here waits behind: as many as this instance's share refills in this long. */
    static final long MAX_BOOKED_AHEAD_NANOS = 10_000_000_000L;
    /** Quota units promised to tool calls admitted ({@link #admit}) and not spent yet. */
    private double promised;
    /** Quota units wanted by the requests waiting in line that hold no promise. */
    private double waitingUnpromised;
    /** The promises in force, by their tool call's deadline (each call has a deadline object of its own). */
    private final Map<Deadline, Promise> promises = new IdentityHashMap<>();
    /** How long a request takes from its send to its answer, averaged over the last ones: time a call needs beyond its wait. */
    private double latencyNanos = INITIAL_LATENCY_NANOS;

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
        this.counts = Objects.requireNonNull(counts, "counts");
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

        /** Whether its quota was booked in the bucket the instances serving the user share. */
        default boolean booked() {
            return false;
        }

        /** Google refused the call it let go for a limit: what it spent of its booking is its call's again. */
        default void refused() {
        }

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
        Promise promise = promises.get(deadline);
        // quota booked in the bucket the instances share: this request waits for its booked start, then only for a slot
        boolean booked = coveredByBooking(promise, cost);
        /* a promise made here for this request alone (its call found spread while it waited): let go once spent */
        Promise ownBooking = null;
        double unpromised = 0;
        try {
            refill(arrived);
            double needed = Math.min(cost, capacity);
            if (booked) {
                if (promise.notBefore - arrived > deadline.remainingNanos(arrived)) {
                    throw deadline.exceeded(what + " (the " + api + " quota allows no more calls in time)");
                }
            } else if (promise == null) {
                // a call never admitted (a get on its own): refused now, before it spends anything, when its turn
                // would come too late
                unpromised = needed;
                refuseIfTooLate(arrived, unpromised, deadline, 1, what);
            } else if (promise.left < needed) {
                // a request of an admitted call past what was promised to it (a retry): it goes earliest deadline
                // first, so only the calls due before it are ahead of it, not those admitted after it. Refused as a
                // new call would be (every promise counted as ahead), hot lists lost their gets 6 s in, their list's
                // quota spent for nothing; not refused at all, one waited its whole deadline behind earlier calls.
                unpromised = needed - promise.left;
                refuseIfTooLate(arrived, unpromised, deadline, 1, what, promisedBefore(deadline) + bookedLeft);
            }
        } catch (RuntimeException e) {
            lock.unlock();
            throw e;
        }
        waitingUnpromised += unpromised;
        Waiter me = new Waiter(deadline.endNanos(), arrivals++);
        boolean queued = false; // whether it stands in the line (a booked call waits for its start out of it)
        try {
            while (true) {
                long now = ticker.nanoTime();
                if (booked && promise.notBefore > now) {
                    // its start in the shared bucket, out of the line: no other call waits behind this wait
                    if (queued) {
                        waiting.remove(me);
                        queued = false;
                    }
                    lock.unlock();
                    waited = true;
                    try {
                        ticker.sleep(promise.notBefore - now);
                    } finally {
                        lock.lock();
                    }
                    continue;
                }
                if (!queued) {
                    waiting.add(me);
                    queued = true;
                }
                if (waiting.peek() == me) {
                    int wanted = Math.max(1, Math.min(slots, cap));
                    if (inFlight + wanted <= cap) {
                        refill(now);
                        boolean paused = now < pausedUntil;
                        // a call costing more than the bucket holds waits for a full bucket, not forever
                        double needed = booked ? 0 : Math.min(cost, capacity);
                        // paced here while calls booked in the shared bucket are still to go (the store has just
                        // failed): those go first, as the bucket promised them, so this one waits for them too
                        double ahead = booked ? 0 : Math.min(bookedLeft, unitsPerNano * MAX_BOOKED_AHEAD_NANOS);
                        long ownWait = (long) Math.ceil(Math.max(0, needed - units) / unitsPerNano);
                        if (ahead > 0 && promise != null
                                && deadline.remainingNanos(now) < ownWait + 2 * latencyNanos + MAX_SLEEP_NANOS) {
                            ahead = 0; // but a call admitted here is not made to miss its deadline behind them
                        }
                        if (!paused && units - ahead >= needed) {
                            // booked: spent from this bucket too (as far as it holds), so that if the store fails and
                            // the user is paced at this instance's share again, that share does not start full
                            units = booked ? Math.max(0, units - Math.min(cost, capacity)) : units - needed;
                            inFlight += wanted;
                            sentAny = true;
                            sentPacedHere |= !booked;
                            waiting.poll();
                            queued = false;
                            if (promise != null) {
                                promise.spend(booked ? cost : needed);
                            }
                            if (ownBooking != null) {
                                promises.remove(deadline, ownBooking);
                            }
                            changed.signalAll();
                            return permit(wanted, now, inFlight, booked ? promise : null, cost);
                        }
                        SharedBucket spread = sharedNow;
                        if (!paused && spread != null) {
                            // waiting for this instance's quota while the user is found spread: its quota is booked in
                            // the bucket the instances share instead, not spent besides what they book
                            lock.unlock();
                            Promise made = null;
                            try {
                                made = bookRequest(cost, deadline, what, spread);
                            } catch (ToolException refused) {
                                // no time for it there: it stays paced here, as it was admitted
                            } finally {
                                lock.lock();
                            }
                            Promise current = promises.get(deadline);
                            if (coveredByBooking(current, cost)) {
                                promise = current;
                                booked = true;
                                ownBooking = made;
                                waitingUnpromised -= unpromised;
                                unpromised = 0;
                                continue;
                            }
                        }
                        // (behind booked calls, it looks again soon: they go at their booked times, not at this rate)
                        long waitNanos = paused ? pausedUntil - now
                                : units - ahead < needed && ownWait == 0 ? MAX_SLEEP_NANOS : ownWait;
                        if (waitNanos > deadline.remainingNanos(now)) {
                            throw deadline.exceeded(what + (paused ? " (" + api + " asked us to wait before the next call)"
                                    : " (the " + api + " quota allows no more calls in time)"));
                        }
                        lock.unlock();
                        waited = true;
                        try {
                            // in steps: a share raised meanwhile (another instance's demand fell) shortens the wait
                            ticker.sleep(Math.min(waitNanos, MAX_SLEEP_NANOS));
                            Runnable follow = followShare;
                            if (follow != null) {
                                follow.run(); // no new call may come to ask: the waiting ones look at the share
                            }
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
            waitingUnpromised -= unpromised;
            if (queued && waiting.remove(me)) {
                changed.signalAll(); // gave up (deadline, interrupt): the next in line may go
            }
            if (ownBooking != null && promises.remove(deadline, ownBooking) && ownBooking.left >= 1) {
                Promise unspent = ownBooking;
                lock.unlock();
                unspent.close(); // gave up: what it booked goes back
                lock.lock();
            }
            lock.unlock();
            if (waited) {
                counts.waited(ticker.nanoTime() - arrived);
            }
        }
    }

    /** Whether {@code promise} holds quota booked in the shared bucket for a request costing {@code cost}. */
    private static boolean coveredByBooking(Promise promise, int cost) {
        return promise != null && promise.shared != null && promise.left + 1e-9 >= cost;
    }

    /**
     * The bucket this user's quota is booked in while other instances serve it too, or null while this instance serves
     * it alone ({@link GoogleCalls} says which, at each call and each look of a waiting one): calls waiting for this
     * instance's quota when the user is found spread book theirs there instead.
     */
    void sharedWith(SharedBucket shared) {
        sharedNow = shared;
    }

    private volatile SharedBucket sharedNow;

    /**
     * The name the instances share this pacer's account under ({@link Account#shareKey}): once a call of it came as
     * its address, the address's, for the calls that still come as their credential alone too (sessions opened before
     * this instance learned the address: the same user, the same pacer). Each call naming its own, the share of a hot
     * user flipped between two names' leases, each flip to the one with more instances taken for a newcomer that
     * empties the bucket: ~5 % of its quota lost in its first seconds.
     */
    String shareKey(Account account) {
        String known = sharedAs;
        if (!account.byAddress()) {
            return known != null ? known : account.shareKey();
        }
        String key = account.shareKey();
        if (!key.equals(known)) {
            sharedAs = key;
        }
        return key;
    }

    private volatile String sharedAs;

    /** The name the account was last shared under here ({@link #shareKey}); null while only its credential's. */
    String sharedAs() {
        return sharedAs;
    }

    /** Shares the account under {@code key} from now on: another instance learned the address it names. */
    void shareAs(String key) {
        sharedAs = key;
    }

    /**
     * Whether this is this pacer's first booking of the account under {@code shareKey} (a name it did not book under
     * last: an address learned after its credential's first calls), which carries the old name's bookings over first.
     */
    boolean firstBookingAs(String shareKey) {
        if (shareKey.equals(bookedAs)) {
            return false; // the usual case
        }
        bookedAs = shareKey;
        return true;
    }

    private volatile String bookedAs;

    /**
     * Admits a tool call that will make requests costing {@code units} in all, promising it that quota: its requests
     * (those whose {@link #acquire} names the same {@code deadline}) are not refused for time while the promise
     * lasts. Refused at once when the quota promised and wanted ahead of it, and its own, could not be served in time
     * for its requests' round trips ({@code rounds}, one after another) before the deadline.
     *
     * @return the promise; closing it gives back what the call did not spend
     * @throws ToolException RATE_LIMITED, with when to try again, when it could not be served in time
     */
    public Promise admit(int units, int rounds, Deadline deadline, String what) {
        lock.lock();
        try {
            if (promises.containsKey(deadline)) {
                return new Promise(deadline, 0); // a call admitted already: its first promise covers it
            }
            long now = ticker.nanoTime();
            refill(now);
            refuseIfTooLate(now, units, deadline, rounds, what);
            Promise promise = new Promise(deadline, units);
            promised += units;
            promises.put(deadline, promise);
            return promise;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The bucket of the user's quota that every instance serving the user spends from ({@code PacingShare#book}), as
     * {@link GoogleCalls} reaches it for one account.
     */
    interface SharedBucket {
        /**
         * Books {@code units} for a call that may start within {@code maxWaitNanos}: BOOKED and how long until they
         * are its (0 or less: now); REFUSED and how long until they would be; or UNSHARED (the store cannot answer).
         */
        Booked book(double units, PacingShare.Bucket bucket, long maxWaitNanos);

        /** Gives back {@code units} booked that the call did not spend. */
        void giveBack(double units, PacingShare.Bucket bucket);

        /** Google refused a call for the quota: its bucket is empty, and the shared one becomes so too. */
        void empty(PacingShare.Bucket bucket);
    }

    /** What a booking gave, as {@link SharedBucket#book} says. */
    record Booked(PacingShare.Booking.Outcome outcome, long inNanos) {
    }

    /**
     * Admits a tool call as {@link #admit} does, but books its quota in the bucket that the instances serving the user
     * share rather than promising it from this instance's share of the limits: exact, whatever the spread of the
     * user's demand over the instances. Its requests then wait for the booked start and a slot, and spend nothing of
     * the local bucket. Refused at once when the shared bucket could not serve it in time, or Google asked for a pause
     * past that.
     *
     * @return the promise, or null when the shared bucket cannot answer now: {@link #admit} instead
     * @throws ToolException RATE_LIMITED, with when to try again, when it could not be served in time
     */
    Promise admitShared(int units, int rounds, Deadline deadline, String what, SharedBucket shared) {
        long now;
        long usable;
        boolean empty;
        PacingShare.Bucket bucket;
        lock.lock();
        try {
            if (promises.containsKey(deadline)) {
                return new Promise(deadline, 0); // a call admitted already: its first promise covers it
            }
            now = ticker.nanoTime();
            usable = usableNanos(now, deadline, rounds);
            refuseIfPausedPast(now, usable, what);
            bucket = sharedBucket();
            empty = takeEmptyShared();
        } finally {
            lock.unlock();
        }
        Booked booked = book(shared, empty, units, bucket, usable);
        return switch (booked.outcome()) {
            case UNSHARED -> unshared();
            case REFUSED -> throw tooLate(booked.inNanos(), usable, 0, what);
            case BOOKED -> {
                lock.lock();
                try {
                    Promise promise = new Promise(deadline, units, now + booked.inNanos(), shared, bucket);
                    promises.put(deadline, promise);
                    yield promise;
                } finally {
                    lock.unlock();
                }
            }
        };
    }

    /**
     * Books in the shared bucket what a request costing {@code cost} needs beyond its call's booked promise (a get on
     * its own; a retry): its call's promise grows by it, or a promise of its own is made for it. A call promised from
     * this instance's bucket before the user was found spread has what it has left booked instead, and is paced by the
     * shared bucket from then on (or stays as it was when that bucket cannot serve it in time: it was admitted).
     *
     * @return the promise made for this request (closed after it), or null: none made (its call's covers it, grew,
     *         or the call is paced locally, or the shared bucket cannot answer now)
     * @throws ToolException RATE_LIMITED when the shared bucket could not serve it in time
     */
    Promise bookRequest(int cost, Deadline deadline, String what, SharedBucket shared) {
        long now;
        long usable;
        double extra;
        boolean local;
        boolean empty;
        PacingShare.Bucket bucket;
        lock.lock();
        try {
            Promise promise = promises.get(deadline);
            local = promise != null && promise.shared == null;
            if (promise != null && !local && promise.left + 1e-9 >= cost) {
                return null; // booked already
            }
            now = ticker.nanoTime();
            usable = usableNanos(now, deadline, 1);
            if (!local) {
                refuseIfPausedPast(now, usable, what);
            }
            extra = local ? Math.max(cost, promise.left) : cost - (promise == null ? 0 : promise.left);
            bucket = sharedBucket();
            empty = takeEmptyShared();
        } finally {
            lock.unlock();
        }
        Booked booked = book(shared, empty, extra, bucket, usable);
        switch (booked.outcome()) {
            case UNSHARED:
                return unshared();
            case REFUSED:
                if (local) {
                    return null; // admitted already: it keeps its local promise
                }
                throw tooLate(booked.inNanos(), usable, 0, what);
            default:
                break;
        }
        lock.lock();
        try {
            Promise promise = promises.get(deadline);
            if (promise != null && promise.shared == null) {
                // the local promise becomes a booked one: its units leave this instance's promises
                promised -= promise.left;
                bookedLeft += extra;
                promise.left = extra;
                promise.shared = shared;
                promise.bucket = bucket;
                promise.notBefore = now + booked.inNanos();
                return null;
            }
            if (promise != null) {
                promise.left += extra;
                bookedLeft += extra;
                promise.notBefore = Math.max(promise.notBefore, now + booked.inNanos());
                return null;
            }
            Promise own = new Promise(deadline, extra, now + booked.inNanos(), shared, bucket);
            promises.put(deadline, own);
            return own;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the shared bucket is to be emptied before the next booking (it is, once): under the lock. */
    private boolean takeEmptyShared() {
        boolean empty = emptyShared;
        emptyShared = false;
        return empty;
    }

    /** Books {@code units} in the shared bucket, emptied first when {@code empty} says so: outside the lock. */
    private Booked book(SharedBucket shared, boolean empty, double units, PacingShare.Bucket bucket, long usable) {
        if (empty) {
            shared.empty(fullBucket());
        }
        return shared.book(units, bucket, usable);
    }

    /**
     * The shared bucket cannot answer (the store is down): the call is paced at this instance's share, which the
     * bucket will not have seen when it answers again; so it is emptied before the next booking.
     *
     * @return null, for the caller to answer
     */
    private Promise unshared() {
        locked(() -> emptyShared = true);
        return null;
    }

    /**
     * The user's whole bucket as configured, with the headroom pacing keeps below Google's burst, for the shared one.
     * Not the rate learned from refusals: booked calls are exact across the instances, so a refusal of one says that
     * quota was spent where no booking saw it (while the store was down, by another app), and empties the shared
     * bucket instead ({@link SharedBucket#empty}); a rate cut kept from such a refusal would waste quota long after.
     */
    PacingShare.Bucket sharedBucket() {
        return new PacingShare.Bucket(configuredUnitsPerMinute / 60.0, Math.max(1, configuredBurst * HEADROOM));
    }

    /**
     * The user's whole bucket as Google holds it, without the headroom pacing keeps below its burst: what is made
     * empty when Google refuses (a refusal says its bucket is empty, and the headroom must be kept below that too).
     */
    PacingShare.Bucket fullBucket() {
        return new PacingShare.Bucket(configuredUnitsPerMinute / 60.0, configuredBurst);
    }

    /** How long a call admitted now may wait for quota: a share of its time left less its round trips. Under the lock. */
    private long usableNanos(long now, Deadline deadline, int rounds) {
        return (long) Math.max(0, (deadline.remainingNanos(now) - rounds * latencyNanos) * ADMIT_SHARE);
    }

    /** Refuses a call that a pause Google asked for holds past {@code usable}. Under the lock. */
    private void refuseIfPausedPast(long now, long usable, String what) {
        if (pausedUntil - now > usable) {
            throw tooLate(pausedUntil - now, usable, pausedUntil - now, what);
        }
    }

    /**
     * Refuses (RATE_LIMITED, with when to try again) a call wanting {@code units} that could not be served before its
     * deadline: the quota promised and wanted ahead of it, and its own, at the rate now (or after a pause Google asked
     * for), plus its {@code rounds} round trips. Under the lock.
     */
    private void refuseIfTooLate(long now, double units, Deadline deadline, int rounds, String what) {
        refuseIfTooLate(now, units, deadline, rounds, what, promised + bookedLeft + waitingUnpromised);
    }

    /** As above, with {@code ahead} units to be spent before this call's. Under the lock. */
    private void refuseIfTooLate(long now, double units, Deadline deadline, int rounds, String what, double ahead) {
        double shortfall = ahead + units - this.units;
        double quotaWait = shortfall <= 0 ? 0 : shortfall / unitsPerNano;
        double wait = Math.max(quotaWait, pausedUntil - now);
        double usable = (deadline.remainingNanos(now) - rounds * latencyNanos) * ADMIT_SHARE;
        if (wait <= 0 || wait <= usable) {
            return;
        }
        throw tooLate(wait, usable, pausedUntil - now, what);
    }

    /**
     * The refusal of a call that would wait {@code wait} ns for its turn (of which {@code paused} for a pause Google
     * asked for), when its deadline lets it wait {@code usable}; counted.
     */
    private ToolException tooLate(double wait, double usable, double paused, String what) {
        counts.refusedForTime();
        // whole milliseconds, rounded up (less a hair of floating-point error), so that a caller honouring it is not early
        Duration retryAfter = Duration.ofMillis(Math.max(1, (long) Math.ceil((wait - Math.max(0, usable)) / 1e6 - 1e-6)));
        String why = paused >= wait ? api + " asked us to wait " + seconds(paused)
                + " s before the next call of this account"
                : "the " + api + " quota of this account is spoken for: this call would wait about " + seconds(wait)
                + " s for its turn";
        return ToolException.rateLimited(what + ": " + why + ", and its deadline leaves " + seconds(Math.max(0, usable))
                + " s; try again in " + seconds(retryAfter.toNanos()) + " s", retryAfter, null, true);
    }

    private static String seconds(double nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }

    /**
     * What a call waiting for quota runs each time it looks again ({@link #MAX_SLEEP_NANOS}): it asks the store that
     * shares the account's limits for this instance's share now and paces at it ({@link #share}), since while every
     * call waits none comes to ask. Null: the account is paced alone.
     */
    void followShare(Runnable follow) {
        followShare = follow;
    }

    private volatile Runnable followShare;

    /**
     * What the calls promised here and due before {@code deadline} have still to spend: what goes ahead of a request
     * of its call, earliest deadline first. Under the lock.
     */
    private double promisedBefore(Deadline deadline) {
        double ahead = 0;
        for (Promise p : promises.values()) {
            if (p.shared == null && p.deadline.endNanos() < deadline.endNanos()) {
                ahead += p.left;
            }
        }
        return ahead;
    }

    /** Whether the tool call of {@code deadline} holds a promise ({@link #admit}). */
    boolean holdsPromise(Deadline deadline) {
        return locked(() -> promises.containsKey(deadline));
    }

    /** Quota promised to one admitted tool call ({@link #admit}); closing it gives back what the call did not spend. */
    public final class Promise implements AutoCloseable {
        private final Deadline deadline;
        private double left; // guarded by the pacer's lock
        /** Where its quota was booked, or null: promised from this instance's bucket; guarded by the pacer's lock. */
        private SharedBucket shared;
        private PacingShare.Bucket bucket;
        /** When the quota booked for it is its ({@link Ticker#nanoTime}); guarded by the pacer's lock. */
        private long notBefore;

        private Promise(Deadline deadline, double units) {
            this(deadline, units, 0, null, null);
        }

        private Promise(Deadline deadline, double units, long notBefore, SharedBucket shared, PacingShare.Bucket bucket) {
            this.deadline = deadline;
            this.left = units;
            if (shared != null) {
                bookedLeft += units; // under the pacer's lock: shared promises are made under it
            }
            this.notBefore = notBefore;
            this.shared = shared;
            this.bucket = bucket;
        }

        /** Under the lock: a request of the call went, spending {@code units} of the promise (at most what is left). */
        private void spend(double units) {
            double spent = Math.min(left, units);
            left -= spent;
            if (shared != null) {
                bookedLeft -= spent;
            }
            if (shared == null) {
                promised -= spent;
            }
        }

        @Override
        public void close() {
            double unspent;
            SharedBucket bookedIn;
            lock.lock();
            try {
                unspent = left;
                bookedIn = shared;
                if (shared == null) {
                    promised -= left;
                } else {
                    bookedLeft -= left;
                }
                left = 0;
                promises.remove(deadline, this);
            } finally {
                lock.unlock();
            }
            if (bookedIn != null && unspent >= 1) {
                bookedIn.giveBack(unspent, bucket);
            }
        }
    }

    /** @param booking the booked promise it spent {@code cost} of, or null */
    private Permit permit(int slots, long sent, int inFlightNow, Promise booking, int cost) {
        return new Permit() {
            private boolean closed;

            @Override
            public boolean booked() {
                return booking != null;
            }

            @Override
            public void refused() {
                if (booking != null) {
                    lock.lock();
                    try {
                        booking.left += cost; // Google refused it, so it spent nothing there: its retry needs no booking
                        if (booking.shared != null) {
                            bookedLeft += cost;
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            }

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
                        latencyNanos += LATENCY_WEIGHT * (Math.max(0, ticker.nanoTime() - sent) - latencyNanos);
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
        unitsPerNano = configuredUnitsPerMinute * rateShare * fraction / 60.0 / 1e9;
        capacity = Math.max(1, configuredBurst * rateShare * HEADROOM * fraction);
        units = Math.min(units, capacity);
    }

    /** This instance's share of the configured concurrency: at least one call. */
    private double maxLevel() {
        return Math.max(1, configuredMaxInFlight * fraction);
    }

    private void setCap(double level) {
        capLevel = Math.max(1, Math.min(maxLevel(), level));
        int next = (int) (capLevel + 1e-9); // a share times its inverse is whole again, not 5.999...
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
        permit.refused();
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
                // a booked call refused: quota was spent where no booking saw it (an instance that served the user
                // alone a moment ago, another app of the user's), not a rate the bookings got wrong; the shared bucket
                // is emptied instead (GoogleCalls)
                if (permit.sentNanos() > lastRateCut && !permit.booked()) {
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
     * Paces at this instance's share of the user's limits, as {@code demand} gives it ({@link #fraction}): the quota,
     * the burst and the calls in flight (at least one), so that the instances together stay within the user's limits.
     * When another instance starts asking, what was learned from refusals is forgotten (those refusals were earned
     * together with its unseen calls) and the bucket starts empty if calls went at the larger share (the shared one
     * too, if any of them went unbooked in it); otherwise the learned limits are kept as a proportion. Cheap when the
     * share moved less than {@link #SHARE_STEP}.
     */
    public void share(PacingShare.Demand demand) {
        double next = fraction(demand, configuredUnitsPerMinute / 60.0);
        int others = demand.otherInstances();
        if (others == otherInstances && Math.abs(next - fraction) <= SHARE_STEP * fraction) {
            return; // the usual case: no lock on the call's path
        }
        lock.lock();
        try {
            double before = fraction;
            boolean newcomer = others > otherInstances;
            otherInstances = others;
            fraction = next;
            refill(ticker.nanoTime());
            if (newcomer) {
                // Another instance asks of this user's limits now: the refusals this one learned from were earned
                // together with its unseen calls, so they say nothing of the user's limits; and if it has sent calls
                // at its larger share, it and the others may have spent the user's bucket between them. Start over
                // at the new share, from an empty bucket then (a pacer that has sent nothing keeps its share of a
                // full one).
                refusedRateShare = Double.POSITIVE_INFINITY;
                refusedCap = Double.POSITIVE_INFINITY;
                setRate(1.0);
                // and the refusals still to come of calls sent before now were earned that way too: they cut nothing
                long now = ticker.nanoTime();
                lastRateCut = now;
                lastCapCut = now;
                if (sentAny && next < before) {
                    units = 0;
                    // and so may the bucket the instances share hold less than it says, if calls went unbooked in it:
                    // emptied at the next booking. Not when every call was booked: emptying it then threw away what
                    // three instances that began serving a hot user together had booked exactly (~7 % of its quota).
                    emptyShared |= sentPacedHere;
                }
                sentPacedHere = false;
                setCap(maxLevel());
            } else {
                setRate(rateShare);
                // the same share of the new per-instance concurrency as learned; more room now may wake callers
                setCap(capLevel * next / before);
                refusedCap = refusedCap * next / before;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** How far the share may move before the pacer is changed: a tenth of a call in ten is noise. */
    static final double SHARE_STEP = 0.02;
    /**
     * The least an instance's demand weighs when the user asks more than the quota, as a share of the quota split
     * evenly: an instance whose calls have just begun goes at once, at a small share, until its demand is known.
     */
    static final double FLOOR = 0.25;

    /**
     * This instance's share of a user's limits, from the demand on them ({@code capacity}: the quota, units a second):
     * alone, all of it; when the instances together ask no more than the quota, each what it asks plus an even part of
     * what is left (so that a rise anywhere finds room at once); when they ask more, each in proportion to what it asks
     * (each counted as asking at least {@link #FLOOR} of an even split). Shares of the instances sum to one when they
     * see the same demand.
     */
    static double fraction(PacingShare.Demand demand, double capacity) {
        if (demand.otherInstances() == 0 || !(capacity > 0)) {
            return 1.0;
        }
        int n = demand.otherInstances() + 1;
        double own = demand.own();
        double others = demand.others();
        double total = own + others;
        double share;
        if (total <= capacity) {
            share = (own + (capacity - total) / n) / capacity;
        } else {
            double floor = capacity * FLOOR / n;
            double mine = Math.max(own, floor);
            share = mine / (mine + Math.max(others, floor * (n - 1)));
        }
        return Math.max(MIN_FRACTION, Math.min(1.0, share));
    }

    /** The smallest share an instance paces at: a call always goes, within about a minute at worst. */
    static final double MIN_FRACTION = 1.0 / 1_000;

    /**
     * What was learned of the account's limits, for metrics: a rate or a cap on calls in flight below the configured
     * one (this instance's share of it, when shared), and whether it paces at a share.
     */
    record Learned(boolean rateBelowConfigured, boolean capBelowConfigured, boolean shared) {
    }

    Learned learned() {
        return locked(() -> new Learned(rateShare < 1.0, cap < (int) maxLevel(), fraction < 1.0));
    }

    /** {@code read} under the lock: one line for a getter. */
    private <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }

    /** Calls let in flight at once now (the configured cap, or less after concurrency refusals). */
    public int maxInFlight() {
        return locked(() -> cap);
    }

    /** Quota units a minute let through now (the configured quota, or less after refusals). */
    public double unitsPerMinute() {
        return locked(() -> configuredUnitsPerMinute * rateShare * fraction);
    }
}
