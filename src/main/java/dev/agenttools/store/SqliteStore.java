package dev.agenttools.store;

import org.sqlite.SQLiteException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;

/**
 * How agent-tools opens its local SQLite files, the call store and the mail index, so that what other processes do
 * to them costs at most a record or the index, never the process:
 * <ul>
 *   <li>in a {@link PrivateFolder}, never through a symbolic link: the file is created owner-only in one step, and
 *       SQLite is asked not to follow one ({@code SQLITE_OPEN_NOFOLLOW}; it opens its journals with
 *       {@code O_NOFOLLOW} anyway);</li>
 *   <li>with a rollback journal ({@code journal_mode=TRUNCATE}) and no memory mapping ({@code mmap_size=0}). WAL
 *       mode memory-maps its {@code -shm} file, and another process truncating that file made the next access
 *       a SIGBUS that killed the JVM; with a journal SQLite only reads and writes files, and a damaged one is an
 *       error code. Several processes still share a file: one writer at a time, each waiting up to
 *       {@link #BUSY_TIMEOUT} for the others' locks. A file an older version left in WAL mode is converted when
 *       opened; while another process has it open that cannot be done, and the open fails as
 *       {@link HeldInWalMode} (nothing is damaged: try again later).</li>
 * </ul>
 * This class loads sqlite-jdbc when first used.
 */
public final class SqliteStore {
    /** How long a statement waits for another process's lock on the file before it fails as busy. */
    static final Duration BUSY_TIMEOUT = Duration.ofSeconds(10);
    /** What SQLite keeps beside a database: the rollback journal, and WAL's two files as an older version left them. */
    private static final String[] SIDE_FILES = {"-journal", "-wal", "-shm"};
    /** sqlite3_open_v2 flags (sqlite-jdbc's SQLiteOpenMode has no NOFOLLOW: its "open_mode" property takes the number). */
    private static final int OPEN_READONLY = 0x00000001;
    private static final int OPEN_READWRITE = 0x00000002;
    private static final int OPEN_NOFOLLOW = 0x01000000;
    /** How long opening retries converting a WAL-mode file that another process is using (a one-shot call ends soon). */
    private static final Duration WAL_CONVERSION_WAIT = Duration.ofSeconds(2);

    private SqliteStore() {
    }

    /**
     * An open store: the connection, the file's real path, and which file it was (its file key, so that a caller can
     * tell when the path has come to name another file since).
     */
    public record Opened(Connection connection, Path file, Object fileKey) {
    }

    /**
     * SQLite failed to open or set up the file: its own failure as the cause ({@link #damaged} reads it), with which
     * file that was (its real path and file key), so that a damaged one can be set aside without finding it again.
     */
    public static final class OpenFailed extends SQLException {
        private static final long serialVersionUID = 1L;
        private final transient Path file;
        private final transient Object fileKey;

        OpenFailed(SQLException cause, Path file, Object fileKey) {
            super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
            this.file = file;
            this.fileKey = fileKey;
        }

        /** The file's real path. */
        public Path file() {
            return file;
        }

        /** Which file it was when opened ({@link SqliteStore#fileKey}). */
        public Object fileKey() {
            return fileKey;
        }
    }

    /** A file left in WAL mode by an older version, which another process has open: it cannot be converted now. */
    public static final class HeldInWalMode extends IOException {
        private static final long serialVersionUID = 1L;

        HeldInWalMode(String message) {
            super(message);
        }
    }

    /**
     * Opens {@code file} to read and write, creating it (and its folder) owner-only when missing, in rollback-journal
     * mode without memory mapping.
     *
     * @param durable whether a commit waits for the disk ({@code synchronous=FULL}: 2 to 3 fsyncs, so that neither a
     *                crash nor a power cut damages the file) or not ({@code OFF}, for a store that can be rebuilt: a
     *                process killed mid-write still never damages it, since the OS holds what was written; an OS crash
     *                or a power cut at the wrong moment may)
     * @throws IOException  the file or its folder is refused (a link, someone else's, a folder others may write;
     *                      the message names it), or {@link HeldInWalMode}
     * @throws OpenFailed  SQLite's own failure ({@link #damaged} tells a damaged file)
     */
    public static Opened openToWrite(Path file, boolean durable) throws IOException, OpenFailed {
        Path real = PrivateFolder.of(file).store(file.getFileName().toString(), SIDE_FILES);
        Object key = fileKey(real);
        Connection c;
        try {
            c = connect(real, OPEN_READWRITE);
        } catch (SQLException e) {
            throw new OpenFailed(e, real, key);
        }
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA mmap_size = 0");
            s.execute("PRAGMA synchronous = " + (durable ? "FULL" : "OFF"));
            String mode = toRollbackJournal(s, real);
            if (!mode.equals("truncate")) {
                throw new HeldInWalMode("the SQLite file " + file + " stays in " + mode + " mode (it answered so when asked"
                        + " for a rollback journal)");
            }
            return new Opened(c, real, key);
        } catch (SQLException e) {
            close(c, e);
            throw new OpenFailed(e, real, key);
        } catch (IOException | RuntimeException e) {
            close(c, e);
            throw e;
        }
    }

    private static String toRollbackJournal(Statement s, Path file) throws SQLException, HeldInWalMode {
        long until = System.nanoTime() + WAL_CONVERSION_WAIT.toNanos();
        while (true) {
            try (ResultSet rs = s.executeQuery("PRAGMA journal_mode = TRUNCATE")) {
                return rs.next() ? rs.getString(1).toLowerCase(Locale.ROOT) : "unknown";
            } catch (SQLException e) {
                // leaving WAL mode needs the file to itself, and SQLite does not wait for that (SQLITE_BUSY at once)
                if ((e.getErrorCode() & 0xff) != 5 || System.nanoTime() - until > 0) {
                    if ((e.getErrorCode() & 0xff) == 5) {
                        throw new HeldInWalMode("the SQLite file " + file + " is in WAL mode (left by an older agent-tools)"
                                + " and open in another process, so it cannot be converted to a rollback journal now");
                    }
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * Opens an existing {@code file} to read only, creating nothing, without memory mapping; a file in WAL mode (an
     * older version's) or with a journal to roll back is opened as {@link #openToWrite} does instead, since only a
     * writer can convert or roll back.
     *
     * @throws IOException  the file or its folder is refused, or {@link HeldInWalMode}
     * @throws SQLException SQLite's own failure
     */
    public static Opened openToRead(Path file, boolean durable) throws IOException, SQLException {
        Path real = PrivateFolder.of(file).path().resolve(file.getFileName().toString());
        PrivateFolder.checkRegular(real);
        for (String suffix : SIDE_FILES) {
            Path side = real.resolveSibling(real.getFileName() + suffix);
            if (Files.exists(side, LinkOption.NOFOLLOW_LINKS)) {
                PrivateFolder.checkRegular(side);
            }
        }
        if (walMode(real) || size(real.resolveSibling(real.getFileName() + "-journal")) > 0) {
            return openToWrite(file, durable);
        }
        Object key = fileKey(real);
        Connection c = connect(real, OPEN_READONLY);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA mmap_size = 0");
            return new Opened(c, real, key);
        } catch (SQLException | RuntimeException e) {
            close(c, e);
            throw e;
        }
    }

    private static Connection connect(Path real, int flags) throws SQLException {
        Properties p = new Properties();
        p.setProperty("open_mode", Integer.toString(flags | OPEN_NOFOLLOW));
        p.setProperty("busy_timeout", Long.toString(BUSY_TIMEOUT.toMillis()));
        return DriverManager.getConnection("jdbc:sqlite:" + real, p);
    }

    /** Whether the database header says WAL (bytes 18 and 19, the read and write versions, are 2). */
    private static boolean walMode(Path file) throws IOException {
        byte[] header = new byte[20];
        try (InputStream in = Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            if (in.readNBytes(header, 0, header.length) < header.length) {
                return false;
            }
        }
        return header[18] == 2 || header[19] == 2;
    }

    private static long size(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).size();
        } catch (NoSuchFileException e) {
            return 0;
        }
    }

    /** Which file {@code p} names now (not through a link); null when nothing does, or the file system cannot tell. */
    public static Object fileKey(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Whether SQLite found the file damaged: not a database ({@code SQLITE_NOTADB}), a malformed page
     * ({@code SQLITE_CORRUPT} and its kinds), or shorter than its header says ({@code SQLITE_IOERR_SHORT_READ}).
     * Busy, full, read-only and I/O errors are not damage: the file may be sound once they pass.
     */
    public static boolean damaged(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                int primary = s.getErrorCode() & 0xff;
                if (primary == 11 || primary == 26) {
                    return true;
                }
                if (t instanceof SQLiteException sqlite && sqlite.getResultCode().code == 522) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Moves a damaged store at {@code file} aside as {@code <file>.damaged-<epoch ms>}, with its journal (and an older
     * version's WAL file), so that a new one can be made; never deletes it. Does nothing when the path no longer
     * names the file found damaged ({@code fileKey}; another process set it aside already).
     *
     * @return where it went, or null when it was not moved
     */
    public static Path setAside(Path file, Object fileKey) throws IOException {
        Object now = fileKey(file);
        if (now == null || fileKey != null && !fileKey.equals(now)) {
            return null;
        }
        Path aside = file.resolveSibling(file.getFileName() + ".damaged-" + System.currentTimeMillis());
        Files.move(file, aside); // a rename: moves the file itself, follows no link
        for (String suffix : new String[] {"-journal", "-wal"}) {
            Path side = file.resolveSibling(file.getFileName() + suffix);
            try {
                Files.move(side, aside.resolveSibling(aside.getFileName() + suffix));
            } catch (NoSuchFileException e) {
                // none
            }
        }
        Files.deleteIfExists(file.resolveSibling(file.getFileName() + "-shm")); // derived from the WAL file; rebuilt
        return aside;
    }

    private static void close(Connection c, Exception cause) {
        try {
            c.close();
        } catch (SQLException closing) {
            cause.addSuppressed(closing);
        }
    }
}
