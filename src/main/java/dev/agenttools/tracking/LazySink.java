package dev.agenttools.tracking;

import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A sink opened on first use, by the recorder's writer thread: opening SQLite (loading its native library) or
 * checking a DynamoDB table costs a few hundred milliseconds that a one-shot call should not wait for before it
 * starts its own work. A store that cannot be opened for a reason that may pass (DynamoDB unreachable, SQLite locked)
 * is opened again at the next write; one that cannot be opened for good stays closed.
 */
final class LazySink implements CallSink {
    private final String name;
    private final Supplier<CallSink> opener;
    private final Predicate<Exception> mayPass;
    private CallSink sink;
    private RuntimeException failure;

    /** @param mayPass whether a failure of this kind of store (to open, or to write) may pass, as {@link #mayPass} */
    LazySink(String name, Supplier<CallSink> opener, Predicate<Exception> mayPass) {
        this.name = name;
        this.opener = opener;
        this.mayPass = mayPass;
    }

    private synchronized CallSink sink() {
        if (sink == null && failure == null) {
            try {
                sink = opener.get();
            } catch (RuntimeException e) {
                if (mayPass.test(e)) {
                    throw e; // the recorder keeps the batch, and its next try opens the store again
                }
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
    public synchronized boolean mayPass(Exception refusal) {
        return sink != null ? sink.mayPass(refusal) : mayPass.test(refusal);
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
