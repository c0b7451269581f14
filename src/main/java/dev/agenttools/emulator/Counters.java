package dev.agenttools.emulator;

import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link EmulatorCounters}. Thread-safe and cheap on the hot path. */
final class Counters {
    final LongAdder httpRequests = new LongAdder();
    final LongAdder apiCalls = new LongAdder();
    final LongAdder batchRequests = new LongAdder();
    final LongAdder connectionsOpened = new LongAdder();
    final LongAdder handshakes = new LongAdder();
    final LongAdder quotaRejections = new LongAdder();
    final LongAdder concurrencyRejections = new LongAdder();
    final LongAdder faultsInjected = new LongAdder();
    final LongAdder authFailures = new LongAdder();
    final LongAdder messagesVanished = new LongAdder();

    EmulatorCounters snapshot(int peakInFlight) {
        return new EmulatorCounters(httpRequests.sum(), apiCalls.sum(), batchRequests.sum(), connectionsOpened.sum(),
                handshakes.sum(), quotaRejections.sum(), concurrencyRejections.sum(), faultsInjected.sum(),
                authFailures.sum(), messagesVanished.sum(), peakInFlight);
    }

    void reset() {
        for (LongAdder a : new LongAdder[] {httpRequests, apiCalls, batchRequests, connectionsOpened, handshakes,
                quotaRejections, concurrencyRejections, faultsInjected, authFailures, messagesVanished}) {
            a.reset();
        }
    }
}
