package dev.agenttools.tracking;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same call records in SQLite (stats by SQL) and in DynamoDB on dynalite (stats by {@link StatsCalculator}) give
 * the same rows, in the same order, for every window and tool filter.
 */
@Tag("process")
class StatsParityTest {
    private static final String LIST = "gmail.list-emails";
    private static final String GET = "gmail.get-email";
    private static final String SEARCH = "gmail.search-emails";
    private static final String CALENDAR = "calendar.list-events";
    private static final List<String> TOOLS = List.of(LIST, GET, SEARCH, CALENDAR);
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    /** The start of the window the tests ask about; records sit on it, just before and just after it. */
    private static final Instant EDGE = NOW.minus(Duration.ofHours(6));
    private static final Instant MIDNIGHT = LocalDate.ofInstant(NOW, ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant();

    @TempDir
    static Path dir;
    private static Dynalite dynalite;
    private static SqliteSink sqlite;
    private static DynamoDbSink dynamo;

    @BeforeAll
    static void writeTheSameRecordsToBothStores() throws Exception {
        dynalite = Dynalite.start();
        sqlite = new SqliteSink(dir.resolve("calls.db"));
        dynamo = new DynamoDbSink(dynalite.client(), "calls-parity", TOOLS);
        List<CallRecord> records = records();
        sqlite.write(records);
        dynamo.write(records);
    }

    @AfterAll
    static void closeStores() throws Exception {
        sqlite.close();
        dynamo.close();
        dynalite.close();
    }

    private static CallRecord ok(Instant ts, String tool, String agent, double ms, String backend, String strategy) {
        return new CallRecord(ts, tool, agent, ms, backend, strategy, "ok", null, 3, UUID.randomUUID().toString());
    }

    private static CallRecord error(Instant ts, String tool, String agent, double ms, String strategy, String code) {
        return new CallRecord(ts, tool, agent, ms, null, strategy, "error", code, 0, UUID.randomUUID().toString());
    }

    /**
     * Three hundred seeded calls of list-emails over two days (every backend, errors, fallbacks, many equal
     * durations, several per millisecond), and hand-made ones at the edges: on the window's start, a millisecond
     * either side, both sides of UTC midnight (another DynamoDB partition), two backends with equal counts, a
     * failed call that asked for a strategy named "fallback", and a tool that only fails.
     */
    private static List<CallRecord> records() {
        List<CallRecord> out = new ArrayList<>();
        Random random = new Random(7);
        String[] backends = {"sequential", "concurrent", "batch", "fallback"};
        String[] strategies = {"auto", "batch", "concurrent", "sequential"};
        String[] agents = {"claude", "cursor", "cli"};
        for (int i = 0; i < 300; i++) {
            int minutesAgo = random.nextInt(2 * 24 * 60);
            if (minutesAgo == 360) {
                continue; // the edge records below are the only ones within milliseconds of EDGE
            }
            Instant ts = NOW.minus(Duration.ofMinutes(minutesAgo)).minusMillis(random.nextInt(3));
            double ms = random.nextInt(40) * 12.5; // few distinct values: ties everywhere
            String agent = agents[random.nextInt(agents.length)];
            String strategy = strategies[random.nextInt(strategies.length)];
            out.add(random.nextInt(10) == 0 ? error(ts, LIST, agent, ms, strategy, "upstream")
                    : ok(ts, LIST, agent, ms, backends[random.nextInt(backends.length)], strategy));
        }
        out.add(ok(EDGE.minusMillis(1), LIST, "claude", 9_999, "batch", "batch"));
        out.add(ok(EDGE, LIST, "claude", 0.125, "batch", "batch"));
        out.add(ok(EDGE, LIST, "cursor", 0.125, "concurrent", "auto"));
        out.add(error(EDGE.plusMillis(1), LIST, "cli", 30_000, "auto", "deadline"));
        out.add(ok(MIDNIGHT.minusMillis(1), LIST, "claude", 77, "sequential", "sequential"));
        out.add(ok(MIDNIGHT, LIST, "claude", 78, "sequential", "sequential"));

        // get-email, in the window: batch and concurrent three calls each, concurrent seen first
        Instant t = EDGE.plus(Duration.ofMinutes(1));
        out.add(ok(t, GET, "claude", 20, "concurrent", "auto"));
        out.add(ok(t.plusSeconds(1), GET, "claude", 10, "concurrent", "auto"));
        out.add(ok(t.plusSeconds(2), GET, "cursor", 40, "batch", "batch"));
        out.add(ok(t.plusSeconds(3), GET, "cursor", 80, "concurrent", "auto"));
        out.add(ok(t.plusSeconds(4), GET, "cli", 20, "batch", "batch"));
        out.add(error(t.plusSeconds(5), GET, "cli", 40, "batch", "not_found"));

        // search-emails: a real fallback, and a failed call whose agent asked for strategy "fallback"
        out.add(ok(t, SEARCH, "claude", 300, "fallback", "batch"));
        out.add(ok(t.plusSeconds(1), SEARCH, "claude", 100, "concurrent", "auto"));
        out.add(error(t.plusSeconds(2), SEARCH, "claude", 1, "fallback", "invalid_argument"));
        out.add(ok(t.plusSeconds(3), SEARCH, "cursor", 100, "concurrent", "concurrent"));

        // search-emails before the window: the Python client's rows (agent_tools.tracking), an answer of its fallback
        // and a failure of it, beside a call the tools answered
        Instant before = EDGE.minusSeconds(120);
        out.add(ok(before, SEARCH, "py-agent", 900, "python", "auto"));
        out.add(new CallRecord(before.plusSeconds(1), SEARCH, "py-agent", 950, "python", "auto", "error", "deadline", 0,
                UUID.randomUUID().toString()));
        out.add(ok(before.plusSeconds(2), SEARCH, "py-agent", 90, "batch", "auto"));

        // calendar: only failures, before and in the window
        out.add(error(EDGE.minusSeconds(60), CALENDAR, "cli", 5, "auto", "unauthenticated"));
        out.add(error(t, CALENDAR, "cli", 7, "auto", "unauthenticated"));
        return out;
    }

    private static void assertSameStats(Instant since, String tool) throws Exception {
        List<StatsRow> bySql = Tracking.stats(sqlite, since, tool);
        List<StatsRow> byJava = Tracking.stats(dynamo, since, tool);
        assertThat(byJava).as("since %s, tool %s", since, tool).containsExactlyElementsOf(bySql);
    }

    @Test
    void agreeOnEveryToolAndBackendOverAllTime() throws Exception {
        Instant since = NOW.minus(Duration.ofDays(3));

        assertSameStats(since, null);

        List<StatsRow> rows = Tracking.stats(sqlite, since, null);
        assertThat(rows).extracting(StatsRow::tool).containsOnly(LIST, GET, SEARCH, CALENDAR);
        assertThat(rows).filteredOn(r -> r.tool().equals(LIST) && r.backend().equals("all"))
                .singleElement().extracting(StatsRow::calls).isEqualTo(306L);
    }

    @Test
    void countThePythonFallbacksAnswersAsFallbacksAndNotItsFailures() throws Exception {
        Instant since = EDGE.minusSeconds(121);
        assertSameStats(since, SEARCH);
        List<StatsRow> rows = Tracking.stats(sqlite, since, SEARCH);
        // 7 calls: the registry's fallback once, the Python fallback's answer once (its failure is no fallback)
        assertThat(rows.getFirst()).extracting(StatsRow::backend, StatsRow::calls, StatsRow::fallbackRate)
                .containsExactly("all", 7L, 2 / 7.0);
        assertThat(rows).filteredOn(r -> r.backend().equals("python")).singleElement()
                .isEqualTo(new StatsRow(SEARCH, "python", 2, 0.5, 0.5, 900, 950, 950));
    }

    @Test
    void agreeOnAWindowThatStartsExactlyOnARecord() throws Exception {
        assertSameStats(EDGE, null);
        assertSameStats(EDGE.minusMillis(1), null);
        assertSameStats(EDGE.plusMillis(1), null);

        long onTheEdge = Tracking.stats(sqlite, EDGE, LIST).getFirst().calls();
        assertThat(Tracking.stats(sqlite, EDGE.minusMillis(1), LIST).getFirst().calls()).isEqualTo(onTheEdge + 1);
        assertThat(Tracking.stats(sqlite, EDGE.plusMillis(1), LIST).getFirst().calls()).isEqualTo(onTheEdge - 2);
    }

    @Test
    void agreeOnAWindowThatStartsAtUtcMidnight() throws Exception {
        assertSameStats(MIDNIGHT, null);
        assertSameStats(MIDNIGHT.minusMillis(1), LIST);
    }

    @Test
    void agreeOnEachToolAlone() throws Exception {
        for (String tool : TOOLS) {
            assertSameStats(NOW.minus(Duration.ofDays(3)), tool);
            assertSameStats(EDGE, tool);
        }
    }

    @Test
    void agreeOnPercentilesErrorsAndTheOrderOfBackendsWithEqualCounts() throws Exception {
        assertSameStats(EDGE, GET);

        assertThat(Tracking.stats(sqlite, EDGE, GET)).containsExactly(
                new StatsRow(GET, "all", 6, 1 / 6.0, 0, 20, 80, 80),
                new StatsRow(GET, "batch", 3, 1 / 3.0, 0, 40, 40, 40),
                new StatsRow(GET, "concurrent", 3, 0, 0, 20, 80, 80));
    }

    @Test
    void countOnlyCallsTheFallbackAnsweredAsFallbacks() throws Exception {
        assertSameStats(EDGE, SEARCH);

        List<StatsRow> rows = Tracking.stats(sqlite, EDGE, SEARCH);
        assertThat(rows.getFirst()).isEqualTo(new StatsRow(SEARCH, "all", 4, 0.25, 0.25, 100, 300, 300));
        // the failed call that asked for "fallback" is grouped by its strategy, but the fallback never answered it
        assertThat(rows).filteredOn(r -> r.backend().equals("fallback")).singleElement()
                .isEqualTo(new StatsRow(SEARCH, "fallback", 2, 0.5, 0.5, 1, 300, 300));
    }

    @Test
    void agreeOnAToolThatOnlyFails() throws Exception {
        assertSameStats(EDGE, CALENDAR);

        assertThat(Tracking.stats(sqlite, NOW.minus(Duration.ofDays(3)), CALENDAR)).containsExactly(
                new StatsRow(CALENDAR, "all", 2, 1.0, 0, 5, 7, 7),
                new StatsRow(CALENDAR, "auto", 2, 1.0, 0, 5, 7, 7));
    }

    @Test
    void agreeThatAWindowAfterTheLastCallIsEmpty() throws Exception {
        assertSameStats(NOW.plusSeconds(1), null);

        assertThat(Tracking.stats(sqlite, NOW.plusSeconds(1), null)).isEmpty();
    }
}
