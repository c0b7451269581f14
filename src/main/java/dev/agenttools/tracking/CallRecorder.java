package dev.agenttools.tracking;

import dev.agenttools.tool.Diagnostics;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records calls without slowing them: {@link #record} only offers to a bounded queue (never blocks, never
 * throws); one background thread writes batches to the sink. When the store refuses a batch for a reason that may pass
 * (unreachable, throttled, locked: {@link CallSink#mayPass}), the writer keeps it and tries again, every
 * {@link #FIRST_RETRY} doubling to {@link #LAST_RETRY}, while the records that come meanwhile wait in the queue.
 * Records are dropped and counted when the queue is full, or when the store refuses them for a reason that does not
 * pass. {@link #close} flushes what is pending, for a bounded time. Thread-safe.
 *
 * <p>With a {@link Journal} (long-running processes), {@link #record} also appends the record to it before it returns,
 * so that a call answered before a SIGKILL is recorded all the same: the writer ships the journals dead processes
 * left ({@link DeadJournals}) when it starts and every {@link #SHIP_EVERY} after.
 */
public final class CallRecorder implements AutoCloseable {
    /**
     * Records that may wait for the writer: also what an outage of the store keeps, besides the batch being tried
     * again (up to {@link #MAX_BATCH}); past it a call's record is dropped and counted, as when the writer falls
     * behind. They wait in memory, and in a long-running process in its journal too (a few MB at most). The journal
     * alone does not keep records past this bound: the writer would have to read them back from it, a second path for
     * every record, for outages past what 10,000 records cover (18 minutes at the 9 calls a second of issue 44's).
     */
    public static final int DEFAULT_CAPACITY = 10_000;
    /**
     * How long {@link #close} may hold up a process's exit: a locked SQLite file (10 s busy timeout) or a DynamoDB that
     * does not answer (SDK retries, connect timeouts) must not keep an agent waiting after its answer is out.
     */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofMillis(1_500);
    /** Put in the queue at close so that an idle writer stops waiting at once instead of after its linger time. */
    private static final CallRecord WAKE_UP = new CallRecord(Instant.EPOCH, "", null, 0, null, null, "ok", null, 0, null);
    static final int MAX_BATCH = 500;
    private static final long LINGER_MS = 200;
    /**
     * How often the writer looks for journals of processes that died: at its start (a restarted process ships its
     * predecessor's), and then this often (an instance that shares its data folder with one that was killed and not
     * restarted). A look is a folder listing and a lock attempt per file.
     */
    static final Duration SHIP_EVERY = Duration.ofSeconds(5);
    /**
     * How long the writer waits before it tries again a batch the store refused for a reason that may pass, doubled at
     * each refusal up to {@link #LAST_RETRY}: a blip costs a quarter of a second, a long outage a write every 5 s (one
     * write may take seconds itself: the DynamoDB client's own retries and timeouts, see DynamoDbSink#client).
     */
    static final Duration FIRST_RETRY = Duration.ofMillis(250);
    static final Duration LAST_RETRY = Duration.ofSeconds(5);

    private final CallSink sink;
    private final Journal journal;
    private final BlockingQueue<CallRecord> queue;
    private final int capacity;
    private final Thread writer;
    private final Duration closeTimeout;
    /** Records taken into the queue; each ends written, failed (the sink refused it for good) or given up at close. */
    private final AtomicLong accepted = new AtomicLong();
    /** Records refused because the queue was full or the recorder closed. */
    private final AtomicLong rejected = new AtomicLong();
    // written, failed, givenUp and abandoned change together, under this lock: once close gives up, the writer's
    // late outcome no longer counts (its records are already counted as given up).
    private long written;
    private long failed;
    private long givenUp;
    private boolean abandoned;
    private final AtomicBoolean closeCalled = new AtomicBoolean();
    private volatile boolean closing;
    /** Set by close when its time is up: the writer starts no further batch. */
    private volatile boolean stopWriting;
    private volatile String lastError;
    /** Whether the last batch the writer tried failed: the store's state now, where {@link #lastError} is history. */
    private volatile boolean lastWriteFailed;
    /** Records shipped from dead processes' journals (not counted as this recorder's own). */
    private final AtomicLong shipped = new AtomicLong();
    // The writer thread's own, to tell an outage on stderr once rather than at every try: the failure it told of last,
    // whether it keeps records and since when, and whether it told that the queue is full.
    private String told;
    private boolean keeping;
    private long keptSince;
    private long rejectedBeforeOutage;
    private boolean toldQueueFull;

    /**
     * A recorder writing to the sink {@code settings} name ({@code sqlite} or {@code dynamodb}), or null for
     * {@code none}: the published way to give {@code Tools.builder().recorder(...)} one. The sink opens on the
     * recorder's own thread at its first write, so opening it never delays a call.
     *
     * @param tools the commands statistics are kept for ({@code Tools.commands()})
     */
    public static CallRecorder open(TrackingSettings settings, List<String> tools) {
        return Tracking.openRecorder(settings, tools);
    }

    /** Recording into the SQLite call store at {@code db}, keeping at most {@code capacity} records waiting. */
    public static CallRecorder sqlite(Path db, int capacity) {
        return new CallRecorder(new SqliteSink(db), capacity);
    }

    /** On a sink of our own. */
    CallRecorder(CallSink sink, int capacity) {
        this(sink, capacity, DEFAULT_CLOSE_TIMEOUT);
    }

    /** @param closeTimeout how long {@link #close} waits for pending writes before it gives them up */
    CallRecorder(CallSink sink, int capacity, Duration closeTimeout) {
        this(sink, capacity, closeTimeout, null);
    }

    /** @param journal where each record is also appended, and dead ones shipped from; null for none */
    CallRecorder(CallSink sink, int capacity, Duration closeTimeout, Journal journal) {
        this.closeTimeout = closeTimeout;
        this.sink = sink;
        this.journal = journal;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.capacity = capacity;
        this.writer = Thread.ofPlatform().daemon().name("call-recorder-" + sink.name()).start(this::drain);
    }

    /** Hands a record to the writer; false (and counted as dropped) when the queue is full or the recorder closed. */
    boolean record(CallRecord record) {
        if (closing || !(journal == null ? queue.offer(record) : journal.append(record, queue::offer))) {
            rejected.incrementAndGet();
            return false;
        }
        accepted.incrementAndGet();
        return true;
    }

    public synchronized long written() {
        return written;
    }

    /**
     * Records lost: refused (queue full, closed), refused by the sink for a reason that does not pass, or still pending
     * when close gave up (with a journal, those stay in it for the next process to ship).
     */
    public synchronized long dropped() {
        return rejected.get() + failed + givenUp;
    }

    /** Records shipped from the journals of processes that died. */
    long shipped() {
        return shipped.get();
    }

    /** The sink's last error message (or why close gave up), or null. */
    public String lastError() {
        return lastError;
    }

    /**
     * Why the store does not take records now (its last write failed), or null when its last write succeeded (or none
     * was tried): what a readiness probe asks, where one failure long ago must not keep an instance out of service.
     */
    public String currentProblem() {
        return lastWriteFailed ? lastError : null;
    }

    /** The writer thread: batches until closed and drained (or given up), then closes the sink itself. */
    private void drain() {
        try {
            List<CallRecord> batch = new ArrayList<>(MAX_BATCH);
            if (journal != null) {
                shipDeadJournals(); // even when closing already: a process that lived a moment ships its predecessor's
            }
            long nextShip = System.nanoTime() + SHIP_EVERY.toNanos();
            while ((!closing || !queue.isEmpty()) && !stopWriting) {
                if (journal != null && !closing && System.nanoTime() - nextShip >= 0) {
                    shipDeadJournals();
                    nextShip = System.nanoTime() + SHIP_EVERY.toNanos();
                }
                try {
                    batch.clear();
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
                        return;
                    }
                }
            }
        } finally {
            sink.close(); // here, not in close(): a write that outlives close's wait must not race the sink's close
        }
    }

    private void shipDeadJournals() {
        try {
            DeadJournals.Shipped s = DeadJournals.ship(journal.folder(), sink);
            if (s.files() > 0) {
                shipped.addAndGet(s.records());
                Diagnostics.warn("shipped " + s.records() + " call records to the " + sink.name() + " store from "
                        + s.files() + " journal files that stopped processes left in " + journal.folder()
                        + (s.malformed() > 0 ? " (" + s.malformed() + " malformed lines skipped)" : ""));
            }
        } catch (Exception e) {
            String message = "the call journals in " + journal.folder() + " stay for a later try: " + e.getMessage();
            if (!message.equals(lastError)) {
                Diagnostics.warn(message);
            }
            lastError = message;
        }
    }

    /**
     * Writes the batch, and writes it again while the store refuses it for a reason that may pass: its records are
     * kept (here, and in the journal, whose lines stay unsettled until they are written, so that a SIGKILL meanwhile
     * leaves them to the next process), and the ones recorded meanwhile wait in the queue. A refusal that does not
     * pass drops the batch, counted, so that it holds up nothing behind it. When close stops the writer, the batch is
     * left as it is: close counts it as given up, and the journal keeps it.
     *
     * @throws InterruptedException close stopped the writer while it waited to try again
     */
    private void flush(List<CallRecord> batch) throws InterruptedException {
        long pause = FIRST_RETRY.toMillis();
        while (true) {
            try {
                sink.write(batch);
            } catch (Exception e) {
                if (stopWriting) {
                    return; // close gave up on the batch, and its interrupt may be what ended the write
                }
                if (!sink.mayPass(e)) {
                    refused(batch.size(), e);
                    return;
                }
                kept(batch.size(), e);
                Thread.sleep(pause);
                pause = Math.min(2 * pause, LAST_RETRY.toMillis());
                continue;
            }
            written(batch.size());
            return;
        }
    }

    private void written(int count) {
        lastWriteFailed = false;
        synchronized (this) {
            if (!abandoned) {
                written += count;
            }
        }
        if (keeping) {
            long seconds = Duration.ofNanos(System.nanoTime() - keptSince).toSeconds();
            Diagnostics.warn("the " + sink.name() + " store takes call records again, after refusing"
                    + " them for " + seconds + " s; the ones kept are written now");
            keeping = false;
            told = null;
            toldQueueFull = false;
        }
        settle(count);
    }

    private void refused(int count, Exception e) {
        String message = sink.name() + " store refused " + count + " call records, dropped: " + e.getMessage();
        tell("dropped: " + e.getMessage(), message);
        // why, before the drop is counted: whoever sees the drop (a readiness probe, a test) also sees the problem
        lastError = message;
        lastWriteFailed = true;
        synchronized (this) {
            if (!abandoned) {
                failed += count;
            }
        }
        settle(count);
    }

    /** The store refused the batch for a reason that may pass: says so (once), and nothing is settled or counted. */
    private void kept(int count, Exception e) {
        if (!keeping) {
            keeping = true;
            keptSince = System.nanoTime();
            rejectedBeforeOutage = rejected.get();
        }
        String message = sink.name() + " store refused " + count + " call records (" + e.getMessage() + "); kept,"
                + " retrying every " + FIRST_RETRY.toMillis() + " ms to " + LAST_RETRY.toSeconds() + " s until it takes"
                + " them";
        tell("kept: " + e.getMessage(), message);
        lastError = message;
        lastWriteFailed = true;
        if (!toldQueueFull && !closing && rejected.get() > rejectedBeforeOutage) {
            toldQueueFull = true;
            Diagnostics.warn(capacity + " call records wait for the " + sink.name() + " store, as"
                    + " many as are kept: the records of calls from now until it takes them again are dropped and"
                    + " counted");
        }
    }

    /** Prints the message unless it is about the failure told last: once per distinct failure, not per batch or try. */
    private void tell(String failure, String message) {
        if (!failure.equals(told)) {
            Diagnostics.warn(message);
            told = failure;
        }
    }

    private void settle(int count) {
        if (journal != null) {
            journal.settled(count);
        }
    }

    /**
     * Stops taking records and writes what is queued, waiting up to the close timeout ({@link #DEFAULT_CLOSE_TIMEOUT});
     * past two thirds of it the writer is interrupted, and at its end whatever is not written is counted as dropped
     * and {@link #lastError} says so. A write that ignores the interrupt is left to the (daemon) writer thread, which
     * closes the sink when it returns; the process need not wait for it.
     */
    @Override
    public void close() {
        if (!closeCalled.compareAndSet(false, true)) {
            return; // closed already (or closing on another thread)
        }
        closing = true;
        queue.offer(WAKE_UP); // if the queue is full the writer is busy anyway
        long budget = closeTimeout.toMillis();
        try {
            writer.join(Math.max(1, budget * 2 / 3));
            if (writer.isAlive()) {
                stopWriting = true;
                writer.interrupt(); // a store that keeps refusing or stalls must not hold up the process's exit
                writer.join(Math.max(1, budget - budget * 2 / 3));
            }
        } catch (InterruptedException e) {
            stopWriting = true;
            Thread.currentThread().interrupt();
        }
        // its files stay, for the next process to ship, when records in it were not written (given up, or appended
        // after the writer stopped)
        boolean journalKept = journal != null && journal.close();
        synchronized (this) {
            abandoned = true; // from here on the writer's outcome does not count
            long left = accepted.get() - written - failed;
            if (left > 0) {
                givenUp = left;
                lastError = sink.name() + " store did not take the last " + left + " call records within " + budget
                        + " ms of closing, so they were given up" + (journalKept ? " here (the call journal in " + journal.folder()
                        + " keeps them for the next process to ship)" : "") + (lastError == null ? "" : "; before that: " + lastError);
            }
        }
    }
}
