package dev.agenttools.tracking;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records calls without slowing them: {@link #record} only offers to a bounded queue (never blocks, never
 * throws); one background thread writes batches to the sink. When the queue is full or the sink fails, records
 * are dropped and counted. {@link #close} flushes what is pending. Thread-safe.
 */
public final class CallRecorder implements AutoCloseable {
    public static final int DEFAULT_CAPACITY = 10_000;
    /** Put in the queue at close so that an idle writer stops waiting at once instead of after its linger time. */
    private static final CallRecord WAKE_UP = new CallRecord(java.time.Instant.EPOCH, "", null, 0, null, null, "ok", null, 0, null);
    static final int MAX_BATCH = 500;
    private static final long LINGER_MS = 200;

    private final CallSink sink;
    private final BlockingQueue<CallRecord> queue;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong sinkFailures = new AtomicLong();
    private final Thread writer;
    private final long closeTimeoutMs;
    private volatile boolean closing;
    private volatile String lastError;
    /** Records the writer holds right now (taken from the queue, not yet written or dropped). */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** Set when close gave up on a write that would not end: its outcome is then already counted as dropped. */
    private final java.util.concurrent.atomic.AtomicBoolean abandoned = new java.util.concurrent.atomic.AtomicBoolean();

    public CallRecorder(CallSink sink, int capacity) {
        this(sink, capacity, 10_000);
    }

    /** @param closeTimeoutMs how long {@link #close} waits for pending writes before it gives them up */
    CallRecorder(CallSink sink, int capacity, long closeTimeoutMs) {
        this.closeTimeoutMs = closeTimeoutMs;
        this.sink = sink;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.writer = Thread.ofPlatform().daemon().name("call-recorder-" + sink.name()).start(this::drain);
    }

    /** Hands a record to the writer; false (and counted as dropped) when the queue is full. */
    public boolean record(CallRecord record) {
        if (closing || !queue.offer(record)) {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    public long written() {
        return written.get();
    }

    public long dropped() {
        return dropped.get();
    }

    public long sinkFailures() {
        return sinkFailures.get();
    }

    /** The sink's last error message, or null. */
    public String lastError() {
        return lastError;
    }

    public CallSink sink() {
        return sink;
    }

    private void drain() {
        List<CallRecord> batch = new ArrayList<>(MAX_BATCH);
        while (!closing || !queue.isEmpty()) {
            try {
                CallRecord first = queue.poll(LINGER_MS, TimeUnit.MILLISECONDS);
                if (first == null || first == WAKE_UP) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                batch.remove(WAKE_UP);
                flush(batch);
            } catch (InterruptedException e) {
                if (!closing) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void flush(List<CallRecord> batch) {
        inFlight.set(batch.size());
        try {
            sink.write(batch);
            if (!abandoned.get()) {
                written.addAndGet(batch.size());
            }
        } catch (Exception e) {
            if (abandoned.get()) {
                return;
            }
            dropped.addAndGet(batch.size());
            sinkFailures.incrementAndGet();
            String message = sink.name() + " sink failed, " + batch.size() + " call records dropped: " + e.getMessage();
            if (!message.equals(lastError)) {
                System.err.println("agent-tools: " + message); // once per distinct failure, not per batch
            }
            lastError = message;
        } finally {
            inFlight.set(0);
            batch.clear();
        }
    }

    /**
     * Stops taking records and writes what is queued, waiting up to the close timeout (10 s); past it, the write in
     * progress is interrupted and what is left is counted as dropped. Then closes the sink.
     */
    @Override
    public void close() {
        closing = true;
        queue.offer(WAKE_UP); // if the queue is full the writer is busy anyway
        try {
            writer.join(closeTimeoutMs);
            if (writer.isAlive()) {
                writer.interrupt(); // a store that keeps refusing must not hold up the process's exit
                writer.join(2_000);
            }
            if (writer.isAlive() && abandoned.compareAndSet(false, true)) {
                dropped.addAndGet(inFlight.get()); // a write that ignores interrupts: given up, counted once
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<CallRecord> left = new ArrayList<>();
        queue.drainTo(left);
        left.remove(WAKE_UP);
        dropped.addAndGet(left.size());
        sink.close();
    }
}
