package dev.agenttools.daemon;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;

/**
 * The resident server's folder: owner-only ({@code 0700}), holding a lock (one server per folder) and the file
 * {@value #ADDRESS_FILE} ({@code 0600}) that tells the launcher the port, the client secret and the server's pid.
 * The launcher finds the folder by its path; a folder that someone else owns, or that others may read, is refused
 * rather than used, since the secret in it opens the port. Thread-safe.
 */
public final class DaemonDirectory implements AutoCloseable {
    /**
     * The file the launcher reads: {@code port clientSecret pid} on one line (the launcher drops a file whose pid is
     * not a live process of its user's; people and the benchmark read the pid too).
     */
    public static final String ADDRESS_FILE = "daemon";
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private String published;

    private DaemonDirectory(Path dir, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Creates the folder (and its parent, both owner-only) when missing and takes its lock, waiting up to
     * {@code wait} for a server that is shutting down to let go of it.
     *
     * @return null when another server holds the lock for all of {@code wait}
     * @throws IOException when the folder cannot be made, or exists but is not the user's own, owner-only folder
     */
    public static DaemonDirectory lock(Path dir, Duration wait) throws IOException {
        ensurePrivate(dir.toAbsolutePath().getParent());
        ensurePrivate(dir);
        FileChannel channel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long until = System.nanoTime() + wait.toNanos();
        try {
            while (true) {
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    lock = null; // held by a server in this same JVM (tests)
                }
                if (lock != null) {
                    return new DaemonDirectory(dir, channel, lock);
                }
                if (System.nanoTime() - until >= 0) {
                    channel.close();
                    return null;
                }
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            channel.close();
            return null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static void ensurePrivate(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
        } catch (FileAlreadyExistsException e) {
            // checked below
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a folder; remove it so that agent-tools can make its own");
        }
        String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(System.getProperty("user.name"))) {
            throw new IOException(dir + " belongs to " + owner + ", not to " + System.getProperty("user.name")
                    + "; agent-tools keeps its server's secrets only in a folder of your own");
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (!mode.equals(OWNER_ONLY_DIR)) {
            throw new IOException(dir + " has mode " + PosixFilePermissions.toString(mode)
                    + "; it must be rwx------ (chmod 700) since it holds the server's secrets");
        }
    }

    /** Writes the address file in one step (a reader sees the old file or the whole new one), readable by the owner only. */
    public synchronized void publish(int port, String clientSecret) throws IOException {
        String line = port + " " + clientSecret + " " + ProcessHandle.current().pid() + "\n";
        Path temp = Files.createTempFile(dir, ADDRESS_FILE, ".new", PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
        try {
            Files.writeString(temp, line, StandardCharsets.US_ASCII);
            try {
                Files.move(temp, dir.resolve(ADDRESS_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, dir.resolve(ADDRESS_FILE), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        published = line;
    }

    private boolean stillPublished() {
        try {
            return published != null && published.equals(Files.readString(dir.resolve(ADDRESS_FILE), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether this server published its address and the file no longer names it (someone removed the folder). */
    public synchronized boolean lost() {
        return published != null && !stillPublished();
    }

    /** Removes the address file if it is still this server's: launchers stop coming, and start a new server. */
    public synchronized void unpublish() {
        try {
            if (stillPublished()) {
                Files.deleteIfExists(dir.resolve(ADDRESS_FILE));
            }
        } catch (IOException e) {
            // gone already, or the folder is: either way no launcher finds this server
        }
        published = null;
    }

    /** {@link #unpublish()}, then lets go of the lock. */
    @Override
    public void close() throws IOException {
        try {
            unpublish();
        } finally {
            lock.release();
            lockChannel.close();
        }
    }
}
