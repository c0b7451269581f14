package dev.agenttools.tracking;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** One-shot calls' records wait in the spool as JSON lines; opening the store moves them in, once each. */
@Tag("process")
class SpoolTest {
    private static final Instant T = Instant.parse("2026-11-30T12:00:00.123Z");

    private static CallRecord record(int i) {
        return new CallRecord(T.plusSeconds(i), "gmail.list-emails", "agent-" + i, 100.5 + i, "batch", "batch", "ok", null, i, "req-" + i);
    }

    private static List<CallRecord> all(Path db) throws Exception {
        try (SqliteSink sink = new SqliteSink(db)) {
            return sink.read(Instant.EPOCH, null);
        }
    }

    @Test
    void spooledRecordsAreMovedIntoTheStoreWhenItOpensAndOnlyThen(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("data/agent-tools/calls.db");
        Spool spool = new Spool(db);
        CallRecord failed = new CallRecord(T, "gmail.get-email", null, 12.25, null, null, "error", "not_found", 0, null);
        spool.write(List.of(record(1), record(2)));
        spool.write(List.of(failed));

        assertThat(db).as("appending creates the folders and the spool, never the store").doesNotExist();
        assertThat(Files.readAllLines(spool.file())).hasSize(3).allSatisfy(l -> assertThat(l).startsWith("{\"ts_ms\":"));
        assertThat(Files.getPosixFilePermissions(spool.file())).isEqualTo(PosixFilePermissions.fromString("rw-------"));

        try (SqliteSink sink = new SqliteSink(db)) {
            assertThat(sink.ingested()).isEqualTo(new SqliteSink.Ingested(1, 3, 0));
            assertThat(sink.read(Instant.EPOCH, null)).containsExactly(failed, record(1), record(2));
        }
        assertThat(spool.file()).doesNotExist();
        assertThat(spool.hasPending()).isFalse();
        try (SqliteSink again = new SqliteSink(db)) {
            assertThat(again.ingested()).isEqualTo(new SqliteSink.Ingested(0, 0, 0));
            assertThat(again.read(Instant.EPOCH, null)).hasSize(3);
        }
    }

    @Test
    void aMalformedLineIsSkippedAndCountedAndTheOthersAreIngested(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Spool spool = new Spool(db);
        spool.write(List.of(record(1)));
        String good = Spool.line(record(2));
        Files.writeString(spool.file(), String.join("\n",
                "not json at all",
                "[1, 2, 3]",
                "{\"ts_ms\": 5, \"duration_ms\": 1, \"items\": 0, \"status\": \"ok\"}", // no tool_name
                good.replace("\"items\":2", "\"items\":\"two\""),
                good.replace("\"status\":\"ok\"", "\"status\":\"maybe\""),
                good + " {\"and\": \"more\"}",
                good.substring(0, good.length() / 2), // cut short, as by a full disk
                "",
                good) + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        Files.write(spool.file(), new byte[] {(byte) 0xff, (byte) 0xfe, '\n'}, StandardOpenOption.APPEND); // not UTF-8
        spool.write(List.of(record(3)));

        try (SqliteSink sink = new SqliteSink(db)) {
            assertThat(sink.ingested()).isEqualTo(new SqliteSink.Ingested(1, 3, 8));
            assertThat(sink.read(Instant.EPOCH, null)).containsExactly(record(1), record(2), record(3));
        }
        assertThat(spool.file()).doesNotExist();
    }

    @Test
    void aFileLeftByACrashedIngesterIsIngestedByTheNextOpen(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Spool spool = new Spool(db);
        spool.write(List.of(record(1), record(2)));
        // a crash after the rename, before the transaction
        Path left = dir.resolve("calls.db.pending-crashed");
        Files.move(spool.file(), left);
        spool.write(List.of(record(3)));
        assertThat(spool.hasPending()).isTrue();

        try (SqliteSink sink = new SqliteSink(db)) {
            assertThat(sink.ingested()).isEqualTo(new SqliteSink.Ingested(2, 3, 0));
        }
        assertThat(all(db)).containsExactly(record(1), record(2), record(3));
        assertThat(left).doesNotExist();
    }

    @Test
    void aFileIngestedButNotDeletedIsNotInsertedAgain(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Spool spool = new Spool(db);
        spool.write(List.of(record(1), record(2)));
        Path taken = dir.resolve("calls.db.pending-" + "0f1e2d3c");
        Files.move(spool.file(), taken);
        byte[] content = Files.readAllBytes(taken);
        new SqliteSink(db).close();
        // a crash between the commit and the delete leaves the file behind
        Files.write(taken, content);

        try (SqliteSink sink = new SqliteSink(db)) {
            assertThat(sink.ingested().records()).isZero();
        }
        assertThat(taken).as("deleted now that its lines are known to be in").doesNotExist();
        assertThat(all(db)).containsExactly(record(1), record(2));
    }

    @Test
    void openingToReadIngestsFirstAndCreatesNothingWithoutASpool(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("new/calls.db");
        TrackingSettings settings = new TrackingSettings(TrackingSettings.Sink.SQLITE, db, "t", null, "us-east-1");
        assertThat(Tracking.openReader(settings, List.of())).isEmpty();
        assertThat(dir.resolve("new")).doesNotExist();

        new Spool(db).write(List.of(record(1)));
        try (CallSink reader = Tracking.openReader(settings, List.of()).orElseThrow()) {
            assertThat(Tracking.stats(reader, Instant.EPOCH, null)).extracting(StatsRow::calls).containsExactly(1L, 1L);
        }
        assertThat(new Spool(db).hasPending()).isFalse();
    }

    @Test
    void aOneShotRecorderAppendsToTheSpoolAndTheOthersWriteTheStore(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        TrackingSettings settings = new TrackingSettings(TrackingSettings.Sink.SQLITE, db, "t", null, "us-east-1");
        CallRecorder oneShot = Tracking.openOneShotRecorder(settings, List.of());
        oneShot.record(record(1));
        oneShot.close();
        assertThat(oneShot.written()).isEqualTo(1);
        assertThat(db).doesNotExist();
        assertThat(Files.readAllLines(new Spool(db).file())).singleElement().isEqualTo(Spool.line(record(1)));

        CallRecorder longLived = Tracking.openRecorder(settings, List.of());
        longLived.record(record(2));
        longLived.close();
        assertThat(new Spool(db).hasPending()).as("the long-lived recorder's store ingested the spool when it opened").isFalse();
        assertThat(all(db)).containsExactly(record(1), record(2));

        TrackingSettings none = new TrackingSettings(TrackingSettings.Sink.NONE, db, "t", null, "us-east-1");
        assertThat(Tracking.openOneShotRecorder(none, List.of())).isNull();
    }

    private static Process spoolMain(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), SpoolMain.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static long count(Path db, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); ResultSet rs = c.createStatement().executeQuery(sql)) {
            return rs.getLong(1);
        }
    }

    @Test
    void concurrentAppendersAndIngestersLoseNothingAndDuplicateNothingEvenWhenAnIngesterIsKilled(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Path stop = dir.resolve("stop");
        new SqliteSink(db).close();
        List<Process> ingesters = new ArrayList<>();
        List<BufferedReader> outputs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Process p = spoolMain("ingest", db.toString(), stop.toString());
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            ingesters.add(p);
            outputs.add(out);
        }
        for (BufferedReader out : outputs) {
            assertThat(out.readLine()).isEqualTo("ready"); // every ingester is at work before the first append
        }
        int perAppender = 2_000;
        List<Process> appenders = new ArrayList<>();
        for (String agent : List.of("a", "b", "c")) {
            appenders.add(spoolMain("append", db.toString(), Integer.toString(perAppender), agent));
        }
        Thread.sleep(500);
        ingesters.getLast().destroyForcibly(); // SIGKILL, wherever it is: mid-rename, mid-transaction, before a delete
        for (Process a : appenders) {
            assertThat(new String(a.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("appended " + perAppender + "\n");
            assertThat(a.waitFor(120, TimeUnit.SECONDS)).isTrue();
        }
        Files.createFile(stop);
        long ingestedByThem = 0;
        for (int i = 0; i < 2; i++) {
            String last = outputs.get(i).readLine();
            assertThat(last).startsWith("ingested ");
            ingestedByThem += Long.parseLong(last.split(" ")[1]);
            assertThat(ingesters.get(i).waitFor(120, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(ingesters.getLast().waitFor(60, TimeUnit.SECONDS)).isTrue();
        new SqliteSink(db).close(); // what is left (the killed ingester's taken file, the last appends)

        assertThat(ingestedByThem).as("the ingesters ran while the appenders did").isPositive();
        assertThat(count(db, "SELECT COUNT(*) FROM calls")).isEqualTo(3L * perAppender);
        assertThat(count(db, "SELECT COUNT(DISTINCT request_id) FROM calls")).isEqualTo(3L * perAppender);
        for (String agent : List.of("a", "b", "c")) {
            assertThat(count(db, "SELECT COUNT(*) FROM calls WHERE agent_name = '" + agent + "'")).isEqualTo(perAppender);
        }
        assertThat(new Spool(db).hasPending()).isFalse();
    }

    @Test
    void anAppendWaitsWhileAnotherProcessHoldsTheSpoolsLock(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Process holder = spoolMain("hold", db.toString(), "1500");
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("locked");
        long start = System.nanoTime();
        new Spool(db).write(List.of(record(1)));
        long waitedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
        // the holder had well over a second to go when the append started: an append that ignores the lock (and
        // could then write into a spool an ingester is renaming away) returns at once
        assertThat(waitedMs).isGreaterThan(500);
        assertThat(Files.readAllLines(new Spool(db).file())).containsExactly(Spool.line(record(1)));
    }
}
