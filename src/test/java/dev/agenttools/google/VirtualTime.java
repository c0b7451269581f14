package dev.agenttools.google;

import dev.agenttools.tool.Deadline;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when someone sleeps on it (by the time asked) or the test advances it, and remembers
 * every sleep: pacing and backoff tests run in virtual time, never wait, and assert on what was asked for.
 * A sleep with the interrupt flag set throws, as a real one does. Thread-safe; concurrent sleeps add up.
 */
final class VirtualTime implements Ticker {
    private final AtomicLong now = new AtomicLong(System.nanoTime());
    final List<Long> sleeps = new CopyOnWriteArrayList<>();

    @Override
    public long nanoTime() {
        return now.get();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before sleeping " + nanos + " ns");
        }
        sleeps.add(nanos);
        now.addAndGet(nanos);
    }

    void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    /** A deadline of {@code budget} starting now, on this clock. */
    Deadline deadline(Duration budget) {
        return Deadline.since(nanoTime(), budget);
    }

    long slept() {
        return sleeps.stream().mapToLong(Long::longValue).sum();
    }

    /** The real clock, counting {@code sleeping} down as each sleep starts: for tests that interrupt a real wait. */
    static Ticker systemSignalling(CountDownLatch sleeping) {
        return new Ticker() {
            @Override
            public long nanoTime() {
                return Ticker.SYSTEM.nanoTime();
            }

            @Override
            public void sleep(long nanos) throws InterruptedException {
                sleeping.countDown();
                Ticker.SYSTEM.sleep(nanos);
            }
        };
    }
}
