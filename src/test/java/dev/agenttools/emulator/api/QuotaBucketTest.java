package dev.agenttools.emulator.api;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The quota bucket on a hand-turned clock: refill rate, burst cap, all-or-nothing takes. */
class QuotaBucketTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(42 * SECOND);

    @Test
    void startsFullAndRefillsAtTheRatePerMinute() {
        QuotaBucket bucket = new QuotaBucket(60, 15, now::get); // one unit a second
        assertThat(bucket.tryTake(5)).isTrue();
        assertThat(bucket.tryTake(5)).isTrue();
        assertThat(bucket.tryTake(5)).isTrue();
        assertThat(bucket.tryTake(1)).as("empty").isFalse();
        now.addAndGet(SECOND * 11 / 10);
        assertThat(bucket.tryTake(1)).as("one unit back after 1.1 s").isTrue();
        assertThat(bucket.tryTake(1)).as("and only one").isFalse();
    }

    @Test
    void neverHoldsMoreThanTheBurst() {
        QuotaBucket bucket = new QuotaBucket(6_000, 50, now::get);
        now.addAndGet(3_600 * SECOND);
        assertThat(bucket.available()).isEqualTo(50.0);
        assertThat(bucket.tryTake(51)).isFalse();
        assertThat(bucket.tryTake(50)).isTrue();
    }

    @Test
    void aRefusedTakeTakesNothing() {
        QuotaBucket bucket = new QuotaBucket(60, 10, now::get);
        assertThat(bucket.tryTake(8)).isTrue();
        assertThat(bucket.tryTake(5)).isFalse();
        assertThat(bucket.available()).isEqualTo(2.0);
        now.addAndGet(3 * SECOND);
        assertThat(bucket.tryTake(5)).isTrue();
        assertThat(bucket.available()).isEqualTo(0.0);
    }
}
