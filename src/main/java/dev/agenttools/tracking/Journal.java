package dev.agenttools.tracking;

import dev.agenttools.store.PrivateFolder;
import dev.agenttools.tool.Diagnostics;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * A long-running process's write-ahead journal of call records, so that a record whose call was answered survives
 * SIGKILL of the process: the recorder's queue and the batch being written die with it, the journal does not. Each
 * record is appended as one JSON line ({@link Spool#line}) with one write(2) before the call's answer is written to
 * its caller (listeners run first). A finished write(2) is in the kernel's page cache, so it outlives the process but
 * not a power cut or a kernel crash: there is no fsync per call, which would cost milliseconds where this costs
 * microseconds.
 *
 * <p>Files, in an owner-only folder (one per call store, see {@link Tracking}) and never opened through a symbolic
 * link: {@code <uuid>.jsonl}, a segment a live process appends to and holds a lock on (fcntl, released by the kernel
 * when the process dies, however it dies); {@code .<uuid>.new}, a segment being made, locked before it is renamed to
 * its {@code .jsonl} name, so that a segment under that name is never unlocked while its process lives;
 * {@code <uuid>.shipping}, a dead process's segment that another process took (see {@link DeadJournals}).
 *
 * <p>The journal stays small: a record is offered to the recorder's queue and appended under one lock, so that the
 * lines are in queue order, and the writer thread reports each batch it finished ({@link #settled}); when every line
 * appended is settled the segment is cut back to nothing, and a segment past {@link #ROTATE_BYTES} is set aside for a
 * new one and deleted once its last line is settled (under steady load the queue is rarely empty).
 *
 * <p>Thread-safe.
 */
final class Journal {
    /** A segment this big is set aside for a fresh one (about 4,000 records). */
    static final long ROTATE_BYTES = 1 << 20;
    static final String LIVE = ".jsonl";
    static final String NEW = ".new";
    static final String SHIPPING = ".shipping";
    /**
     * Names of the journal files this JVM holds a lock on. A lock (POSIX, fcntl) belongs to the whole process, and
     * closing any channel on the file releases it: a taker here must not even open one of these.
     */
    static final Set<String> HELD = ConcurrentHashMap.newKeySet();

    private final Path folder;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Retired> older = new ArrayDeque<>();
    private Segment current;
    private long currentBytes;
    /** Lines appended, and lines whose record the writer is done with (written or refused for good), since start. */
    private long appended;
    private long settled;
    private boolean broken;
    private boolean closed;

    /** A segment: its file, and the channel that appends to it and holds its lock. */
    private record Segment(Path file, FileChannel channel) {
    }

    /** A segment set aside: deleted once the first {@code end} lines of the journal are settled. */
    private record Retired(Segment segment, long end) {
    }

    private Journal(Path folder, Segment current) {
        this.folder = folder;
        this.current = current;
    }

    /**
     * A fresh journal in {@code folder}, created owner-only (with its parents) when missing.
     *
     * @throws IOException naming the folder or file when the folder is not the user's own or a file cannot be made
     */
    static Journal open(Path folder) throws IOException {
        PrivateFolder.of(folder.resolve("journal" + LIVE)); // makes and checks the folder, as the stores' folders are
        return new Journal(folder, segment(folder));
    }

    Path folder() {
        return folder;
    }

    /** Makes a segment: created new and locked under a name takers delete when unlocked, then renamed into place. */
    private static Segment segment(Path folder) throws IOException {
        for (int attempt = 1; ; attempt++) {
            String id = UUID.randomUUID().toString();
            String fresh = "." + id + NEW;
            String live = id + LIVE;
            HELD.add(fresh);
            HELD.add(live);
            FileChannel channel = Spool.open(folder.resolve(fresh), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
            boolean done = false;
            try {
                // null or a missing file: a taker in another process found it unlocked (it was just made) and removed it
                FileLock held = channel.tryLock();
                if (held != null) {
                    Files.move(folder.resolve(fresh), folder.resolve(live), StandardCopyOption.ATOMIC_MOVE);
                    done = true;
                    return new Segment(folder.resolve(live), channel);
                }
            } catch (NoSuchFileException e) {
                if (attempt >= 3) {
                    throw e;
                }
            } finally {
                HELD.remove(fresh);
                if (!done) {
                    HELD.remove(live);
                    channel.close();
                }
            }
            if (attempt >= 3) {
                throw new IOException("cannot lock a new call journal file in " + folder);
            }
        }
    }

    /**
     * Offers the record to the queue ({@code enqueue}) and, when it takes it, appends its line: both under the lock,
     * so that the journal's lines are in the queue's order. Never throws: a journal that cannot be written is
     * reported once and left alone (its files stay for the next start to ship).
     *
     * @return whether the queue took the record
     */
    boolean append(CallRecord record, Predicate<CallRecord> enqueue) {
        byte[] line = (Spool.line(record) + "\n").getBytes(StandardCharsets.UTF_8);
        lock.lock();
        try {
            if (!enqueue.test(record)) {
                return false;
            }
            if (broken || closed) {
                return true;
            }
            appended++; // a line lost to a failed write still holds its place, so the counts stay in step with the queue
            try {
                write(line);
            } catch (ClosedChannelException e) {
                // interrupted in the middle of the write (the flag is cleared around it): the channel, and with it
                // the lock, is gone. Its file is set aside as any full one; the next record goes to a fresh one.
                older.addLast(new Retired(current, appended));
                try {
                    current = segment(folder);
                    currentBytes = 0;
                } catch (IOException making) {
                    fail(making);
                }
            } catch (IOException e) {
                fail(e);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void write(byte[] line) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(line);
        // A FileChannel closes itself when its thread is interrupted, and a call cancelled by an interrupt reaches
        // the recorder with the flag still set: cleared for the write, set again after it.
        boolean interrupted = Thread.interrupted();
        try {
            while (bytes.hasRemaining()) {
                currentBytes += current.channel().write(bytes); // one write(2) for a line, O_APPEND
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void fail(IOException e) {
        broken = true;
        Diagnostics.warn("the call journal in " + folder + " cannot be written (" + e.getMessage()
                + "); calls are recorded without it from now on");
    }

    /**
     * The writer finished with the next {@code count} records of the queue (written, or refused by the store for a
     * reason that does not pass; records it keeps through an outage are not settled until written): cuts
     * the journal back when nothing is left unsettled, sets a full segment aside, deletes the ones wholly settled.
     */
    void settled(int count) {
        lock.lock();
        try {
            if (broken || closed) {
                return;
            }
            settled += count;
            while (!older.isEmpty() && older.peekFirst().end() <= settled) {
                remove(older.removeFirst().segment());
            }
            if (settled == appended) {
                if (currentBytes > 0) {
                    boolean interrupted = Thread.interrupted();
                    try {
                        current.channel().truncate(0);
                    } finally {
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    currentBytes = 0;
                }
            } else if (currentBytes >= ROTATE_BYTES) {
                older.addLast(new Retired(current, appended));
                current = segment(folder);
                currentBytes = 0;
            }
        } catch (IOException e) {
            fail(e);
        } finally {
            lock.unlock();
        }
    }

    private static void remove(Segment s) throws IOException {
        try {
            Files.deleteIfExists(s.file()); // before the lock goes with the channel: no one takes a shipped file
        } finally {
            s.channel().close();
            HELD.remove(s.file().getFileName().toString());
        }
    }

    /**
     * Lets go of the journal: deletes its files when every record appended was settled, else leaves them (unlocked
     * now) for the next process to ship.
     *
     * @return whether files were left
     */
    boolean close() {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            boolean done = !broken && settled == appended;
            older.addLast(new Retired(current, appended));
            for (Retired r : older) {
                try {
                    if (done) {
                        remove(r.segment());
                    } else {
                        r.segment().channel().close();
                        HELD.remove(r.segment().file().getFileName().toString());
                    }
                } catch (IOException e) {
                    Diagnostics.warn("closing the call journal " + r.segment().file() + ": " + e.getMessage());
                }
            }
            older.clear();
            return !done;
        } finally {
            lock.unlock();
        }
    }
}
