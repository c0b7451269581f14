package dev.agenttools.tracking;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolInterceptor;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Recording through the registry into SQLite, and what happens when the store is slow, full or gone. */
class CallRecorderTest {

    /** A tool that answers with the strategy it was asked for, or fails the way it is told (once). */
    static class ScriptedTool implements Tool {
        final AtomicInteger calls = new AtomicInteger();
        private final ToolException firstFailure;

        ScriptedTool(ToolException firstFailure) {
            this.firstFailure = firstFailure;
        }

        @Override
        public ToolSpec spec() {
            ObjectNode schema = Json.object().put("type", "object");
            schema.putObject("properties").putObject("strategy").put("type", "string");
            return new ToolSpec("gmail.list-emails", "scripted", schema, ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) {
            if (calls.incrementAndGet() == 1 && firstFailure != null) {
                throw firstFailure;
            }
            return new ToolResult(Json.object(), Backend.valueOf(call.params().path("strategy").asText("concurrent").toUpperCase(Locale.ROOT)), 7);
        }

        @Override
        public ToolCall fallback(ToolCall failed) {
            return failed.withParams(failed.params().deepCopy().put("strategy", "sequential"));
        }
    }

    /** A sink that refuses every write, as a store that went away does. */
    static class GoneSink implements CallSink {
        @Override
        public void write(List<CallRecord> batch) throws Exception {
            throw new IOException("store unreachable");
        }

        @Override
        public List<CallRecord> read(Instant since, String tool) {
            return List.of();
        }

        @Override
        public String name() {
            return "gone";
        }

        @Override
        public void close() {
        }
    }

    /** A sink that refuses every write while it is down, as an unreachable store does: a refusal that may pass. */
    static class DownForAWhile implements CallSink {
        final AtomicBoolean down = new AtomicBoolean(true);
        final AtomicInteger refusals = new AtomicInteger();
        final List<CallRecord> written = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void write(List<CallRecord> batch) throws Exception {
            if (down.get()) {
                refusals.incrementAndGet();
                throw new ConnectException("Connection refused");
            }
            written.addAll(batch);
        }

        @Override
        public boolean mayPass(Exception refusal) {
            return refusal instanceof ConnectException;
        }

        @Override
        public List<CallRecord> read(Instant since, String tool) {
            return List.copyOf(written);
        }

        @Override
        public String name() {
            return "down";
        }

        @Override
        public void close() {
        }
    }

    /** A sink that holds every write until released, to fill the queue. */
    static final class StuckSink implements CallSink {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void write(List<CallRecord> batch) throws Exception {
            release.await();
        }

        @Override
        public List<CallRecord> read(Instant since, String tool) {
            return List.of();
        }

        @Override
        public String name() {
            return "stuck";
        }

        @Override
        public void close() {
        }
    }

    /** A sink whose writes ignore interrupts until released, as SQLite's busy wait on a locked file does. */
    static final class DeafSink implements CallSink {
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public void write(List<CallRecord> batch) {
            boolean interrupted = false;
            while (true) {
                try {
                    release.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public List<CallRecord> read(Instant since, String tool) {
            return List.of();
        }

        @Override
        public String name() {
            return "deaf";
        }

        @Override
        public void close() {
            closed.countDown();
        }
    }

    private static ToolCall call(String strategy) {
        return new ToolCall("gmail.list-emails", Json.object().put("strategy", strategy), "agent-x", null);
    }

    @Test
    void storesNoMoreOfWhatACallerNamesThanItsBound(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.db");
        CallRecorder recorder = new CallRecorder(new SqliteSink(file), 100);
        ToolRegistry tools = ToolRegistry.builder().listener(new TrackingListener(recorder))
                .tool(new ScriptedTool(null) {
                    @Override
                    public ToolResult call(ToolCall call) {
                        throw ToolException.invalidArgument("strategy must be one of auto, sequential, concurrent, batch");
                    }
                }).build();
        String huge = "x".repeat(1_000_000);
        for (int i = 0; i < 5; i++) {
            // refused at the edge: not recorded at all
            assertThatThrownBy(() -> tools.call(new ToolCall("gmail.list-emails", Json.object(), huge, null)))
                    .hasMessage("agent_name must be 1..100 characters (Unicode code points), got 1000000");
            // the tool refuses the strategy, and the call is recorded: without it, and with a bounded request id
            assertThatThrownBy(() -> tools.call(new ToolCall("gmail.list-emails", Json.object().put("strategy", huge), "a", huge)))
                    .hasMessageContaining("strategy must be one of");
        }
        recorder.close();
        SqliteSink reader = new SqliteSink(file);
        List<CallRecord> records = reader.read(Instant.now().minusSeconds(60), null);
        assertThat(records).hasSize(5).allSatisfy(r -> {
            assertThat(r.agentName()).isEqualTo("a");
            assertThat(r.strategy()).isEqualTo("invalid");
            assertThat(r.requestId()).hasSize(100);
        });
        reader.close();
        assertThat(Files.size(file)).as("five calls of a megabyte each, stored in kilobytes").isLessThan(200_000);
        CallRecord direct = new CallRecord(Instant.now(), "t", "\uD83C\uDFC3".repeat(150), 1, null, null, "ok", null, 0, null);
        assertThat(direct.agentName()).as("100 code points, never half of one").isEqualTo("\uD83C\uDFC3".repeat(100));
    }

    @Test
    void recordsEveryCallWithItsOutcomeAndFlushesOnClose(@TempDir Path dir) throws Exception {
        SqliteSink sink = new SqliteSink(dir.resolve("calls.db"));
        CallRecorder recorder = new CallRecorder(sink, 1_000);
        ToolRegistry ok = ToolRegistry.builder().listener(new TrackingListener(recorder)).interceptor(ToolInterceptor.fallback())
                .tool(new ScriptedTool(null)).build();
        for (int i = 0; i < 300; i++) {
            ok.call(call(i % 2 == 0 ? "batch" : "concurrent"));
        }
        ToolRegistry fallsBack = ToolRegistry.builder().listener(new TrackingListener(recorder))
                .interceptor(ToolInterceptor.fallback()).tool(new ScriptedTool(new ToolException(ToolException.Kind.UPSTREAM, "503"))).build();
        fallsBack.call(call("batch"));
        ToolRegistry fails = ToolRegistry.builder().listener(new TrackingListener(recorder))
                .tool(new ScriptedTool(new ToolException(ToolException.Kind.NOT_FOUND, "gone"))).build();
        assertThatThrownBy(() -> fails.call(call("concurrent"))).isInstanceOf(ToolException.class);
        recorder.close();
        assertThat(recorder.written()).isEqualTo(302);
        assertThat(recorder.dropped()).isZero();

        SqliteSink reader = new SqliteSink(dir.resolve("calls.db"));
        List<CallRecord> records = reader.read(Instant.now().minusSeconds(60), null);
        assertThat(records).hasSize(302);
        CallRecord first = records.getFirst();
        assertThat(first.agentName()).isEqualTo("agent-x");
        assertThat(first.items()).isEqualTo(7);
        assertThat(first.requestId()).isNotBlank();
        assertThat(records).filteredOn(r -> "fallback".equals(r.backend())).hasSize(1);
        assertThat(records).filteredOn(r -> !r.ok()).singleElement().satisfies(r -> {
            assertThat(r.errorCode()).isEqualTo("not_found");
            assertThat(r.backend()).isNull();
            assertThat(r.strategy()).isEqualTo("concurrent");
        });

        List<StatsRow> stats = reader.stats(Instant.now().minusSeconds(60), null);
        StatsRow all = stats.getFirst();
        assertThat(all.backend()).isEqualTo("all");
        assertThat(all.calls()).isEqualTo(302);
        assertThat(all.errorRate()).isCloseTo(1 / 302.0, Offset.offset(1e-9));
        assertThat(all.fallbackRate()).isCloseTo(1 / 302.0, Offset.offset(1e-9));
        assertThat(stats).extracting(StatsRow::backend).contains("batch", "concurrent", "fallback");
        assertThat(StatsCalculator.of(records)).usingRecursiveFieldByFieldElementComparatorIgnoringFields("p50Ms", "p90Ms", "p99Ms")
                .containsExactlyInAnyOrderElementsOf(stats);
        reader.close();
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("calls.db"));
             var rs = c.createStatement().executeQuery("PRAGMA journal_mode")) {
            // a rollback journal (SQLite reports it as "delete" to a connection that did not choose one): no WAL, so
            // no -shm file mapped in memory for another process to truncate under this one
            assertThat(rs.getString(1)).isEqualTo("delete");
        }
        assertThat(dir.resolve("calls.db-shm")).doesNotExist();
        assertThat(dir.resolve("calls.db-wal")).doesNotExist();
    }

    @Test
    void theDurationRecordedIsTheOneTheCallerIsShownFallbackIncluded(@TempDir Path dir) throws Exception {
        CallRecorder recorder = new CallRecorder(new SqliteSink(dir.resolve("calls.db")), 100);
        ToolRegistry fallsBack = ToolRegistry.builder().listener(new TrackingListener(recorder)).interceptor(ToolInterceptor.fallback())
                .tool(new ScriptedTool(new ToolException(ToolException.Kind.UPSTREAM, "503")) {
                    @Override
                    public ToolResult call(ToolCall call) {
                        try {
                            Thread.sleep(30); // each run takes time, so two runs timed apart could not add up by chance
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return super.call(call);
                    }
                }).build();
        JsonNode answer = Json.MAPPER.readTree(new ToolProtocol(fallsBack)
                .answer("{\"command\": \"gmail.list-emails\", \"params\": {\"strategy\": \"batch\"}}").line());
        recorder.close();

        assertThat(answer.path("meta").path("backend").asText()).isEqualTo("fallback");
        double shown = answer.path("meta").path("duration_ms").asDouble();
        assertThat(shown).isGreaterThanOrEqualTo(60);
        SqliteSink reader = new SqliteSink(dir.resolve("calls.db"));
        assertThat(reader.read(Instant.now().minusSeconds(60), null)).singleElement()
                .satisfies(r -> assertThat(r.durationMs()).isCloseTo(shown, Offset.offset(0.001)));
        reader.close();
    }

    @Test
    void statsUseNearestRankPercentiles() {
        List<CallRecord> records = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            records.add(new CallRecord(Instant.now(), "t", "a", i, "batch", "batch", "ok", null, 1, "r" + i));
        }
        StatsRow all = StatsCalculator.of(records).getFirst();
        assertThat(all.p50Ms()).isEqualTo(50);
        assertThat(all.p90Ms()).isEqualTo(90);
        assertThat(all.p99Ms()).isEqualTo(99);
    }

    @Test
    void aSinkThatIsGoneLeavesCallsUnaffectedAndCountsTheDrops() {
        CallRecorder recorder = new CallRecorder(new GoneSink(), 100);
        ToolRegistry tools = ToolRegistry.builder().listener(new TrackingListener(recorder)).tool(new ScriptedTool(null)).build();
        for (int i = 0; i < 50; i++) {
            assertThat(tools.call(call("batch")).items()).isEqualTo(7);
        }
        recorder.close();
        assertThat(recorder.written()).isZero();
        assertThat(recorder.dropped()).isEqualTo(50);
        assertThat(recorder.lastError()).contains("store unreachable");
    }

    @Test
    void aStoreThatFailedOnceAndWritesAgainHasNoCurrentProblemButKeepsItsLastError() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        CallSink flaky = new GoneSink() {
            @Override
            public void write(List<CallRecord> batch) throws Exception {
                if (down.get()) {
                    super.write(batch);
                }
            }
        };
        CallRecorder recorder = new CallRecorder(flaky, 100);
        CallRecord r = new CallRecord(Instant.now(), "t", "a", 1, "batch", "batch", "ok", null, 1, "r1");
        assertThat(recorder.currentProblem()).as("nothing tried yet").isNull();
        recorder.record(r);
        await(() -> recorder.dropped() == 1);
        assertThat(recorder.currentProblem()).contains("store unreachable");

        down.set(false);
        recorder.record(r);
        await(() -> recorder.written() == 1);
        assertThat(recorder.currentProblem()).as("what a readiness probe asks: the store takes records again").isNull();
        assertThat(recorder.lastError()).as("history, for the exit message").contains("store unreachable");
        recorder.close();
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 30 s").isLessThan(end);
            Thread.sleep(5);
        }
    }

    private static CallRecord record(String agent, int i) {
        return new CallRecord(Instant.now(), "t", agent, 1, "batch", "batch", "ok", null, 1, "r" + i);
    }

    @Test
    void recordsTheStoreRefusesWhileItIsDownAreKeptAndWrittenOnceWhenItIsBack() throws Exception {
        DownForAWhile sink = new DownForAWhile();
        CallRecorder recorder = new CallRecorder(sink, 1_000);
        List<CallRecord> all = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            all.add(record("a", i));
            assertThat(recorder.record(all.getLast())).isTrue();
            if (i == 49) { // the second half comes while the first is tried again and again
                await(() -> sink.refusals.get() >= 3 || recorder.dropped() > 0);
            }
        }
        assertThat(recorder.dropped()).isZero();
        assertThat(recorder.currentProblem()).as("what a readiness probe asks, during the outage")
                .contains("down store refused").contains("Connection refused").contains("kept");

        sink.down.set(false);
        await(() -> recorder.written() + recorder.dropped() == 100);
        assertThat(recorder.dropped()).isZero();
        assertThat(recorder.currentProblem()).as("the store takes records again").isNull();
        recorder.close();
        assertThat(sink.written).as("each record once").containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void aStoreThatCannotBeOpenedWhileItIsDownIsOpenedWhenItIsBack() throws Exception {
        DownForAWhile store = new DownForAWhile();
        store.down.set(false);
        AtomicInteger opens = new AtomicInteger();
        LazySink lazy = new LazySink("down", () -> {
            if (opens.incrementAndGet() <= 2) {
                throw new UncheckedIOException(new ConnectException("Connection refused"));
            }
            return store;
        }, e -> e.getCause() instanceof ConnectException);
        CallRecorder recorder = new CallRecorder(lazy, 100);
        for (int i = 0; i < 5; i++) {
            recorder.record(record("a", i));
        }
        await(() -> recorder.written() + recorder.dropped() == 5);
        assertThat(recorder.dropped()).isZero();
        assertThat(opens.get()).isEqualTo(3);
        recorder.close();
    }

    @Test
    void aBatchTheStoreRefusesForGoodIsDroppedAndHoldsUpNoRecordBehindIt() throws Exception {
        DownForAWhile sink = new DownForAWhile() {
            @Override
            public void write(List<CallRecord> batch) throws Exception {
                super.write(batch.stream().filter(r -> !r.agentName().equals("bad")).toList()); // refused while down
                if (batch.stream().anyMatch(r -> r.agentName().equals("bad"))) {
                    written.removeAll(batch); // all or nothing, as a store's batch is
                    throw new IllegalArgumentException("ValidationException: the record is too large");
                }
            }
        };
        CallRecorder recorder = new CallRecorder(sink, 1_000);
        recorder.record(record("bad", 0));
        await(() -> sink.refusals.get() >= 1);
        List<CallRecord> good = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            good.add(record("good", i));
            recorder.record(good.getLast());
        }
        // while down, the bad record's refusal is one that may pass, as any other
        await(() -> sink.refusals.get() >= 3 || recorder.dropped() > 1);

        sink.down.set(false);
        await(() -> recorder.written() + recorder.dropped() == 51);
        assertThat(recorder.dropped()).as("the bad record's batch").isOne();
        assertThat(recorder.lastError()).contains("down store refused 1 call records, dropped: ValidationException");
        recorder.close();
        assertThat(sink.written).containsExactlyInAnyOrderElementsOf(good);
    }

    @Test
    void aFullQueueDropsInsteadOfBlocking() throws Exception {
        StuckSink stuck = new StuckSink();
        CallRecorder recorder = new CallRecorder(stuck, 10);
        ToolRegistry tools = ToolRegistry.builder().listener(new TrackingListener(recorder)).tool(new ScriptedTool(null)).build();
        long start = System.nanoTime();
        for (int i = 0; i < 1_000; i++) {
            tools.call(call("batch"));
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(recorder.dropped()).isGreaterThan(900);
        stuck.release.countDown();
        recorder.close();
        assertThat(recorder.written() + recorder.dropped()).isEqualTo(1_000);
    }

    @Test
    void closeGivesUpOnAStoreThatDoesNotAnswerCountsWhatIsLeftAndSaysSo() throws Exception {
        DeafSink deaf = new DeafSink();
        CallRecorder recorder = new CallRecorder(deaf, 100);
        ToolRegistry tools = ToolRegistry.builder().listener(new TrackingListener(recorder)).tool(new ScriptedTool(null)).build();
        for (int i = 0; i < 3; i++) {
            tools.call(call("batch"));
        }
        long start = System.nanoTime();
        recorder.close(); // returns although the write in progress never ends by itself
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("waits out its budget first")
                .isGreaterThanOrEqualTo(CallRecorder.DEFAULT_CLOSE_TIMEOUT.minusMillis(100));
        assertThat(recorder.written()).isZero();
        assertThat(recorder.dropped()).isEqualTo(3);
        assertThat(recorder.lastError()).contains("deaf store did not take the last 3 call records within 1500 ms of closing");
        assertThat(deaf.closed.getCount()).as("the sink stays open while a write is in it").isOne();
        deaf.release.countDown();
        assertThat(deaf.closed.await(60, TimeUnit.SECONDS)).as("the writer closes it when its write returns").isTrue();
        assertThat(recorder.written()).as("a write that ends after close gave up is not counted twice").isZero();
        assertThat(recorder.dropped()).isEqualTo(3);
    }
}
