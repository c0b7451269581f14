package dev.agenttools.tracking;

import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * A sink opened on first use, by the recorder's writer thread: opening SQLite (loading its native library) or
 * checking a DynamoDB table costs a few hundred milliseconds that a one-shot call should not wait for before it
 * starts its own work.
 */
final class LazySink implements CallSink {
    private final String name;
    private final Supplier<CallSink> opener;
    private CallSink sink;
    private RuntimeException failure;

    LazySink(String name, Supplier<CallSink> opener) {
        this.name = name;
        this.opener = opener;
    }

    private synchronized CallSink sink() {
        if (sink == null && failure == null) {
            try {
                sink = opener.get();
            } catch (RuntimeException e) {
                failure = e; // a store that cannot be opened stays closed: every batch is dropped and counted
            }
        }
        if (failure != null) {
            throw failure;
        }
        return sink;
    }

    @Override
    public void write(List<CallRecord> batch) throws Exception {
        sink().write(batch);
    }

    @Override
    public void replay(List<CallRecord> batch) throws Exception {
        sink().replay(batch);
    }

    @Override
    public List<CallRecord> read(Instant since, String tool) throws Exception {
        return sink().read(since, tool);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized void close() {
        if (sink != null) {
            sink.close();
        }
    }
}
