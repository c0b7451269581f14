package dev.agenttools.tracking;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.store.PrivateFolder;
import dev.agenttools.tool.Diagnostics;
import dev.agenttools.tool.Json;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * Call records on their way into a SQLite store, for a process that makes one call and exits: appending a JSON line
 * to a file costs well under a millisecond, where loading sqlite-jdbc and opening the store costs a few hundred, all
 * of it after the answer is out and before the agent sees the process end. {@link SqliteSink} moves the lines into
 * the store whenever it opens it ({@code serve}, {@code mcp}, the resident server, {@code stats}).
 *
 * <p>The files, next to a store {@code calls.db}, all owner-only: {@code calls.db.pending}, the lines appended by
 * one-shot calls; {@code calls.db.pending-<random>}, a spool an ingester has taken (one a crashed ingester left
 * behind is taken again by the next); {@code calls.db.pending.lock}, whose lock orders appends against takes. They
 * live in the store's {@link PrivateFolder} and are never opened through a symbolic link ({@code O_NOFOLLOW}): a
 * link where the spool or its lock should be fails the append, and a taken link is removed unread (the link only).
 *
 * <p>Exactly once with any number of processes: an appender holds the lock while it opens the spool and writes its
 * lines (one write, O_APPEND), and a taker holds it only while it renames the spool to a name of its own, so no line
 * is ever written to a file after it was taken, and appenders wait at most for a rename. The store inserts a taken
 * file's lines in one transaction that also records the file's name, then deletes the file (see
 * {@link SqliteSink}), so a file read twice (two ingesters, or a crash between commit and delete) is inserted once.
 *
 * <p>Thread-safe. This class loads no SQLite class: the one-shot {@code call} uses it for that reason.
 */
final class Spool implements CallSink {
    /** How long an append or a take waits for another process's append or take (each holds the lock for microseconds). */
    static final Duration LOCK_WAIT = Duration.ofSeconds(10);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    /**
     * File locks (POSIX record locks) belong to the whole process, not to a channel or thread: a second channel on the
     * lock file in this JVM would be refused the lock, and closing it would release the first one's. So the threads
     * of one process take turns here before they take the file lock.
     */
    private static final ReentrantLock IN_THIS_PROCESS = new ReentrantLock();

    private final Path folder;
    private final Path pending;
    private final Path lock;
    private final String takenPrefix;

    /** The spool of the SQLite store {@code store}; touches no file until used. */
    Spool(Path store) {
        Path absolute = store.toAbsolutePath();
        this.folder = absolute.getParent();
        String name = absolute.getFileName().toString();
        this.pending = folder.resolve(name + ".pending");
        this.lock = folder.resolve(name + ".pending.lock");
        this.takenPrefix = name + ".pending-";
    }

    /** The file one-shot calls append to. */
    Path file() {
        return pending;
    }

    @Override
    public String name() {
        return "sqlite-spool";
    }

    /**
     * Appends the batch as JSON lines, in one write under the lock, creating the folders and files when missing.
     * A write that fails part-way is cut back, so that no half line is left for the next append to run into.
     */
    @Override
    public void write(List<CallRecord> batch) throws IOException {
        StringBuilder text = new StringBuilder(256 * batch.size());
        for (CallRecord r : batch) {
            text.append(line(r)).append('\n');
        }
        ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        PrivateFolder.of(pending);
        locked(() -> {
            try (FileChannel out = open(pending, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                long size = out.size();
                try {
                    while (bytes.hasRemaining()) {
                        out.write(bytes);
                    }
                } catch (IOException e) {
                    try {
                        out.truncate(size);
                    } catch (IOException cutting) {
                        e.addSuppressed(cutting);
                    }
                    throw e;
                }
            }
        });
    }

    /** The spool is only appended to here; its records are read from the store after it ingested them. */
    @Override
    public List<CallRecord> read(Instant since, String tool) {
        throw new UnsupportedOperationException("the call spool " + pending + " is not read directly: open the store, which ingests it");
    }

    @Override
    public void close() {
        // nothing held between writes
    }

    /** Whether there are lines waiting: the spool, or a taken file not ingested yet. Creates nothing. */
    boolean hasPending() throws IOException {
        return Files.exists(pending) || !taken().isEmpty();
    }

    /**
     * Takes the spool for ingesting (renames it to a name of its own, so that appends go to a new one) and returns it
     * together with every file taken before and not deleted yet: a crashed ingester's, or another live ingester's
     * (reading that one too is harmless: the store inserts a file's lines once).
     */
    List<Path> take() throws IOException {
        if (Files.exists(pending)) {
            Path mine = folder.resolve(takenPrefix + UUID.randomUUID());
            locked(() -> {
                try {
                    Files.move(pending, mine, StandardCopyOption.ATOMIC_MOVE);
                } catch (NoSuchFileException e) {
                    // another ingester took it first
                } catch (AtomicMoveNotSupportedException e) {
                    throw new IOException("cannot rename the call spool " + pending + " atomically: " + e.getMessage(), e);
                }
            });
        }
        return taken();
    }

    private List<Path> taken() throws IOException {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        // a prefix test, not a glob: the store's own name may hold glob characters
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.getFileName().toString().startsWith(takenPrefix)).sorted().toList();
        }
    }

    /** What a taken file holds: the records of its well-formed lines and how many lines were not. */
    record Lines(List<CallRecord> records, int malformed) {
    }

    /**
     * Reads a taken file; null when it is gone (another ingester finished it), or was a symbolic link, which is
     * removed unread (the link only: its target is never read).
     */
    static Lines read(Path taken) throws IOException {
        FileChannel in = openExisting(taken, "the call spool", StandardOpenOption.READ);
        if (in == null) {
            return null;
        }
        try (in) {
            return lines(Channels.newInputStream(in).readAllBytes());
        }
    }

    /**
     * Opens a file another process may have taken or replaced meanwhile (a spool's, a dead journal): null when it is
     * gone, or is a symbolic link, which is removed unread (the link only: its target is never opened) and named in a
     * warning as one of {@code where}'s files.
     */
    static FileChannel openExisting(Path p, String where, StandardOpenOption... options) throws IOException {
        Set<OpenOption> all = new HashSet<>(List.of(options));
        all.add(LinkOption.NOFOLLOW_LINKS);
        try {
            return FileChannel.open(p, all);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            if (!Files.isSymbolicLink(p)) {
                throw e;
            }
            Files.deleteIfExists(p);
            Diagnostics.warn("removed the symbolic link " + p + " from " + where + ", unread");
            return null;
        }
    }

    /** The records of the JSON lines in {@code bytes} and how many lines were not one (a spool's or a journal's). */
    static Lines lines(byte[] bytes) {
        // made here, not once for the class: the one-shot call, which only appends, need not load what it takes
        ObjectReader reader = Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        List<CallRecord> records = new ArrayList<>();
        int malformed = 0;
        // bytes that are not UTF-8 become U+FFFD: that line may still be malformed, the others are unaffected
        for (String line : new String(bytes, StandardCharsets.UTF_8).lines().toList()) {
            if (line.isBlank()) {
                continue;
            }
            try {
                records.add(parse(reader, line));
            } catch (IOException | RuntimeException e) {
                malformed++;
            }
        }
        return new Lines(records, malformed);
    }

    /** Deletes a taken file once its lines are in the store. */
    static void remove(Path taken) throws IOException {
        Files.deleteIfExists(taken);
    }

    /** One record as a JSON line (no newline), with the store's column names. */
    static String line(CallRecord r) {
        ObjectNode n = Json.object();
        n.put("ts_ms", r.ts().toEpochMilli());
        n.put("tool_name", r.toolName());
        n.put("agent_name", r.agentName());
        n.put("duration_ms", r.durationMs());
        n.put("backend", r.backend());
        n.put("strategy", r.strategy());
        n.put("status", r.status());
        n.put("error_code", r.errorCode());
        n.put("items", r.items());
        n.put("request_id", r.requestId());
        return Json.write(n);
    }

    /** The record of a JSON line; throws IllegalArgumentException or Jackson's IOException for anything else. */
    private static CallRecord parse(ObjectReader reader, String line) throws IOException {
        JsonNode n = reader.readTree(line);
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        JsonNode ts = n.path("ts_ms");
        JsonNode duration = n.path("duration_ms");
        JsonNode items = n.path("items");
        String status = text(n, "status");
        if (!ts.canConvertToExactIntegral() || !ts.canConvertToLong() || !duration.isNumber() || !items.canConvertToExactIntegral()
                || !items.canConvertToInt() || !("ok".equals(status) || "error".equals(status))) {
            throw new IllegalArgumentException("ts_ms, duration_ms, items or status missing or of the wrong type");
        }
        String tool = text(n, "tool_name");
        if (tool == null || tool.isBlank()) {
            throw new IllegalArgumentException("no tool_name");
        }
        return new CallRecord(Instant.ofEpochMilli(ts.asLong()), tool, text(n, "agent_name"), duration.asDouble(),
                text(n, "backend"), text(n, "strategy"), status, text(n, "error_code"), items.asInt(), text(n, "request_id"));
    }

    /** A string field, null when absent or null; anything else is malformed. */
    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException(field + " is not a string");
        }
        return v.asText();
    }

    /**
     * Opens a spool file, created owner-only when missing, never through a symbolic link (a link there fails with a
     * message naming it).
     */
    static FileChannel open(Path p, StandardOpenOption... options) throws IOException {
        Set<OpenOption> all = new HashSet<>(List.of(options));
        all.add(LinkOption.NOFOLLOW_LINKS);
        try {
            return FileChannel.open(p, all, OWNER_ONLY);
        } catch (IOException e) {
            if (Files.isSymbolicLink(p)) {
                throw new IOException(p + " is a symbolic link; agent-tools does not follow links to its stores (remove it)", e);
            }
            throw e;
        }
    }

    private interface LockedAction {
        void run() throws IOException;
    }

    /** Runs the action holding the spool's lock (this process's turn, then the file lock). */
    private void locked(LockedAction action) throws IOException {
        long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        try {
            if (!IN_THIS_PROCESS.tryLock(LOCK_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IOException("the call spool " + pending + " stayed locked by this process for " + LOCK_WAIT.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the call spool " + pending);
        }
        try (FileChannel channel = open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock held;
            while ((held = channel.tryLock()) == null) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the call spool's lock " + lock + " stayed held by another process for "
                            + LOCK_WAIT.toMillis() + " ms");
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted waiting for the call spool's lock " + lock);
                }
            }
            try {
                action.run();
            } finally {
                held.release();
            }
        } finally {
            IN_THIS_PROCESS.unlock();
        }
    }
}
