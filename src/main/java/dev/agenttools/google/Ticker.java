package dev.agenttools.google;

import java.util.concurrent.TimeUnit;

/**
 * Where pacing and backoff read the time and wait: {@link #SYSTEM} in production; tests pass a virtual clock that
 * moves only when someone sleeps on it, so that they never wait for real. Implementations are thread-safe.
 */
interface Ticker {
    Ticker SYSTEM = new Ticker() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
    };

    /** Nanoseconds from an arbitrary origin, as {@link System#nanoTime()}. */
    long nanoTime();

    /** Waits {@code nanos}, or until interrupted. */
    void sleep(long nanos) throws InterruptedException;
}
