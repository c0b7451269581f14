package dev.agenttools.google;

import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * The token bucket and the cap on calls in flight. Quota waits run in virtual time ({@link VirtualTime}), so the
 * assertions are on what was granted and what was waited for, never on how long a test took.
 */
class QuotaPacerTest {
    private static final Duration HOUR = Duration.ofHours(1);
    /** 600 units a minute: one unit every 100 ms. */
    private static final int TEN_A_SECOND = 600;
    private static final long ONE_UNIT_NANOS = Duration.ofMillis(100).toNanos();
    /** Rounding of the refill arithmetic, in nanoseconds. */
    private static final long ROUNDING = 1_000;
    private final VirtualTime time = new VirtualTime();

    @Test
    void letsAFullBucketThroughAtOnceThenPacesToTheRate() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time);
        int bucket = (int) (10 * QuotaPacer.HEADROOM);

        for (int i = 0; i < bucket; i++) {
            pacer.acquire(1, 1, time.deadline(HOUR), "call " + i).close();
        }
        assertThat(time.sleeps).isEmpty();
        for (int i = 0; i < 5; i++) {
            pacer.acquire(1, 1, time.deadline(HOUR), "paced call " + i).close();
        }

        assertThat(time.slept()).isCloseTo(5 * ONE_UNIT_NANOS, within(ROUNDING));
    }

    @Test
    void pacesAtItsShareWhenInstancesServeTheUserTogether() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 30, 6, time); // alone: a bucket of 27 units, 6 in flight
        pacer.share(evenly(3)); // three instances: each 200 units a minute (one every 300 ms), a bucket of 9, 2 in flight

        assertThat(pacer.maxInFlight()).isEqualTo(2);
        assertThat(pacer.unitsPerMinute()).isCloseTo(200.0, within(1e-9));
        for (int i = 0; i < 9; i++) {
            pacer.acquire(1, 1, time.deadline(HOUR), "call " + i).close();
        }
        assertThat(time.sleeps).isEmpty();
        pacer.acquire(1, 1, time.deadline(HOUR), "paced call").close();
        assertThat(time.slept()).isCloseTo(3 * ONE_UNIT_NANOS, within(ROUNDING));

        pacer.share(PacingShare.Demand.ALONE); // the others gone: the whole of the limits again
        assertThat(pacer.maxInFlight()).isEqualTo(6);
        assertThat(pacer.unitsPerMinute()).isCloseTo(600.0, within(1e-9));
        pacer.share(new PacingShare.Demand(Double.NaN, -1, -3)); // nonsense from a store counts as alone
        assertThat(pacer.maxInFlight()).isEqualTo(6);
    }

    @Test
    void refusalsEarnedBeforeMoreInstancesWereKnownAreForgottenAndThoseAfterKeptWhenOneLeaves() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 30, 6, time);
        QuotaPacer.Permit refused = pacer.acquire(1, 6, time.deadline(HOUR), "a burst paced as if alone");
        refused.close();
        pacer.rateLimited(refused, false, null);
        pacer.rateLimited(refused, true, null);
        assertThat(pacer.unitsPerMinute()).isCloseTo(300.0, within(1e-9));
        assertThat(pacer.maxInFlight()).isEqualTo(3);

        // the others the refusals came with are known now: this one paces at its share of the user's whole limits,
        // from an empty bucket (they and this one may have spent the user's between them)
        pacer.share(evenly(3));
        assertThat(pacer.unitsPerMinute()).isCloseTo(200.0, within(1e-9));
        assertThat(pacer.maxInFlight()).isEqualTo(2);
        time.sleeps.clear();
        pacer.acquire(1, 1, time.deadline(HOUR), "first call at the share").close();
        assertThat(time.slept()).isCloseTo(3 * ONE_UNIT_NANOS, within(ROUNDING));

        // a refusal at the share is the user's limit speaking: kept, in proportion, when an instance leaves
        time.advance(Duration.ofSeconds(10));
        QuotaPacer.Permit atShare = pacer.acquire(1, 1, time.deadline(HOUR), "at the share");
        atShare.close();
        pacer.rateLimited(atShare, false, null);
        assertThat(pacer.unitsPerMinute()).isCloseTo(100.0, within(1e-9));
        pacer.share(evenly(2));
        assertThat(pacer.unitsPerMinute()).isCloseTo(150.0, within(1e-9));
    }

    @Test
    void chargesEachCallItsCost() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 50, 5, time); // a bucket of 45 units

        for (int i = 0; i < 9; i++) {
            pacer.acquire(5, 1, time.deadline(HOUR), "messages.get").close();
        }
        assertThat(time.sleeps).isEmpty();
        pacer.acquire(5, 1, time.deadline(HOUR), "messages.get").close();

        assertThat(time.slept()).isCloseTo(5 * ONE_UNIT_NANOS, within(ROUNDING));
    }

    @Test
    void refillsWhileIdleButNeverBeyondTheBucket() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time); // a bucket of 9 units
        pacer.acquire(9, 1, time.deadline(HOUR), "drain").close();

        time.advance(Duration.ofMillis(300));
        for (int i = 0; i < 3; i++) {
            pacer.acquire(1, 1, time.deadline(HOUR), "refilled").close();
        }
        assertThat(time.sleeps).isEmpty();
        time.advance(Duration.ofMinutes(10));
        for (int i = 0; i < 9; i++) {
            pacer.acquire(1, 1, time.deadline(HOUR), "after a long idle").close();
        }
        assertThat(time.sleeps).isEmpty();
        pacer.acquire(1, 1, time.deadline(HOUR), "one more").close();

        assertThat(time.slept()).isCloseTo(ONE_UNIT_NANOS, within(ROUNDING));
    }

    @Test
    void aCallCostingMoreThanTheBucketWaitsForAFullBucketNotForever() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time); // a bucket of 9 units

        pacer.acquire(100, 1, time.deadline(HOUR), "batch of 100 units").close();
        assertThat(time.sleeps).isEmpty();
        pacer.acquire(100, 1, time.deadline(HOUR), "batch of 100 units").close();

        assertThat(time.slept()).isCloseTo(9 * ONE_UNIT_NANOS, within(ROUNDING));
    }

    @Test
    void concurrentAcquirersNeverGetMoreThanTheBucketPlusTheRefill() throws Exception {
        int threads = 8;
        int callsEach = 40;
        int bucket = (int) (20 * QuotaPacer.HEADROOM);
        double unitsPerNano = 6_000 / 60.0 / 1e9;
        QuotaPacer pacer = new QuotaPacer("Gmail", 6_000, 20, 4, time);
        long start = time.nanoTime();
        List<Long> grantedAt = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> acquirers = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(threads)) {
            for (int t = 0; t < threads; t++) {
                acquirers.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < callsEach; i++) {
                        QuotaPacer.Permit p = pacer.acquire(1, 1, time.deadline(HOUR), "messages.list");
                        grantedAt.add(time.nanoTime()); // read after the grant: never earlier than it
                        p.close();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : acquirers) {
                f.get(20, TimeUnit.SECONDS);
            }
        }

        assertThat(grantedAt).hasSize(threads * callsEach);
        List<Long> sorted = grantedAt.stream().sorted().toList();
        for (int k = 1; k <= sorted.size(); k++) {
            double allowed = bucket + (sorted.get(k - 1) - start) * unitsPerNano;
            assertThat((double) k).as("grants by the %dth", k).isLessThanOrEqualTo(allowed + 1e-6);
        }
    }

    @Test
    void capsCallsInFlightAndHandsFreedSlotsOutInArrivalOrder() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", 6_000, 100, 2, time);
        QuotaPacer.Permit first = pacer.acquire(1, 1, time.deadline(HOUR), "first");
        QuotaPacer.Permit second = pacer.acquire(1, 1, time.deadline(HOUR), "second");
        List<String> order = new CopyOnWriteArrayList<>();
        List<QuotaPacer.Permit> held = new CopyOnWriteArrayList<>();
        Thread a = waiter(pacer, "a", order, held);
        awaitParked(a);
        Thread b = waiter(pacer, "b", order, held);
        awaitParked(b);
        assertThat(order).isEmpty();

        first.close();
        a.join(Duration.ofSeconds(20));
        assertThat(order).containsExactly("a");
        second.close();
        b.join(Duration.ofSeconds(20));

        assertThat(order).containsExactly("a", "b");
        held.forEach(QuotaPacer.Permit::close);
    }

    @Test
    void aCallTakingSeveralSlotsTakesAtMostAll() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", 6_000, 100, 3, time);

        QuotaPacer.Permit batch = pacer.acquire(1, 10, time.deadline(Duration.ofSeconds(5)), "batch of 10 parts");
        ToolException full = catchThrowableOfType(ToolException.class,
                () -> pacer.acquire(1, 1, time.deadline(Duration.ofMillis(20)), "messages.get"));
        batch.close();

        assertThat(full.kind()).isEqualTo(ToolException.Kind.DEADLINE);
        assertThat(full).hasMessageStartingWith("messages.get (waiting for a free request slot): deadline of 20 ms exceeded");
        pacer.acquire(0, 3, time.deadline(Duration.ZERO), "all slots are free again").close();
    }

    @Test
    void refusesAtOnceWhenTheQuotaCannotRefillBeforeTheDeadline() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", 60, 1, 1, time); // one unit a second, a bucket of one
        pacer.acquire(1, 1, time.deadline(HOUR), "first").close();

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> pacer.acquire(1, 1, time.deadline(Duration.ofMillis(500)), "messages.list"));

        // refused before it waited or spent anything, saying when a call of the same deadline would fit: the unit
        // refills in 1 s, and 500 ms less a request's round trip (180 ms: 200 before any was timed, moved a tenth of
        // the way to the first request's 0 in virtual time) leaves 320 ms, of which a wait may fill three quarters
        assertThat(e.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(e).hasMessageStartingWith("messages.list: the Gmail quota of this account is spoken for: this call would"
                + " wait about 1.0 s for its turn, and its deadline leaves 0.2 s; try again in 0.8 s");
        assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(760));
        assertThat(time.sleeps).isEmpty();
        // the slot went back, and a deadline the refill fits in is met by waiting
        pacer.acquire(1, 1, time.deadline(Duration.ofSeconds(2)), "messages.list").close();
        assertThat(time.slept()).isCloseTo(Duration.ofSeconds(1).toNanos(), within(ROUNDING));
    }

    @Test
    void anInterruptWhileWaitingForASlotEndsTheWait() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", 6_000, 100, 1, time);
        QuotaPacer.Permit only = pacer.acquire(1, 1, time.deadline(HOUR), "holder");
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                pacer.acquire(1, 1, time.deadline(HOUR), "waiter").close();
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        awaitParked(waiter);

        waiter.interrupt();

        assertThat(waiter.join(Duration.ofSeconds(20))).as("the wait ended").isTrue();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        only.close();
        pacer.acquire(0, 1, time.deadline(Duration.ZERO), "the slot is free").close();
    }

    @Test
    void anInterruptWhileWaitingForQuotaEndsTheWaitAndGivesTheSlotBack() throws Exception {
        CountDownLatch sleeping = new CountDownLatch(1);
        Ticker sleepsForReal = VirtualTime.systemSignalling(sleeping);
        QuotaPacer pacer = new QuotaPacer("Gmail", 1, 1, 2, sleepsForReal); // one unit a minute
        pacer.acquire(1, 1, Deadline.in(HOUR), "first").close();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                pacer.acquire(1, 1, Deadline.in(HOUR), "waiter").close();
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        assertThat(sleeping.await(20, TimeUnit.SECONDS)).as("waiting for quota").isTrue();

        waiter.interrupt();

        assertThat(waiter.join(Duration.ofSeconds(20))).as("the wait ended").isTrue();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        pacer.acquire(0, 2, Deadline.in(Duration.ZERO), "both slots are free").close();
    }

    @Test
    void refusesSettingsThatCannotPace() {
        assertThatThrownBy(() -> new QuotaPacer("Gmail", 0, 10, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("quota pacing needs positive units per minute, burst and concurrency, got 0, 10, 2");
        assertThatThrownBy(() -> new QuotaPacer("Gmail", 600, -1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QuotaPacer("Gmail", 600, 10, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aQuotaRefusalHalvesTheRateAndEmptiesTheBucket() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time);
        QuotaPacer.Permit refused = pacer.acquire(1, 1, time.deadline(HOUR), "messages.get");
        refused.close();

        pacer.rateLimited(refused, false, null);

        assertThat(pacer.unitsPerMinute()).isEqualTo(TEN_A_SECOND / 2.0);
        assertThat(pacer.maxInFlight()).as("the cap is for concurrency refusals").isEqualTo(5);
        pacer.acquire(1, 1, time.deadline(HOUR), "after the refusal").close();
        assertThat(time.slept()).as("one unit at five a second").isCloseTo(2 * ONE_UNIT_NANOS, within(ROUNDING));
    }

    @Test
    void refusalsOfCallsSentAtTheOldPaceCutTheRateOnlyOnce() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 8, time);
        List<QuotaPacer.Permit> burst = hold(pacer, 6, 1);
        time.advance(Duration.ofMillis(1));

        for (QuotaPacer.Permit p : burst) {
            pacer.rateLimited(p, false, null);
            p.close();
        }

        assertThat(pacer.unitsPerMinute()).isEqualTo(TEN_A_SECOND / 2.0);
        // a call sent after the cut and refused too cuts again: the new pace is still too fast
        time.advance(Duration.ofMillis(1));
        QuotaPacer.Permit after = pacer.acquire(1, 1, time.deadline(HOUR), "after");
        after.close();
        pacer.rateLimited(after, false, null);
        assertThat(pacer.unitsPerMinute()).isEqualTo(TEN_A_SECOND / 4.0);
    }

    @Test
    void oneBurstOfConcurrencyRefusalsTeachesTheLimitItHit() throws Exception {
        // ten calls at once against a Gmail that lets two of them in: the eight refused went out with 3..10 in flight
        QuotaPacer pacer = new QuotaPacer("Gmail", 60_000, 1_000, 20, time);
        List<QuotaPacer.Permit> burst = hold(pacer, 10, 5);
        for (QuotaPacer.Permit p : burst.subList(2, 10)) {
            pacer.rateLimited(p, true, null);
            p.close();
        }

        assertThat(pacer.maxInFlight()).isEqualTo(2);
        assertThat(pacer.unitsPerMinute()).as("the quota was not the problem").isEqualTo(60_000);
    }

    @Test
    void theCapShrinksUnderCallsAlreadyInFlight() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", 6_000, 100, 4, time);
        List<QuotaPacer.Permit> inFlight = hold(pacer, 4, 1);

        pacer.rateLimited(inFlight.getLast(), true, null);
        inFlight.forEach(QuotaPacer.Permit::close);

        QuotaPacer.Permit a = pacer.acquire(1, 1, time.deadline(Duration.ZERO), "a");
        QuotaPacer.Permit b = pacer.acquire(1, 1, time.deadline(Duration.ZERO), "b");
        ToolException third = catchThrowableOfType(ToolException.class,
                () -> pacer.acquire(1, 1, time.deadline(Duration.ZERO), "c"));
        assertThat(third.kind()).isEqualTo(ToolException.Kind.DEADLINE);
        a.close();
        b.close();
        assertThat(pacer.acquire(1, 8, time.deadline(Duration.ZERO), "a batch takes at most the cap")).isNotNull();
    }

    @Test
    void successesWinTheLimitsBackSlowlyAndNeverPastTheConfiguredOnes() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 8, time);
        List<QuotaPacer.Permit> eight = hold(pacer, 8, 0);
        QuotaPacer.Permit p = eight.getLast();
        pacer.rateLimited(p, true, null);
        pacer.rateLimited(p, false, null);
        eight.forEach(QuotaPacer.Permit::close);
        assertThat(pacer.maxInFlight()).isEqualTo(4);

        for (int i = 0; i < 3; i++) {
            pacer.succeeded(p);
        }
        assertThat(pacer.maxInFlight()).as("not straight back up").isEqualTo(4);
        assertThat(pacer.unitsPerMinute()).isLessThan(TEN_A_SECOND * 0.6);
        for (int i = 0; i < 20; i++) {
            pacer.succeeded(p);
        }
        assertThat(pacer.maxInFlight()).as("one more after about 4 x 4 successes").isEqualTo(5);
        for (int i = 0; i < 1_000; i++) {
            pacer.succeeded(p);
        }
        assertThat(pacer.maxInFlight()).isEqualTo(8);
        assertThat(pacer.unitsPerMinute()).isEqualTo(TEN_A_SECOND);
    }

    @Test
    void theRateIsNeverCutToNothing() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 2, time);
        for (int i = 0; i < 50; i++) {
            time.advance(Duration.ofMillis(1)); // each sent after the last cut
            QuotaPacer.Permit p = pacer.acquire(0, 1, time.deadline(HOUR), "refused " + i);
            p.close();
            time.advance(Duration.ofMillis(1));
            pacer.rateLimited(p, false, null);
        }
        assertThat(pacer.unitsPerMinute()).isEqualTo(TEN_A_SECOND * QuotaPacer.MIN_RATE_SHARE);
        assertThat(pacer.maxInFlight()).isEqualTo(2);
    }

    @Test
    void retryAfterHoldsEveryCallOfTheUserUntilThen() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", 6_000, 100, 4, time);
        QuotaPacer.Permit p = pacer.acquire(1, 1, time.deadline(HOUR), "refused");
        p.close();
        pacer.rateLimited(p, false, Duration.ofSeconds(3));

        ToolException tooSoon = catchThrowableOfType(ToolException.class,
                () -> pacer.acquire(1, 1, time.deadline(Duration.ofSeconds(2)), "messages.list"));
        assertThat(tooSoon.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(tooSoon).hasMessageStartingWith("messages.list: Gmail asked us to wait 3.0 s before the next call of this account");
        // 3 s less three quarters of (2 s less a 180 ms round trip)
        assertThat(tooSoon.retryAfter()).isEqualTo(Duration.ofMillis(1_635));
        assertThat(time.sleeps).isEmpty();

        pacer.acquire(1, 1, time.deadline(HOUR), "messages.list").close();
        assertThat(time.slept()).isGreaterThanOrEqualTo(Duration.ofSeconds(3).toNanos());
    }

    @Test
    void theCallWithTheEarliestDeadlineGoesFirstWhateverItsArrival() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", 6_000, 100, 1, time);
        QuotaPacer.Permit only = pacer.acquire(1, 1, time.deadline(HOUR), "holder");
        List<String> order = new CopyOnWriteArrayList<>();
        List<QuotaPacer.Permit> held = new CopyOnWriteArrayList<>();
        Thread relaxed = waiter(pacer, "relaxed", Duration.ofMinutes(50), order, held);
        awaitParked(relaxed);
        Thread urgent = waiter(pacer, "urgent", Duration.ofMinutes(10), order, held);
        awaitParked(urgent);

        only.close();
        urgent.join(Duration.ofSeconds(20));
        held.forEach(QuotaPacer.Permit::close);
        relaxed.join(Duration.ofSeconds(20));

        assertThat(order).containsExactly("urgent", "relaxed");
        held.forEach(QuotaPacer.Permit::close);
    }

    /** {@code n} instances asking alike (nothing yet): each paces at 1/n of the limits. */
    private static PacingShare.Demand evenly(int n) {
        return new PacingShare.Demand(0, 0, n - 1);
    }

    @Test
    void aShareFollowsDemandAndTheInstancesSharesAddUpToTheWhole() {
        double quota = 40; // units a second
        assertThat(QuotaPacer.fraction(PacingShare.Demand.ALONE, quota)).as("alone").isEqualTo(1.0);
        assertThat(QuotaPacer.fraction(new PacingShare.Demand(30, 0, 0), quota)).as("alone, however busy").isEqualTo(1.0);
        // a hot user at 1.5 x its quota spread evenly by round robin: a third each
        assertThat(QuotaPacer.fraction(new PacingShare.Demand(20, 40, 2), quota)).isCloseTo(1.0 / 3, within(1e-9));
        // below the quota: each what it asks, plus an even part of what is left
        assertThat(QuotaPacer.fraction(new PacingShare.Demand(10, 2, 1), quota)).isCloseTo((10 + 14) / 40.0, within(1e-9));
        // over it: in proportion to demand, one whose calls have just begun counted at a floor, so it goes at once
        double quiet = QuotaPacer.fraction(new PacingShare.Demand(0, 60, 1), quota);
        assertThat(quiet).isCloseTo(5.0 / 65, within(1e-9)).isPositive();
        for (double[] demands : new double[][] {{30, 5, 1}, {50, 25, 5}, {3, 2, 1}, {0, 0, 12}, {100, 0.5, 0.5}}) {
            double sum = 0;
            for (int i = 0; i < demands.length; i++) {
                double others = 0;
                for (int j = 0; j < demands.length; j++) {
                    others += j == i ? 0 : demands[j];
                }
                sum += QuotaPacer.fraction(new PacingShare.Demand(demands[i], others, demands.length - 1), quota);
            }
            if (Arrays.stream(demands).sum() <= quota
                    || Arrays.stream(demands).allMatch(d -> d >= quota * QuotaPacer.FLOOR / demands.length)) {
                assertThat(sum).as("shares of %s", Arrays.toString(demands)).isCloseTo(1.0, within(1e-9));
            } else {
                // an instance under the floor is counted at it: together a little over the whole, by at most the floors
                assertThat(sum).as("shares of %s", Arrays.toString(demands)).isBetween(1.0, 1.0 + QuotaPacer.FLOOR);
            }
        }
    }

    @Test
    void aCallThatCannotBeServedInTimeIsRefusedAtOnceAndOneAdmittedIsNot() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 30, 10, time); // a bucket of 27 units
        Deadline first = time.deadline(Duration.ofSeconds(5));
        QuotaPacer.Promise list = pacer.admit(55, 2, first, "a list of 10"); // 27 now, 28 more within 2.8 s
        Deadline second = time.deadline(Duration.ofSeconds(5));
        ToolException refused = catchThrowableOfType(ToolException.class, () -> pacer.admit(25, 2, second, "a list of 4"));
        // 55 promised + 25 - 27 in the bucket: 5.3 s at ten a second, past three quarters of 5 s less two round trips
        assertThat(refused.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(1_850));
        assertThat(time.sleeps).as("refused without waiting").isEmpty();

        // the admitted list's requests go, waiting their turn, never refused for time: 11 of 5 units
        for (int i = 0; i < 11; i++) {
            pacer.acquire(5, 1, first, "request " + i).close();
        }
        assertThat(time.slept()).isCloseTo(2_800_000_000L, within(ROUNDING));
        list.close();
        // what a closed promise did not spend is given back: nothing promised, so a list that fits goes
        pacer.admit(25, 2, time.deadline(Duration.ofSeconds(4)), "a list of 4 again").close();
    }

    @Test
    void aRetryPastItsCallsPromiseWaitsItsTurnAheadOfLaterCallsInsteadOfBeingRefused() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 30, 10, time); // a bucket of 27 units
        Deadline first = time.deadline(Duration.ofSeconds(3));
        QuotaPacer.Promise list = pacer.admit(10, 2, first, "a list of 1");
        pacer.acquire(5, 1, first, "messages.list").close();
        pacer.acquire(5, 1, first, "messages.get").close(); // its promise spent
        // later calls promise all the bucket holds and 2.2 s more: as a new call, a get would wait 2.7 s, past the
        // 2.1 s that admission allows of 3 s (three quarters, less a round trip)
        Deadline later = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise others = pacer.admit(39, 2, later, "lists admitted after it");
        assertThat(catchThrowableOfType(ToolException.class, () -> pacer.acquire(5, 1, time.deadline(Duration.ofSeconds(3)),
                "a get on its own")).kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);

        // the first list's get again (Google refused it): admitted with its call, it goes first, its deadline earliest
        pacer.acquire(5, 1, first, "messages.get again").close();
        assertThat(time.slept()).as("no wait: the bucket held its 5 units").isZero();
        list.close();
        others.close();
    }

    @Test
    void aRetryTheCallsDueBeforeItLeaveNoTimeIsRefusedAtOnce() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 30, 10, time); // a bucket of 27 units
        QuotaPacer.Promise earlier = pacer.admit(60, 1, time.deadline(Duration.ofSeconds(9)), "a list of 11");
        Deadline mine = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise list = pacer.admit(10, 1, mine, "a list of 1");
        pacer.acquire(5, 1, mine, "messages.list").close();
        pacer.acquire(5, 1, mine, "messages.get").close();
        time.advance(Duration.ofSeconds(6));
        // the first list's 60 units go first (its deadline is earlier): 3.8 s for this one's 5, past the 2.85 s that
        // three quarters of its last 4 s less a round trip allow
        ToolException refused = catchThrowableOfType(ToolException.class, () -> pacer.acquire(5, 1, mine, "messages.get again"));
        assertThat(refused.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(time.sleeps).isEmpty();
        list.close();
        earlier.close();
    }

    @Test
    void aPromiseNotSpentIsGivenBackWhenTheCallEnds() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 30, 10, time); // a bucket of 27 units
        Deadline d = time.deadline(Duration.ofSeconds(2));
        QuotaPacer.Promise big = pacer.admit(35, 2, d, "a list of 6, found in the index");
        pacer.acquire(5, 1, d, "messages.list").close(); // the index held the rest: only the list was spent
        assertThatThrownBy(() -> pacer.admit(25, 2, time.deadline(Duration.ofSeconds(2)), "meanwhile"))
                .as("30 units still promised").isInstanceOf(ToolException.class);
        big.close();
        pacer.admit(25, 2, time.deadline(Duration.ofSeconds(2)), "after").close();
        assertThat(time.sleeps).isEmpty();
    }

    @Test
    void aCallWaitingForQuotaLooksAtItsShareAgainAndGoesSoonerWhenTheOthersGiveWay() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time); // a bucket of 9 units
        // an instance asking nothing beside one asking the whole quota: the floor, a small share
        PacingShare.Demand crowded = new PacingShare.Demand(0, 20, 1);
        pacer.share(crowded);
        double floorShare = QuotaPacer.fraction(crowded, TEN_A_SECOND / 60.0);
        int[] looks = {0};
        // the other instance's calls end: at the waiting call's first look again it is alone
        pacer.followShare(() -> {
            looks[0]++;
            pacer.share(PacingShare.Demand.ALONE);
        });
        Deadline d = time.deadline(HOUR);
        double bucketAtShare = Math.max(1, 10 * QuotaPacer.HEADROOM * floorShare);
        pacer.acquire((int) Math.floor(bucketAtShare), 1, d, "the share's bucket").close();

        pacer.acquire(5, 1, d, "a get").close();

        assertThat(looks[0]).as("it looked again while it waited").isPositive();
        double atFloor = 5 / (TEN_A_SECOND / 60.0 * floorShare) * 1e9;
        // first look after at most MAX_SLEEP_NANOS, then the rest at the whole quota: far less than at the floor
        assertThat((double) time.slept()).isLessThan(QuotaPacer.MAX_SLEEP_NANOS + 5 * ONE_UNIT_NANOS + ROUNDING)
                .isLessThan(atFloor / 2);
    }

    /**
     * The bucket the instances serving a user share, in the test's virtual time, as the store keeps it (a theoretical
     * arrival time moved by each booking); with what was booked and given back.
     */
    private final class FakeSharedBucket implements QuotaPacer.SharedBucket {
        long tat = time.nanoTime();
        final List<Double> booked = new CopyOnWriteArrayList<>();
        final List<Double> givenBack = new CopyOnWriteArrayList<>();
        boolean down;

        @Override
        public synchronized QuotaPacer.Booked book(double units, PacingShare.Bucket bucket, long maxWaitNanos) {
            if (down) {
                return new QuotaPacer.Booked(PacingShare.Booking.Outcome.UNSHARED, 0);
            }
            long now = time.nanoTime();
            long perUnit = (long) (1e9 / bucket.unitsPerSecond());
            long from = Math.max(tat, now);
            long start = from + (long) (units * perUnit) - (long) (bucket.burst() * perUnit);
            if (start - now > maxWaitNanos) {
                return new QuotaPacer.Booked(PacingShare.Booking.Outcome.REFUSED, start - now);
            }
            booked.add(units);
            tat = from + (long) (units * perUnit);
            return new QuotaPacer.Booked(PacingShare.Booking.Outcome.BOOKED, start - now);
        }

        @Override
        public synchronized void giveBack(double units, PacingShare.Bucket bucket) {
            givenBack.add(units);
            tat -= (long) (units * 1e9 / bucket.unitsPerSecond());
        }

        @Override
        public synchronized void empty(PacingShare.Bucket bucket) {
            emptied++;
            tat = Math.max(tat, time.nanoTime() + (long) (bucket.burst() * 1e9 / bucket.unitsPerSecond()));
        }

        int emptied;

        /** Another instance books {@code units} now. */
        void elsewhere(double units) {
            book(units, new PacingShare.Bucket(TEN_A_SECOND / 60.0, 9), Long.MAX_VALUE);
        }
    }

    @Test
    void aCallOfAUserOtherInstancesServeTooBooksItsQuotaInTheSharedBucketAndWaitsOnlyForItsStart() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time); // a bucket of 9 units
        FakeSharedBucket shared = new FakeSharedBucket();
        shared.elsewhere(9); // another instance spent the whole burst a moment ago
        Deadline d = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise list = pacer.admitShared(25, 2, d, "a list of 4", shared);
        assertThat(list).isNotNull();
        assertThat(shared.booked).containsExactly(9.0, 25.0);
        assertThat(time.sleeps).as("admitted without waiting").isEmpty();

        pacer.acquire(5, 1, d, "messages.list").close();
        pacer.acquire(20, 4, d, "4 messages.get").close();
        // its 25 units are free once the 9 before them and 16 of its own have been paid: 2.5 s, waited once
        assertThat(time.sleeps).hasSize(1);
        assertThat(time.slept()).isCloseTo(25 * ONE_UNIT_NANOS, within(ROUNDING));
        list.close();
        assertThat(shared.givenBack).as("all of it spent").isEmpty();
        // what it spent was taken from this instance's own bucket too (without waiting on it): were the store to fail
        // now, the calls paced here would not start with a full bucket on top of what the others booked
        time.sleeps.clear();
        pacer.acquire(9, 1, time.deadline(HOUR), "a call paced here").close();
        assertThat(time.sleeps).as("it waits for this bucket's refill").isNotEmpty();
    }

    @Test
    void findingOtherInstancesEmptiesTheSharedBucketOnlyWhenCallsWentUnbookedInIt() throws Exception {
        // new here: its calls are booked while the store has not said whether other instances serve the user too
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time); // a bucket of 9 units
        FakeSharedBucket shared = new FakeSharedBucket();
        Deadline first = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise get = pacer.admitShared(5, 1, first, "a get, booked", shared);
        pacer.acquire(5, 1, first, "messages.get").close();
        get.close();

        pacer.share(evenly(3)); // two others found, which booked theirs in the same bucket
        Deadline next = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise again = pacer.admitShared(4, 1, next, "the next get", shared);
        pacer.acquire(4, 1, next, "messages.get").close();
        again.close();
        assertThat(shared.emptied).as("what every instance booked is exact: nothing to throw away").isZero();
        assertThat(time.sleeps).as("the 4 units the bucket still held went at once").isEmpty();

        // one that paced a call by its own bucket alone (serving the user alone, past its first seconds) did spend
        // quota the shared bucket never saw: it is emptied at the next booking, once
        QuotaPacer alone = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time);
        alone.acquire(5, 1, time.deadline(HOUR), "paced here alone").close();
        alone.share(evenly(2));
        Deadline booked = time.deadline(Duration.ofSeconds(10));
        alone.admitShared(1, 1, booked, "booked after", shared).close();
        alone.admitShared(1, 1, time.deadline(Duration.ofSeconds(10)), "and the next", shared).close();
        assertThat(shared.emptied).isEqualTo(1);
    }

    @Test
    void onceACallCameAsTheAddressTheCallsStillKnownByTheirCredentialAreSharedUnderItToo() {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time);
        Account token = Account.ofToken("a token");
        Account address = Account.ofAddress("Someone@Example.com", token);
        assertThat(pacer.shareKey(token)).as("before the address is learned").isEqualTo(token.shareKey());
        assertThat(pacer.shareKey(address)).isEqualTo(address.shareKey()).isNotEqualTo(token.shareKey());
        // a session opened before the address was learned, still calling: the same user, under the same name
        assertThat(pacer.shareKey(token)).isEqualTo(address.shareKey());
    }

    @Test
    void aCallTheSharedBucketCannotServeInTimeIsRefusedAtOnceAndTakesNothing() {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time);
        FakeSharedBucket shared = new FakeSharedBucket();
        shared.elsewhere(59); // 5 s of the rate booked by the other instances
        Deadline d = time.deadline(Duration.ofSeconds(5));
        ToolException refused = catchThrowableOfType(ToolException.class,
                () -> pacer.admitShared(25, 2, d, "a list of 4", shared));
        assertThat(refused.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        // free at 59 + 25 - 9 = 75 units: 7.5 s; it may wait three quarters of 5 s less two round trips (0.2 s each)
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(7_500 - 3_450));
        assertThat(refused.getMessage()).contains("Gmail quota of this account is spoken for");
        assertThat(shared.booked).as("nothing booked for it").containsExactly(59.0);
        assertThat(time.sleeps).isEmpty();
    }

    @Test
    void whatABookedCallDidNotSpendGoesBackAndAStoreThatCannotAnswerLeavesTheCallToTheLocalShare() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time);
        FakeSharedBucket shared = new FakeSharedBucket();
        Deadline d = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise list = pacer.admitShared(25, 2, d, "a list of 4", shared);
        pacer.acquire(5, 1, d, "messages.list").close(); // the index held the four: only the list was spent
        list.close();
        assertThat(shared.givenBack).containsExactly(20.0);

        // a get of its own: booked for itself, closed after its request; a request of a booked call books nothing more
        Deadline get = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise own = pacer.bookRequest(5, get, "messages.get", shared);
        assertThat(own).isNotNull();
        pacer.acquire(5, 1, get, "messages.get").close();
        own.close();
        assertThat(shared.booked).containsExactly(25.0, 5.0);
        assertThat(shared.givenBack).as("the get spent its booking").containsExactly(20.0);

        shared.down = true;
        assertThat(pacer.admitShared(25, 2, time.deadline(Duration.ofSeconds(10)), "a list, store down", shared))
                .as("paced at the local share instead").isNull();
        assertThat(pacer.bookRequest(5, time.deadline(Duration.ofSeconds(10)), "a get, store down", shared)).isNull();
    }

    @Test
    void callsPacedHereWhileTheStoreIsDownCountTheCallsBookedBeforeIt() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time); // a bucket of 9 units
        FakeSharedBucket shared = new FakeSharedBucket();
        Deadline listDeadline = time.deadline(Duration.ofSeconds(60));
        QuotaPacer.Promise list = pacer.admitShared(25, 2, listDeadline, "a list of 4, booked", shared);
        shared.down = true; // the store fails with the list's requests still to go
        Deadline getDeadline = time.deadline(Duration.ofSeconds(2));
        assertThat(pacer.bookRequest(5, getDeadline, "a get", shared)).as("paced here").isNull();
        // the bucket holds 9 units, but the list's 25 go first: 2.1 s for this one's 5, past what 2 s allows
        ToolException refused = catchThrowableOfType(ToolException.class,
                () -> pacer.acquire(5, 1, getDeadline, "a get, paced here"));
        assertThat(refused.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(time.sleeps).as("refused at once").isEmpty();
        // the booked list goes as booked (its 25 units free once 16 more than the bucket's 9 have refilled), waiting
        // for nothing here
        pacer.acquire(5, 1, listDeadline, "messages.list").close();
        pacer.acquire(20, 4, listDeadline, "4 messages.get").close();
        list.close();
        assertThat(time.sleeps).containsExactly(16 * ONE_UNIT_NANOS);
    }

    @Test
    void aBookedRequestGoogleRefusesKeepsItsBookingForItsRetryAndCutsNoRate() throws Exception {
        QuotaPacer pacer = new QuotaPacer("Gmail", TEN_A_SECOND, 10, 5, time);
        FakeSharedBucket shared = new FakeSharedBucket();
        Deadline d = time.deadline(Duration.ofSeconds(10));
        QuotaPacer.Promise list = pacer.admitShared(10, 2, d, "a list of 1", shared);
        try (QuotaPacer.Permit p = pacer.acquire(5, 1, d, "messages.list")) {
            // spent where no booking saw it (another app of the user's): Google's bucket is empty
            pacer.rateLimited(p, false, null);
        }
        assertThat(pacer.bookRequest(5, d, "messages.list again", shared)).as("its booking covers the retry").isNull();
        pacer.acquire(5, 1, d, "messages.list again").close();
        pacer.acquire(5, 1, d, "messages.get").close();
        list.close();
        assertThat(shared.booked).as("booked once").containsExactly(10.0);
        assertThat(shared.givenBack).as("all of it spent").isEmpty();
        assertThat(pacer.unitsPerMinute()).as("no rate cut: the bookings are exact").isEqualTo(TEN_A_SECOND);
    }

    private Thread waiter(QuotaPacer pacer, String name, Duration budget, List<String> order, List<QuotaPacer.Permit> held) {
        return Thread.ofVirtual().name(name).start(() -> {
            try {
                held.add(pacer.acquire(1, 1, time.deadline(budget), name));
                order.add(name);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** {@code n} calls of {@code cost} units let go one after another and still in flight. */
    private List<QuotaPacer.Permit> hold(QuotaPacer pacer, int n, int cost) throws InterruptedException {
        List<QuotaPacer.Permit> held = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            held.add(pacer.acquire(cost, 1, time.deadline(HOUR), "call " + i));
        }
        return held;
    }

    private Thread waiter(QuotaPacer pacer, String name, List<String> order, List<QuotaPacer.Permit> held) {
        return Thread.ofVirtual().name(name).start(() -> {
            try {
                held.add(pacer.acquire(1, 1, time.deadline(HOUR), name));
                order.add(name);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Waits until {@code t} is parked (blocked on the pacer), so that the order of arrivals is known. */
    private static void awaitParked(Thread t) throws InterruptedException {
        long giveUp = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("%s parked", t.getName()).isLessThan(giveUp);
            Thread.sleep(1);
        }
    }
}
