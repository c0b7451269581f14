package dev.agenttools.tracking;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.paginators.QueryIterable;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The DynamoDB sink against a real local DynamoDB-compatible server (dynalite). */
@Tag("process")
class DynamoDbSinkTest {
    private static final List<String> TOOLS = List.of("gmail.list-emails", "gmail.get-email");

    private static List<CallRecord> records(int n, Instant ts) {
        List<CallRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new CallRecord(ts.plusMillis(i), TOOLS.get(i % 2), "agent", 100 + i, i % 10 == 0 ? "fallback" : "batch",
                    "batch", i % 20 == 0 ? "error" : "ok", i % 20 == 0 ? "upstream" : null, 3, "req-" + i));
        }
        return out;
    }

    @Test
    void createsItsTableWritesInBatchesAndQueriesByToolAndDay() throws Exception {
        try (Dynalite dynalite = Dynalite.start()) {
            DynamoDbSink sink = new DynamoDbSink(dynalite.client(), "calls-test", TOOLS);
            Instant yesterday = Instant.now().minus(Duration.ofDays(1));
            sink.write(records(60, yesterday));
            sink.write(records(40, Instant.now().minusSeconds(5)));
            assertThat(sink.read(yesterday.minusSeconds(1), null)).hasSize(100);
            assertThat(sink.read(yesterday.minusSeconds(1), "gmail.get-email")).hasSize(50)
                    .allMatch(r -> r.toolName().equals("gmail.get-email"));
            assertThat(sink.read(Instant.now().minusSeconds(60), null)).hasSize(40);
            List<StatsRow> stats = Tracking.stats(sink, yesterday.minusSeconds(1), "gmail.list-emails");
            StatsRow all = stats.getFirst();
            assertThat(all.backend()).isEqualTo("all");
            assertThat(all.calls()).isEqualTo(50);
            assertThat(all.errorRate()).isEqualTo(5 / 50.0);
            assertThat(all.fallbackRate()).isEqualTo(10 / 50.0);
            sink.close();
            // a second sink finds the table already there
            new DynamoDbSink(dynalite.client(), "calls-test", TOOLS).close();
        }
    }

    @Test
    void instancesStartingAtOnceOnAFreshTableEachWaitUntilItIsActiveBeforeWriting() throws Exception {
        try (Dynalite dynalite = Dynalite.start()) {
            int instances = 3;
            CyclicBarrier together = new CyclicBarrier(instances);
            Instant base = Instant.now().minusSeconds(60);
            List<Future<?>> starts = new ArrayList<>();
            try (var pool = Executors.newFixedThreadPool(instances)) {
                for (int i = 0; i < instances; i++) {
                    Instant at = base.plusSeconds(i);
                    starts.add(pool.submit(() -> {
                        together.await();
                        // one creates the table; the others find it missing or CREATING (dynalite takes ~0.5 s)
                        DynamoDbSink sink = new DynamoDbSink(dynalite.client(), "calls-raced", TOOLS);
                        sink.write(records(20, at));
                        sink.close();
                        return null;
                    }));
                }
                for (var start : starts) {
                    start.get(); // a write before the table was active failed here: "Requested resource not found"
                }
            }
            DynamoDbSink reader = new DynamoDbSink(dynalite.client(), "calls-raced", TOOLS);
            assertThat(reader.read(base.minusSeconds(1), null)).hasSize(60);
            reader.close();
        }
    }

    /** Answers every BatchWriteItem with all items unprocessed for the first {@code refusals} calls, as DynamoDB does when throttling. */
    private static final class Throttling implements DynamoDbClient {
        private final DynamoDbClient real;
        private final int refusals;
        final AtomicInteger calls = new AtomicInteger();

        Throttling(DynamoDbClient real, int refusals) {
            this.real = real;
            this.refusals = refusals;
        }

        @Override
        public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
            if (calls.incrementAndGet() <= refusals) {
                return BatchWriteItemResponse.builder().unprocessedItems(request.requestItems()).build();
            }
            return real.batchWriteItem(request);
        }

        @Override
        public DescribeTableResponse describeTable(DescribeTableRequest request) {
            return real.describeTable(request);
        }

        @Override
        public QueryIterable queryPaginator(QueryRequest request) {
            return real.queryPaginator(request);
        }

        @Override
        public QueryResponse query(QueryRequest request) {
            return real.query(request);
        }

        @Override
        public String serviceName() {
            return real.serviceName();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    @Test
    void retriesItemsLeftUnprocessedByThrottling() throws Exception {
        try (Dynalite dynalite = Dynalite.start()) {
            new DynamoDbSink(dynalite.client(), "calls-throttled", TOOLS).close(); // creates the table
            Throttling throttling = new Throttling(dynalite.client(), 3);
            DynamoDbSink sink = new DynamoDbSink(throttling, "calls-throttled", TOOLS);
            sink.write(records(10, Instant.now()));
            assertThat(throttling.calls.get()).isEqualTo(4);
            assertThat(sink.read(Instant.now().minusSeconds(60), null)).hasSize(10);
        }
    }

    /** Waits for what the writer does at its own pace (up to 30 s: no time is asserted). */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void callsRecordedWhileDynamoDbIsDownAreWrittenOnceEachWhenItIsBack(@TempDir Path dir) throws Exception {
        Dynalite dynalite = Dynalite.start(dir.resolve("dynalite")); // its tables on disk: they outlive its restart
        try {
            // as a server makes it: the SDK client's bounds, the sink opened on first use, a journal
            TrackingSettings settings = new TrackingSettings(TrackingSettings.Sink.DYNAMODB, null, "calls-outage",
                    dynalite.endpoint, "us-east-1", Duration.ofSeconds(10), dir.resolve("journals"));
            CallRecorder recorder = Tracking.openRecorder(settings, TOOLS);
            Instant since = Instant.now().minusSeconds(1);
            List<CallRecord> calls = records(90, since.plusSeconds(1));
            calls.subList(0, 30).forEach(recorder::record);
            await(() -> recorder.written() == 30, "the first 30 written");

            dynalite.stop();
            for (CallRecord r : calls.subList(30, 90)) {
                recorder.record(r);
                Thread.sleep(40); // calls keep coming for a few seconds of the outage
            }
            await(() -> recorder.currentProblem() != null, "the outage seen");
            assertThat(recorder.currentProblem()).contains("dynamodb store refused").contains("; kept, retrying");
            assertThat(recorder.dropped()).isZero();

            dynalite = dynalite.restart();
            await(() -> recorder.written() + recorder.dropped() == 90, "every record written or dropped");
            assertThat(recorder.dropped()).isZero();
            assertThat(recorder.currentProblem()).isNull();
            recorder.close();
            try (CallSink reader = Tracking.openReader(settings, TOOLS).orElseThrow()) {
                assertThat(reader.read(since, null)).extracting(CallRecord::requestId)
                        .containsExactlyInAnyOrderElementsOf(calls.stream().map(CallRecord::requestId).toList());
                assertThat(Tracking.stats(reader, since, null)).filteredOn(row -> row.backend().equals("all"))
                        .extracting(StatsRow::calls).containsExactly(45L, 45L);
            }
        } finally {
            dynalite.close();
        }
    }

    @Test
    void aTableGoneWithTheServersMemoryIsMadeAgainAtTheNextWrite() throws Exception {
        Dynalite dynalite = Dynalite.start();
        try {
            DynamoDbSink sink = new DynamoDbSink(dynalite.client(), "calls-forgotten", TOOLS);
            sink.write(records(5, Instant.now()));
            dynalite = dynalite.restart(); // in memory: the table is gone
            sink.write(records(5, Instant.now().plusSeconds(1)));
            assertThat(sink.read(Instant.now().minusSeconds(60), null)).hasSize(5);
            sink.close();
        } finally {
            dynalite.close();
        }
    }

    @Test
    void throttledForGoodOrAGoneServerGivesRecordsUpAtCloseButNeverFailsACall() throws Exception {
        try (Dynalite dynalite = Dynalite.start()) {
            new DynamoDbSink(dynalite.client(), "calls-refused", TOOLS).close();
            CallRecorder throttled = new CallRecorder(new DynamoDbSink(new Throttling(dynalite.client(), Integer.MAX_VALUE),
                    "calls-refused", TOOLS), 100, Duration.ofMillis(1_000));
            for (CallRecord r : records(5, Instant.now())) {
                assertThat(throttled.record(r)).isTrue();
            }
            throttled.close();
            assertThat(throttled.dropped()).isEqualTo(5);
            assertThat(throttled.written()).isZero();

            CallRecorder recorder = new CallRecorder(new DynamoDbSink(dynalite.client(), "calls-refused", TOOLS), 100, Duration.ofMillis(1_000));
            dynalite.stop(); // the server goes away
            for (CallRecord r : records(5, Instant.now())) {
                recorder.record(r);
            }
            recorder.close();
            assertThat(recorder.written()).isZero();
            assertThat(recorder.dropped()).isEqualTo(5);
        }
    }

    @Test
    void readingForStatsCreatesNoTable() throws Exception {
        try (Dynalite dynalite = Dynalite.start()) {
            TrackingSettings settings = new TrackingSettings(TrackingSettings.Sink.DYNAMODB, null, "calls-never-written", dynalite.endpoint, "us-east-1");
            assertThat(Tracking.openReader(settings, TOOLS)).as("no table means no call recorded yet").isEmpty();
            assertThat(dynalite.client().listTables().tableNames()).doesNotContain("calls-never-written");
        }
    }
}
