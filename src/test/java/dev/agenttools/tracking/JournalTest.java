package dev.agenttools.tracking;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** A long-running process's call journal: what it holds while the store has not taken a record, and who ships it. */
@Tag("process")
class JournalTest {

    private static CallRecord record(int i) {
        return JournalMain.record("agent", i);
    }

    /** A sink that holds every write until the gate opens, as a slow store does; a stuck one ignores interrupts too. */
    private static final class Gated implements CallSink {
        final CountDownLatch gate = new CountDownLatch(1);
        final List<CallRecord> written = Collections.synchronizedList(new ArrayList<>());
        private final boolean stuck;

        Gated() {
            this(false);
        }

        Gated(boolean stuck) {
            this.stuck = stuck;
        }

        @Override
        public void write(List<CallRecord> batch) throws InterruptedException {
            if (stuck) {
                while (gate.getCount() > 0) {
                    LockSupport.parkNanos(1_000_000);
                }
            } else {
                gate.await();
            }
            written.addAll(batch);
        }

        @Override
        public List<CallRecord> read(Instant since, String tool) {
            return List.copyOf(written);
        }

        @Override
        public String name() {
            return "gated";
        }

        @Override
        public void close() {
        }
    }

    private static List<Path> files(Path folder) throws Exception {
        try (Stream<Path> s = Files.list(folder)) {
            return s.sorted().toList();
        }
    }

    private static List<String> lines(Path folder) throws Exception {
        List<String> out = new ArrayList<>();
        for (Path p : files(folder)) {
            out.addAll(Files.readAllLines(p));
        }
        return out;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static long size(Path folder) {
        try {
            long total = 0;
            for (Path p : files(folder)) {
                total += Files.size(p);
            }
            return total;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A journal file a process that died left, written by hand. */
    private static Path deadJournal(Path folder, String text) throws Exception {
        Files.createDirectories(folder);
        Path file = folder.resolve(UUID.randomUUID() + Journal.LIVE);
        Files.writeString(file, text);
        return file;
    }

    private static String linesOf(List<CallRecord> records) {
        StringBuilder b = new StringBuilder();
        records.forEach(r -> b.append(Spool.line(r)).append('\n'));
        return b.toString();
    }

    @Test
    void aRecordIsInTheJournalWhenRecordReturnsAndTheJournalIsCutBackOnceTheStoreHasIt(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("data/call-journal/sqlite-x");
        Gated sink = new Gated();
        CallRecorder recorder = new CallRecorder(sink, 100, Duration.ofSeconds(10), Journal.open(folder));
        recorder.record(record(1));
        recorder.record(record(2));

        assertThat(lines(folder)).containsExactly(Spool.line(record(1)), Spool.line(record(2)));
        assertThat(files(folder)).singleElement().satisfies(f -> {
            assertThat(f.getFileName().toString()).endsWith(".jsonl");
            assertThat(Files.getPosixFilePermissions(f)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        });
        assertThat(Files.getPosixFilePermissions(folder)).isEqualTo(PosixFilePermissions.fromString("rwx------"));

        sink.gate.countDown();
        await(() -> size(folder) == 0, "the journal is cut back once both are written");
        assertThat(sink.written).containsExactly(record(1), record(2));
        recorder.close();
        assertThat(files(folder)).as("a clean close leaves no journal").isEmpty();
    }

    @Test
    void aCallerWhoseThreadIsInterruptedStillJournalsItsRecordAndKeepsTheFlag(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("j");
        Gated sink = new Gated();
        CallRecorder recorder = new CallRecorder(sink, 100, Duration.ofSeconds(10), Journal.open(folder));
        Thread.currentThread().interrupt(); // a call cancelled by an interrupt reaches the recorder so
        try {
            recorder.record(record(1));
            assertThat(Thread.currentThread().isInterrupted()).as("the caller's flag is left as it was").isTrue();
        } finally {
            Thread.interrupted();
        }
        recorder.record(record(2));
        assertThat(lines(folder)).containsExactly(Spool.line(record(1)), Spool.line(record(2)));
        sink.gate.countDown();
        recorder.close();
        assertThat(sink.written).hasSize(2);
    }

    @Test
    void aFullSegmentIsSetAsideForAFreshOneAndDeletedOnceItsRecordsAreWritten(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("j");
        Gated sink = new Gated();
        CallRecorder recorder = new CallRecorder(sink, CallRecorder.DEFAULT_CAPACITY, Duration.ofSeconds(30), Journal.open(folder));
        int n = (int) (Journal.ROTATE_BYTES / Spool.line(record(0)).length()) + 1_000; // more than a segment holds
        for (int i = 0; i < n; i++) {
            assertThat(recorder.record(record(i))).isTrue();
        }
        assertThat(lines(folder)).hasSize(n);
        // the writer's first batch finds the segment full with most records still queued: a second file starts
        sink.gate.countDown();
        await(() -> sink.written.size() == n && size(folder) == 0, "all written and the journal empty");
        assertThat(files(folder)).as("the full segment deleted, the fresh one cut back").hasSize(1);
        recorder.close();
        assertThat(files(folder)).isEmpty();
    }

    @Test
    void aRecorderThatGivesUpOnItsStoreLeavesItsJournalForTheNextProcess(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("j");
        Gated stuck = new Gated(true); // does not open before the close gives up, and ignores its interrupt
        CallRecorder recorder = new CallRecorder(stuck, 100, Duration.ofMillis(300), Journal.open(folder));
        recorder.record(record(1));
        recorder.close();
        assertThat(recorder.lastError()).contains("the call journal in " + folder + " keeps them for the next process to ship");
        JournalMain.Counting next = new JournalMain.Counting();
        assertThat(DeadJournals.ship(folder, next).files()).isEqualTo(1);
        assertThat(next.records).isEqualTo(1);
        assertThat(files(folder)).isEmpty();
        stuck.gate.countDown();
    }

    @Test
    void recordsTheStoreRefusesWhileItIsDownStayInTheJournalForTheNextProcessIfItIsNotBackByTheClose(@TempDir Path dir)
            throws Exception {
        Path folder = dir.resolve("j");
        CallRecorderTest.DownForAWhile down = new CallRecorderTest.DownForAWhile();
        CallRecorder recorder = new CallRecorder(down, 100, Duration.ofMillis(500), Journal.open(folder));
        for (int i = 0; i < 10; i++) {
            recorder.record(record(i));
        }
        await(() -> down.refusals.get() >= 2 || recorder.dropped() > 0, "the store refused them twice");
        assertThat(lines(folder)).as("kept in the journal while the store is down").hasSize(10);
        recorder.close();
        assertThat(recorder.lastError())
                .contains("the call journal in " + folder + " keeps them for the next process to ship");
        JournalMain.Counting next = new JournalMain.Counting();
        assertThat(DeadJournals.ship(folder, next).files()).isEqualTo(1);
        assertThat(next.records).isEqualTo(10);
    }

    @Test
    void aDeadJournalIsShippedIntoSqliteOnceThoughItsLastBatchWasWrittenAndItsLastLineIsCutShort(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Path folder = dir.resolve("j");
        List<CallRecord> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(record(i));
        }
        try (SqliteSink store = new SqliteSink(db)) {
            store.write(all.subList(0, 4)); // the dead process's last batch, written before the kill
        }
        String cut = Spool.line(record(99));
        Path dead = deadJournal(folder, linesOf(all) + cut.substring(0, cut.length() / 2));

        try (SqliteSink store = new SqliteSink(db)) {
            assertThat(DeadJournals.ship(folder, store)).isEqualTo(new DeadJournals.Shipped(1, 10, 1));
            assertThat(store.read(Instant.EPOCH, null)).containsExactlyInAnyOrderElementsOf(all);
        }
        assertThat(dead).doesNotExist();
        assertThat(files(folder)).isEmpty();
    }

    /** A journal file that is a symbolic link (planted by another local user) is removed unread; its target stays. */
    @Test
    void aDeadJournalThatIsASymbolicLinkIsRemovedAndItsTargetNeverRead(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("j");
        Path real = deadJournal(folder, linesOf(List.of(record(1))));
        Path target = Files.writeString(dir.resolve("someone-elses-file"), linesOf(List.of(record(2))));
        Path link = Files.createSymbolicLink(folder.resolve(UUID.randomUUID() + Journal.LIVE), target);
        try (SqliteSink store = new SqliteSink(dir.resolve("calls.db"))) {
            DeadJournals.ship(folder, store);
            assertThat(store.read(Instant.EPOCH, null)).as("the link's target is not a journal of ours").containsExactly(record(1));
        }
        assertThat(link).doesNotExist();
        assertThat(real).doesNotExist();
        assertThat(target).hasContent(linesOf(List.of(record(2))));
    }

    @Test
    void aRecorderShipsTheJournalsDeadProcessesLeftWhenItStarts(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Path folder = dir.resolve("j");
        deadJournal(folder, linesOf(List.of(record(1), record(2))));
        // a taker that died: its file is taken again; and a segment a process died while making
        Files.writeString(folder.resolve(UUID.randomUUID() + Journal.SHIPPING), linesOf(List.of(record(3))));
        Files.writeString(folder.resolve("." + UUID.randomUUID() + Journal.NEW), "");

        LazySink sink = new LazySink("sqlite", () -> new SqliteSink(db), SqliteSink::busy);
        CallRecorder recorder = new CallRecorder(sink, 100, Duration.ofSeconds(30), Journal.open(folder));
        await(() -> recorder.shipped() == 3, "shipped at start, with no call made");
        recorder.record(record(4));
        recorder.close();
        assertThat(files(folder)).isEmpty();
        try (SqliteSink store = new SqliteSink(db)) {
            assertThat(store.read(Instant.EPOCH, null)).containsExactly(record(1), record(2), record(3), record(4));
        }
    }

    private static Process journalMain(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), JournalMain.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    @Test
    void aJournalItsProcessHoldsIsNotTakenAndIsShippedOnceTheProcessIsKilled(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("j");
        Process holder = journalMain("hold", folder.toString(), "200", "holder");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("ready");
            JournalMain.Counting sink = new JournalMain.Counting();
            assertThat(DeadJournals.ship(folder, sink)).isEqualTo(DeadJournals.Shipped.NOTHING);
            assertThat(lines(folder)).as("left alone, whole").hasSize(200);
            // two processes looking at once take nothing either
            for (Process p : List.of(journalMain("ship", folder.toString()), journalMain("ship", folder.toString()))) {
                assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("shipped 0 in 0 files\n");
            }

            holder.destroyForcibly(); // SIGKILL: the kernel lets go of its lock
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(DeadJournals.ship(folder, sink)).isEqualTo(new DeadJournals.Shipped(1, 200, 0));
            assertThat(sink.records).isEqualTo(200);
            assertThat(files(folder)).isEmpty();
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void processesShippingTheSameDeadJournalsAtOnceTakeEachLineOnce(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("j");
        int files = 40;
        int perFile = 100;
        for (int f = 0; f < files; f++) {
            List<CallRecord> records = new ArrayList<>();
            for (int i = 0; i < perFile; i++) {
                records.add(JournalMain.record("dead-" + f, i));
            }
            deadJournal(folder, linesOf(records));
        }
        List<Process> shippers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            shippers.add(journalMain("ship", folder.toString()));
        }
        long shipped = 0;
        int filesShipped = 0;
        for (Process p : shippers) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(out).matches("shipped \\d+ in \\d+ files");
            String[] words = out.split(" ");
            shipped += Long.parseLong(words[1]);
            filesShipped += Integer.parseInt(words[3]);
        }
        assertThat(shipped).as("every line once, among all of them").isEqualTo((long) files * perFile);
        assertThat(filesShipped).isEqualTo(files);
        assertThat(files(folder)).isEmpty();
    }

    @Test
    void aRecordTheStoreHasAlreadyIsNotStoredTwiceWhenReplayedAndDistinctCallsWithOneIdAreKept(@TempDir Path dir) throws Exception {
        Instant t = Instant.parse("2026-11-30T12:00:00.123Z");
        // two calls in one millisecond with the caller's same id ("1" on every line), told apart by their durations
        CallRecord a = new CallRecord(t, "gmail.list-emails", "a", 10.000001, "batch", "auto", "ok", null, 3, "1");
        CallRecord b = new CallRecord(t, "gmail.list-emails", "a", 10.000002, "batch", "auto", "ok", null, 3, "1");
        try (SqliteSink store = new SqliteSink(dir.resolve("calls.db"))) {
            store.write(List.of(a));
            store.replay(List.of(a, b));
            store.replay(List.of(b));
            assertThat(store.read(Instant.EPOCH, null)).containsExactlyInAnyOrder(a, b);
        }
        try (Dynalite dynalite = Dynalite.start(); DynamoDbSink sink = new DynamoDbSink(dynalite.client(), "replays", List.of("gmail.list-emails"))) {
            sink.write(List.of(a));
            sink.replay(List.of(a, b));
            sink.replay(List.of(b));
            assertThat(sink.read(t.minusSeconds(1), null)).containsExactlyInAnyOrder(a, b);
        }
    }
}
