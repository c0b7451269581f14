package dev.agenttools.tracking;

import dev.agenttools.store.ForeignFiles;
import dev.agenttools.store.SqliteStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The call store's files as another process of the user's may leave them: a symbolic link where the store, a side
 * file or the spool should be is refused (its target never read, written or chmod-ed); a folder others may write is
 * refused; an older version's WAL-mode file is converted to a rollback journal, and while another process holds it
 * the records wait in the spool.
 */
class StoreFilesTest {
    private static final Instant T = Instant.parse("2026-11-30T12:00:00Z");

    private static CallRecord record(int i) {
        return new CallRecord(T.plusSeconds(i), "gmail.list-emails", "agent-" + i, 10 + i, "batch", "batch", "ok", null, i, "req-" + i);
    }

    private static List<String> tables(Path db) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             ResultSet rs = c.createStatement().executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void aLinkAtTheStorePathIsRefusedAndItsTargetLeftAsItWas(@TempDir Path dir) throws Exception {
        Path store = Files.createDirectories(dir.resolve("store"));
        Path notes = ForeignFiles.plainFile(dir);
        Path theirs = ForeignFiles.theirDatabase(dir);
        for (Path target : List.of(notes, theirs)) {
            byte[] before = Files.readAllBytes(target);
            String modeBefore = mode(target);
            Path db = store.resolve("calls.db");
            Files.createSymbolicLink(db, target);

            assertThatThrownBy(() -> new SqliteSink(db)).isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining(db + " is a symbolic link");
            assertThatThrownBy(() -> SqliteSink.openToRead(db)).hasMessageContaining(db + " is a symbolic link");

            assertThat(Files.readAllBytes(target)).as("%s unchanged", target).isEqualTo(before);
            assertThat(mode(target)).as("%s's mode", target).isEqualTo(modeBefore);
            Files.delete(db);
        }
        assertThat(tables(theirs)).as("no table of ours in their database").containsExactly("their_table");
        try (var left = Files.list(dir.resolve("elsewhere"))) {
            assertThat(left.map(p -> p.getFileName().toString())).as("no journal made beside their files")
                    .containsExactlyInAnyOrder("notes.txt", "theirs.db");
        }
    }

    @Test
    void aLinkWhereSqliteKeepsAJournalIsRefusedToo(@TempDir Path dir) throws Exception {
        Path notes = ForeignFiles.plainFile(dir);
        Path db = Files.createDirectories(dir.resolve("store")).resolve("calls.db");
        new SqliteSink(db).close();
        for (String side : List.of("-journal", "-wal", "-shm")) {
            Path link = db.resolveSibling("calls.db" + side);
            Files.deleteIfExists(link); // the journal a rollback-journal store keeps (empty between writes), replaced
            Files.createSymbolicLink(link, notes);
            assertThatThrownBy(() -> new SqliteSink(db)).hasMessageContaining(link + " is a symbolic link");
            Files.delete(link);
        }
        assertThat(Files.readString(notes)).isEqualTo("precious notes\n");
        assertThat(mode(notes)).isEqualTo("rw-r--r--");
    }

    @Test
    void theSpoolNeverWritesOrReadsThroughALink(@TempDir Path dir) throws Exception {
        Path notes = ForeignFiles.plainFile(dir);
        Path db = Files.createDirectories(dir.resolve("store")).resolve("calls.db");
        Spool spool = new Spool(db);
        Files.createSymbolicLink(spool.file(), notes);
        assertThatThrownBy(() -> spool.write(List.of(record(1)))).hasMessageContaining(spool.file() + " is a symbolic link");
        assertThat(Files.readString(notes)).isEqualTo("precious notes\n");

        // a link taken for ingesting (renamed, as a spool is) is removed unread: the target's lines are not records
        Files.writeString(notes, Spool.line(record(9)) + "\n");
        try (SqliteSink sink = new SqliteSink(db)) {
            assertThat(sink.ingested()).isEqualTo(SqliteSink.Ingested.NOTHING);
            assertThat(sink.read(Instant.EPOCH, null)).isEmpty();
        }
        assertThat(notes).as("the link's target").hasContent(Spool.line(record(9)));
        try (var left = Files.list(db.getParent())) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("calls.db.pending-"));
        }

        // and the lock file
        Files.deleteIfExists(db.resolveSibling("calls.db.pending.lock"));
        Files.createSymbolicLink(db.resolveSibling("calls.db.pending.lock"), notes);
        assertThatThrownBy(() -> spool.write(List.of(record(1)))).hasMessageContaining("calls.db.pending.lock is a symbolic link");
        assertThat(mode(notes)).isEqualTo("rw-r--r--");
    }

    @Test
    void aFolderOthersMayWriteIsRefusedNamingIt(@TempDir Path dir) throws Exception {
        Path open = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path db = open.resolve("calls.db");
        assertThatThrownBy(() -> new SqliteSink(db)).hasMessageContaining("the folder " + open.toRealPath() + " has mode rwxrwxrwx")
                .hasMessageContaining("others may make files in it");
        assertThatThrownBy(() -> new Spool(db).write(List.of(record(1)))).hasMessageContaining("has mode rwxrwxrwx");
        try (var left = Files.list(open)) {
            assertThat(left).as("nothing made there").isEmpty();
        }
    }

    @Test
    void aNewStoreIsOwnerOnlyInAnOwnerOnlyFolderWithNoFileMappedInMemory(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("data/agent-tools/calls.db");
        try (SqliteSink sink = new SqliteSink(db)) {
            sink.write(List.of(record(1), record(2)));
        }
        assertThat(mode(db)).isEqualTo("rw-------");
        assertThat(mode(db.getParent())).isEqualTo("rwx------");
        assertThat(db.resolveSibling("calls.db-shm")).doesNotExist();
        assertThat(db.resolveSibling("calls.db-wal")).doesNotExist();
    }

    /** A store as an older version left it: WAL mode, with records still in the -wal file. */
    private static Connection olderVersionsStore(Path db) throws Exception {
        Files.createDirectories(db.getParent());
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("PRAGMA wal_autocheckpoint = 0"); // the records stay in the -wal file
            s.execute("CREATE TABLE calls (ts_ms INTEGER NOT NULL, tool_name TEXT NOT NULL, agent_name TEXT NOT NULL,"
                    + " duration_ms REAL NOT NULL, backend TEXT, strategy TEXT NOT NULL, status TEXT NOT NULL, error_code TEXT,"
                    + " items INTEGER NOT NULL, request_id TEXT NOT NULL)");
            s.execute("INSERT INTO calls VALUES (1000, 'gmail.list-emails', 'old', 5.0, 'batch', 'batch', 'ok', NULL, 1, 'r-old')");
        }
        return c;
    }

    @Test
    void anOlderVersionsWalFileIsConvertedWhenOpenedKeepingItsRecords(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("store/calls.db");
        olderVersionsStore(db).close();
        try (SqliteSink sink = new SqliteSink(db)) {
            sink.write(List.of(record(1)));
            assertThat(sink.read(Instant.EPOCH, null)).extracting(CallRecord::agentName).containsExactly("old", "agent-1");
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             ResultSet rs = c.createStatement().executeQuery("PRAGMA journal_mode")) {
            assertThat(rs.getString(1)).isNotEqualTo("wal");
        }
        assertThat(db.resolveSibling("calls.db-wal")).doesNotExist();
        assertThat(db.resolveSibling("calls.db-shm")).doesNotExist();
    }

    @Test
    void whileAnOlderVersionHoldsItsWalFileTheRecordsWaitInTheSpool(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("store/calls.db");
        TrackingSettings settings = new TrackingSettings(TrackingSettings.Sink.SQLITE, db, "unused", null, "us-east-1");
        try (Connection olderProcess = olderVersionsStore(db)) {
            assertThatThrownBy(() -> new SqliteSink(db)).isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SqliteStore.HeldInWalMode.class).hasMessageContaining("open in another process");
            CallSink sink = Tracking.openSink(settings, List.of());
            assertThat(sink).isInstanceOf(Spool.class);
            sink.write(List.of(record(1), record(2)));
            sink.close();
            assertThat(olderProcess.isClosed()).isFalse();
        }
        // the older process is gone: the next open converts the file and moves the spooled records in
        try (SqliteSink sink = new SqliteSink(db)) {
            assertThat(sink.ingested().records()).isEqualTo(2);
            assertThat(sink.read(Instant.EPOCH, null)).extracting(CallRecord::agentName).containsExactly("old", "agent-1", "agent-2");
        }
        assertThat(new String(Files.readAllBytes(db), 0, 16, StandardCharsets.US_ASCII)).startsWith("SQLite format 3");
        assertThat(db.resolveSibling("calls.db-wal")).doesNotExist();
    }

    @Test
    void statsConvertsAnOlderVersionsWalFileToReadIt(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("store/calls.db");
        olderVersionsStore(db).close();
        try (SqliteSink reader = SqliteSink.openToRead(db).orElseThrow()) {
            assertThat(reader.read(Instant.EPOCH, null)).extracting(CallRecord::agentName).containsExactly("old");
        }
        assertThat(db.resolveSibling("calls.db-wal")).doesNotExist();
    }
}
