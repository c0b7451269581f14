package dev.agenttools.emulator.api;

import java.util.concurrent.atomic.LongAdder;

/** The live counters behind the emulator's {@code EmulatorCounters} snapshots. Thread-safe and cheap on the hot path. */
public final class Counters {
    public final LongAdder httpRequests = new LongAdder();
    public final LongAdder apiCalls = new LongAdder();
    public final LongAdder batchRequests = new LongAdder();
    public final LongAdder connectionsOpened = new LongAdder();
    public final LongAdder handshakes = new LongAdder();
    public final LongAdder quotaRejections = new LongAdder();
    public final LongAdder concurrencyRejections = new LongAdder();
    public final LongAdder faultsInjected = new LongAdder();
    public final LongAdder authFailures = new LongAdder();
    public final LongAdder messagesVanished = new LongAdder();

    public void reset() {
        for (LongAdder a : new LongAdder[] {httpRequests, apiCalls, batchRequests, connectionsOpened, handshakes,
                quotaRejections, concurrencyRejections, faultsInjected, authFailures, messagesVanished}) {
            a.reset();
        }
    }
}
