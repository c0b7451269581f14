package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorCounters;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.google.Retry;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static dev.agenttools.gmail.GmailToolsTest.fastSettings;
import static dev.agenttools.gmail.GmailToolsTest.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Retries, the deadline, quota pacing and connection reuse, against the emulator's fault and limit models. */
@Tag("process")
class ResilienceTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    /**
     * Short backoffs so that hundreds of retries fit in a unit test, and twice Retry.DEFAULT's four attempts: at 10 %
     * faults one request in 10,000 fails four times in a row, which 200 lists of 21 requests would meet in one run of
     * about fifty (then an email in errors, or a list failing upstream), not a sign that retries do not work.
     */
    private static final Retry QUICK = new Retry(Duration.ofMillis(5), Duration.ofMillis(100), 8);

    private static ToolRegistry registry(GmailSettings settings, Retry retry) {
        return HandBuilt.registry(ToolRegistry.builder(), settings, retry);
    }

    @Test
    void twoHundredListsOfTwentySucceedDespiteTenPercentInjected503s() throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().failRate(0.10).failStatuses(Map.of(503, 1)).seed(11).build());
             var pool = Executors.newFixedThreadPool(4)) {
            ToolRegistry tools = registry(fastSettings(emulator), QUICK);
            List<Future<JsonNode>> calls = new ArrayList<>();
            String[] strategies = {"sequential", "concurrent", "batch", "auto"};
            for (int i = 0; i < 200; i++) {
                String strategy = strategies[i % strategies.length];
                calls.add(pool.submit(() -> tools.call(ToolCall.of(GmailTools.LIST,
                        obj("{\"max_results\":20,\"strategy\":\"" + strategy + "\"}"))).data()));
            }
            for (Future<JsonNode> call : calls) {
                assertThat(call.get().get("emails")).hasSize(20);
            }
            assertThat(emulator.counters().faultsInjected()).isGreaterThan(200);
        }
    }

    @Test
    void theDeadlineHoldsWhenGmailIsSlow() {
        try (Emulator emulator = emulators.start(fastEmulator().latency(Duration.ofSeconds(3)).build())) {
            ToolRegistry tools = registry(fastSettings(emulator), Retry.DEFAULT);
            long start = System.nanoTime();
            assertThatThrownBy(() -> tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":5,\"timeout_ms\":400}"))))
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ToolException.Kind.DEADLINE);
                        assertThat(e.getMessage()).contains("400 ms");
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2_500));
        }
    }

    @Test
    void theDeadlineCountsFromWhenTheCallStarted() {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            ToolRegistry tools = registry(fastSettings(emulator), Retry.DEFAULT);
            long aSecondAgo = System.nanoTime() - Duration.ofSeconds(1).toNanos();
            for (String tool : new String[] {GmailTools.LIST, GmailTools.GET}) {
                String params = tool.equals(GmailTools.GET) ? "{\"message_id\":\"abc\",\"timeout_ms\":100}" : "{\"timeout_ms\":100}";
                assertThatThrownBy(() -> tools.call(new ToolCall(tool, obj(params), null, null, aSecondAgo, null)))
                        .as(tool).isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.DEADLINE));
            }
        }
    }

    /**
     * Client set-up (transport, TLS context, stored sign-in) runs inside the call's deadline: here it stalls for good,
     * reading a CA certificate from a pipe nobody writes (a hung network mount, say), and the call still answers
     * {@code deadline} in its own time.
     */
    @Test
    void aStalledClientSetUpAnswersDeadlineInTheCallsTime(@TempDir Path dir) throws Exception {
        Path pipe = dir.resolve("stalled-ca.pem");
        Assumptions.assumeTrue(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor() == 0,
                "needs mkfifo");
        try (Emulator emulator = emulators.start(fastEmulator().build());
             var caller = Executors.newVirtualThreadPerTaskExecutor()) {
            ToolRegistry tools = HandBuilt.registry(ToolRegistry.builder(), fastSettings(emulator), Retry.DEFAULT, pipe);
            try {
                for (String tool : new String[] {GmailTools.LIST, GmailTools.GET}) {
                    String params = tool.equals(GmailTools.GET) ? "{\"message_id\":\"abc\",\"timeout_ms\":100}" : "{\"timeout_ms\":100}";
                    Future<Throwable> answer = caller.submit(() -> {
                        try {
                            tools.call(ToolCall.of(tool, obj(params)));
                            return null;
                        } catch (ToolException e) {
                            return e;
                        }
                    });
                    // generous slack: the set-up never finishes, so without the deadline this waits for ever
                    Throwable e = answer.get(2_500, TimeUnit.MILLISECONDS);
                    assertThat(e).as(tool).isInstanceOfSatisfying(ToolException.class,
                            t -> assertThat(t.kind()).isEqualTo(ToolException.Kind.DEADLINE));
                }
            } finally {
                // Let every stalled set-up go: a writer on the pipe (read-write: Linux opens that without waiting) releases
                // the reader waiting in open and leaves it EOF when it closes; set-ups still to come find an empty file.
                var writer = new RandomAccessFile(pipe.toFile(), "rw");
                try {
                    Files.delete(pipe);
                    Files.createFile(pipe);
                } finally {
                    writer.close();
                }
            }
        }
    }

    @Test
    void quotaPacingKeepsRateLimitErrorsAtZero() {
        // Gmail-like limits scaled down: 3,000 units a minute (50 a second), bursts of 50 units, 8 calls in flight
        try (Emulator emulator = emulators.start(fastEmulator().latency(Duration.ofMillis(20)).quotaPerMinute(3_000)
                .burst(50).maxConcurrent(8).build())) {
            ToolRegistry tools = registry(fastSettings(emulator).withPacing(3_000, 50, 8), Retry.DEFAULT);
            for (String strategy : new String[] {"concurrent", "batch"}) {
                JsonNode data = tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":30,\"strategy\":\"" + strategy + "\"}"))).data();
                assertThat(data.get("emails")).hasSize(30);
            }
            EmulatorCounters c = emulator.counters();
            assertThat(c.quotaRejections()).isZero();
            assertThat(c.concurrencyRejections()).isZero();
            assertThat(c.peakInFlight()).isLessThanOrEqualTo(8);
        }
    }

    @Test
    void bothShapesOfASpentQuotaAreRetried() {
        // the client believes Gmail's 15,000 units a minute; the server allows 30 at once, refilled 10 a second, and
        // refuses in Gmail's two shapes in turn (429 RESOURCE_EXHAUSTED, 403 usageLimits rateLimitExceeded): the list
        // must still arrive whole, each refusal retried with backoff and taught to the pacer
        try (Emulator emulator = emulators.start(fastEmulator().latency(Duration.ofMillis(5)).quotaPerMinute(600)
                .burst(30).build())) {
            ToolRegistry tools = registry(fastSettings(emulator), Retry.DEFAULT);
            JsonNode data = tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":10,\"strategy\":\"concurrent\"}"))).data();
            assertThat(data.get("emails")).hasSize(10);
            assertThat(data.has("errors")).isFalse();
            assertThat(emulator.counters().quotaRejections()).as("a 429 and a 403 at least").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void batchRetriesThePartsRefusedForConcurrency() {
        // the client believes it may send 20 at once, so it cuts 20 ids into batches of 5 (Strategy.chunkSizes); the
        // server allows 3 in flight, so every batch has parts refused 429 that must be retried, whether or not the
        // batches overlap in time (with a limit of 5 only overlapping batches met it: none did on a loaded machine)
        try (Emulator emulator = emulators.start(fastEmulator().maxConcurrent(3).build())) {
            ToolRegistry tools = registry(fastSettings(emulator).withPacing(60_000_000, 1_000_000, 20).withBatchSize(20), QUICK);
            JsonNode data = tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":20,\"strategy\":\"batch\"}"))).data();
            assertThat(data.get("emails")).hasSize(20);
            assertThat(emulator.counters().concurrencyRejections()).isPositive();
        }
    }

    @Test
    void aBurstOfGetsSharesOneHttp2Connection() {
        try (Emulator emulator = emulators.start(fastEmulator().latency(Duration.ofMillis(30)).build())) {
            ToolRegistry tools = registry(fastSettings(emulator), Retry.DEFAULT);
            tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":20,\"strategy\":\"concurrent\"}")));
            tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":20,\"strategy\":\"concurrent\"}")));
            // two lists of a list and 20 gets; the second session of the token also asks who it is (users.getProfile)
            assertThat(emulator.counters().apiCalls()).isBetween(42L, 43L);
            assertThat(emulator.counters().connectionsOpened()).isEqualTo(1);
            assertThat(emulator.counters().peakInFlight()).isGreaterThan(1);
        }
    }
}
