package dev.agenttools.emulator.http;

import java.util.concurrent.atomic.AtomicInteger;

/** Gmail's per-user limit on calls in flight; a call over it is answered 429 at once. Thread-safe. */
final class ConcurrencyLimit {
    private final int max;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();

    ConcurrencyLimit(int max) {
        this.max = max;
    }

    boolean tryAcquire() {
        while (true) {
            int now = inFlight.get();
            if (now >= max) {
                return false;
            }
            if (inFlight.compareAndSet(now, now + 1)) {
                peak.accumulateAndGet(now + 1, Math::max);
                return true;
            }
        }
    }

    void release() {
        inFlight.decrementAndGet();
    }

    int peak() {
        return peak.get();
    }

    void resetPeak() {
        peak.set(inFlight.get());
    }
}
