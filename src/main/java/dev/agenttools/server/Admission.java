package dev.agenttools.server;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many calls run at once and how many may wait for a slot, as {@code serve} bounds them: a request beyond both is
 * refused at once (503 with {@code Retry-After}) rather than queued without end. Thread-safe.
 */
final class Admission {
    private final Semaphore running;
    private final int maxQueued;
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();

    Admission(int maxInFlight, int maxQueued) {
        this.running = new Semaphore(maxInFlight);
        this.maxQueued = maxQueued;
    }

    /** Takes a running slot, waiting for one if there is room to wait; false when there is none. */
    boolean enter() throws InterruptedException {
        if (!running.tryAcquire()) {
            if (waiting.incrementAndGet() > maxQueued) {
                waiting.decrementAndGet();
                return false;
            }
            try {
                running.acquire();
            } finally {
                waiting.decrementAndGet();
            }
        }
        inFlight.incrementAndGet();
        return true;
    }

    void leave() {
        inFlight.decrementAndGet();
        running.release();
    }

    int inFlight() {
        return inFlight.get();
    }

    int waiting() {
        return waiting.get();
    }
}
