package dev.agenttools.tracking;


import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * Ships the {@link Journal} files that no live process holds (their process died: SIGKILL, a crash, the OOM killer)
 * into the store, each exactly once among any number of processes doing the same: a file is taken by locking it and
 * renaming it to a name of the taker's own while it holds the lock, its lines are written, then it is deleted before
 * the lock goes. A taker that dies midway leaves its {@code .shipping} file unlocked, and the next one takes it again.
 * Lines the dead process had already written (its last batch, or any since the journal was last cut back) are written
 * again with {@link CallSink#replay}, which stores a record that is there already once.
 */
final class DeadJournals {
    /**
     * One taker at a time in this JVM: two channels on one file here would share one process's lock, and closing the
     * loser's would release the winner's (see {@link Journal#HELD}).
     */
    private static final ReentrantLock IN_THIS_PROCESS = new ReentrantLock();

    private DeadJournals() {
    }

    /**
     * What one pass shipped.
     *
     * @param files     journal files shipped and deleted
     * @param records   records written
     * @param malformed lines that were not a call record (a line cut short), skipped
     */
    record Shipped(int files, int records, int malformed) {
        static final Shipped NOTHING = new Shipped(0, 0, 0);
    }

    private static List<Path> candidates(Path folder) throws IOException {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> {
                String name = p.getFileName().toString();
                return !Journal.HELD.contains(name)
                        && (name.endsWith(Journal.LIVE) || name.endsWith(Journal.SHIPPING) || name.endsWith(Journal.NEW));
            }).sorted().toList();
        }
    }

    /**
     * Takes and ships every unlocked journal file in {@code folder} to {@code sink}. A file whose records the store
     * refused stays (unlocked) for the next pass.
     *
     * @throws Exception what the store threw (what was shipped before stays shipped)
     */
    static Shipped ship(Path folder, CallSink sink) throws Exception {
        IN_THIS_PROCESS.lock();
        try {
            int files = 0;
            int records = 0;
            int malformed = 0;
            for (Path p : candidates(folder)) {
                if (p.getFileName().toString().endsWith(Journal.NEW)) {
                    removeIfLeft(p);
                    continue;
                }
                Taken taken = take(folder, p);
                if (taken == null) {
                    continue;
                }
                try {
                    Spool.Lines lines = Spool.lines(taken.read());
                    List<CallRecord> all = lines.records();
                    for (int i = 0; i < all.size(); i += CallRecorder.MAX_BATCH) {
                        sink.replay(all.subList(i, Math.min(all.size(), i + CallRecorder.MAX_BATCH)));
                    }
                    Files.delete(taken.file()); // before the lock goes: no one takes a shipped file
                    files++;
                    records += all.size();
                    malformed += lines.malformed();
                } finally {
                    taken.close();
                }
            }
            return new Shipped(files, records, malformed);
        } finally {
            IN_THIS_PROCESS.unlock();
        }
    }

    /** A journal file this process took: its new name and the channel holding its lock. */
    private record Taken(Path file, FileChannel channel) {
        byte[] read() throws IOException {
            long size = channel.size();
            if (size > Integer.MAX_VALUE - 16) {
                throw new IOException("the call journal " + file + " is too large to ship (" + size + " bytes)");
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) size);
            while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) >= 0) {
                // reads to the end
            }
            return Arrays.copyOf(bytes.array(), bytes.position());
        }

        void close() throws IOException {
            try {
                channel.close();
            } finally {
                Journal.HELD.remove(file.getFileName().toString());
            }
        }
    }

    /**
     * Locks {@code p} and renames it to a name of this process's; null when its process lives (locked), another
     * taker got it first (gone), or it was a symbolic link (removed unread, the link only).
     */
    private static Taken take(Path folder, Path p) throws IOException {
        FileChannel channel = openUnlocked(p);
        if (channel == null) {
            return null;
        }
        String mine = UUID.randomUUID() + Journal.SHIPPING;
        Journal.HELD.add(mine);
        boolean moved = false;
        try {
            Files.move(p, folder.resolve(mine), StandardCopyOption.ATOMIC_MOVE);
            moved = true;
            return new Taken(folder.resolve(mine), channel);
        } catch (NoSuchFileException e) {
            return null; // another taker renamed it between our open and our lock, and has shipped it since
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot rename the call journal " + p + " atomically: " + e.getMessage(), e);
        } finally {
            if (!moved) {
                Journal.HELD.remove(mine);
                channel.close();
            }
        }
    }

    /** The file opened with its lock held, or null when it is locked, gone or a link (then removed). */
    private static FileChannel openUnlocked(Path p) throws IOException {
        FileChannel channel = Spool.openExisting(p, "the call journals", StandardOpenOption.READ, StandardOpenOption.WRITE);
        if (channel == null) {
            return null;
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held in this JVM after all
        }
        if (lock == null) {
            channel.close();
            return null;
        }
        return channel;
    }

    /** Removes a segment a process died while making (it holds no line: lines go only to renamed segments). */
    private static void removeIfLeft(Path p) throws IOException {
        FileChannel channel = openUnlocked(p);
        if (channel != null) {
            try {
                Files.deleteIfExists(p);
            } finally {
                channel.close();
            }
        }
    }

}
