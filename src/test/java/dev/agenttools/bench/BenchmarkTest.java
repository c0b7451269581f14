package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.tool.Json;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A small benchmark run end to end: table, results JSON with every field, summary and sweep charts. Asserts shape, not speed. */
@Tag("process")
class BenchmarkTest {

    /** The default run: the article's rows only, against an emulator process of its own, with its chart. */
    @Test
    void theDefaultRunIsTheArticlesExperimentWithItsChart(@TempDir Path out) throws Exception {
        StringWriter table = new StringWriter();
        Benchmark.Options options = new Benchmark.Options("emulator", 2, 1, 3, List.of("list_emails", "get_email"),
                List.of("sequential", "concurrent", "batch"), Duration.ofMillis(20), List.of(), 1, out, Duration.ZERO, true, true,
                Set.of(Benchmark.Part.article));
        int status = Benchmark.run(options, new PrintWriter(table, true), new PrintStream(new ByteArrayOutputStream(), true));
        assertThat(status).as("the table, whose rows name the errors:\n%s", table).isZero();
        assertThat(table.toString()).contains("the article's experiment, against an emulator process of its own",
                "list_emails(3), p50: sequential", "get_email, p50: agent-tools", "chart: ", "results: ")
                .doesNotContain("chart of every row", "tracking:", "process model");
        for (String line : table.toString().split("\n")) {
            if (line.startsWith("list_emails ") || line.startsWith("tool ")) {
                assertThat(line.length()).as("a table line fits 120 columns: %s", line).isLessThanOrEqualTo(120);
            }
        }
        JsonNode results = results(out);
        assertThat(results.get("parts")).hasSize(1);
        assertThat(results.get("rows").fieldNames()).toIterable().containsExactly("article");
        JsonNode article = results.get("rows").get("article");
        assertThat(article.findValuesAsText("strategy")).containsExactly("sequential", "concurrent", "batch", "sequential", "go", "go");
        assertThat(article.findValuesAsText("tool")).containsExactly("list_emails", "list_emails", "list_emails", "get_email",
                "list_emails", "get_email");
        assertThat(article.get(0).get("requests").asDouble()).as("counters read from the emulator process: 1 list + 3 gets").isEqualTo(4.0);
        assertThat(article.get(0).get("bound_ms").asDouble()).isEqualTo(80.0);
        assertThat(article.get(1).get("speedup").asDouble()).as("against sequential").isPositive();
        assertThat(article.findValues("errors")).allSatisfy(e -> assertThat(e.asInt()).isZero());
        assertThat(results.get("environment").has("rows")).as("results apart from the environment").isFalse();
        assertThat(results.get("environment").get("git_commit").asText()).isNotBlank();
        Path chart = Path.of(json(out).toString().replaceFirst("\\.json$", ".png"));
        assertThat(table.toString()).contains("chart: " + chart);
        assertThat(Files.readAllBytes(chart)).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    }

    @Test
    void writesTheTableTheResultsAndTheChart(@TempDir Path out) throws Exception {
        StringWriter table = new StringWriter();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        Benchmark.Options options = new Benchmark.Options("emulator", 2, 1, 3, List.of("list_emails", "get_email"),
                List.of("sequential", "concurrent", "batch"), Duration.ofMillis(20), List.of(1, 4), 1, out, Duration.ZERO, true, true,
                Benchmark.Part.all());
        int status = Benchmark.run(options, new PrintWriter(table, true), new PrintStream(progress, true));
        assertThat(status).as("the table, whose rows name the errors:\n%s", table).isZero();
        assertThat(table.toString()).contains("list_emails", "get_email", "p50 ms", "speedup", "bound", "results:", "chart:",
                "against an emulator process of its own", "caller CPU ms");
        // the Python client's rows, through the project's script (python3 is on every machine the project supports)
        assertThat(table.toString()).contains("python client (scripts/bench/python-client-bench").containsPattern(
                "gmail.get-email +sync +p50 +[0-9.]+ ms .* client [-+][0-9.]+ ms \\(target ≤ 0.3 ms: (met|not met)\\)");
        assertThat(progress.toString()).as("each part named as it starts").contains("bench: article ...", "bench: tools ...",
                "bench: index ...", "bench: floors ...", "bench: process ...", "bench: extras ...", "bench: sweep ...");

        JsonNode results = results(out);
        assertThat(results.get("environment").get("cpus").asInt()).isPositive();
        assertThat(results.get("environment").get("emulator").get("latency_ms").asInt()).isEqualTo(20);
        JsonNode rows = results.get("rows");
        assertThat(rows.fieldNames()).toIterable().containsExactly("article", "tools", "index", "index_external", "floors", "process",
                "startup", "sweep");
        // list_emails x 3 strategies, get_email (no strategy), in this JVM's emulator
        assertThat(rows.get("tools").findValuesAsText("strategy")).containsExactly("sequential", "concurrent", "batch", "sequential");
        JsonNode warm = rows.get("index").get(0);
        assertThat(warm.get("strategy").asText()).isEqualTo("warm");
        assertThat(warm.get("requests").asDouble()).as("messages.list and history.list").isEqualTo(2.0);
        assertThat(warm.get("bound_ms").asDouble()).as("one round trip").isEqualTo(20.0);
        assertThat(rows.get("index").get(1).get("strategy").asText()).isEqualTo("warm+new");
        assertThat(rows.get("index").get(1).get("requests").asDouble()).as("and the 2 new messages' gets").isEqualTo(4.0);
        assertThat(rows.get("index_external").get(0).get("requests").asDouble()).as("counters read from the emulator process").isEqualTo(2.0);
        assertThat(table.toString()).contains("list_emails with the local mail index: 'warm', asked again");
        assertThat(rows.get("process").findValuesAsText("strategy")).contains("in-process", "serve", "server-call", "server-mcp", "call");
        JsonNode python = results.get("python_client");
        assertThat(python.path("report").path("rows")).as(python.toString()).hasSize(6);
        assertThat(python.path("target").asText()).isIn("met", "not met");
        JsonNode habit = results.get("habit");
        assertThat(habit.findValuesAsText("tool")).as("the issue's Habit targets").containsExactly("habit.list", "habit.list",
                "habit.list", "habit.log", "habit.log");
        assertThat(habit.get("list").get("runs").asInt()).isEqualTo(HabitBench.MIN_RUNS);
        assertThat(table.toString()).contains("habit.list", "target ≤ 10 ms p50: ");
        assertThat(results.get("process_model").get("serve_overhead").get("serve_pipelined_calls_per_second").asLong()).isPositive();
        JsonNode server = results.get("process_model").get("server_overhead");
        assertThat(server.get("call_p50_ms").asDouble()).as("/v1/call's tools.list").isPositive();
        assertThat(server.get("mcp_p50_ms").asDouble()).as("/mcp's tools/list").isPositive();
        JsonNode costs = results.get("process_model").get("costs");
        assertThat(costs.findValuesAsText("model")).containsExactly("in-process", "serve", "server-call", "server-mcp", "call");
        assertThat(costs.get(1).get("server_cpu_ms_per_call").asDouble()).as("serve's CPU per call").isPositive();
        assertThat(costs.get(2).get("peak_rss_mb").asDouble()).as("the HTTP server's peak RSS").isGreaterThan(10);
        assertThat(costs.get(4).get("peak_rss_mb").asDouble()).as("a call JVM's peak RSS").isGreaterThan(10);
        // the Go peer's rows too: the benchmark builds it (scripts/bench/go-peer) when it is not
        JsonNode article = rows.get("article");
        assertThat(article.findValuesAsText("strategy")).containsExactly("sequential", "concurrent", "batch", "sequential", "go", "go");
        assertThat(table.toString()).contains("TLS with HTTP/2 by ALPN");
        JsonNode first = rows.get("startup");
        assertThat(first.findValuesAsText("strategy")).as("the Go peer started per call, against the handshake model").startsWith("go");
        assertThat(first.get(0).get("errors").asInt()).isZero();
        JsonNode bare = rows.get("floors");
        assertThat(bare.findValuesAsText("strategy")).containsExactly("bare", "bare");
        assertThat(bare.get(0).get("requests").asDouble()).as("the bare client makes the same calls").isEqualTo(4.0);
        assertThat(bare.get(0).get("bound_ms").asDouble()).as("a list and then its gets: two round trips").isEqualTo(40.0);
        assertThat(bare.get(0).get("connections").asLong()).as("the bare client keeps its connections").isLessThanOrEqualTo(3);
        assertThat(bare.get(1).get("requests").asDouble()).isEqualTo(1.0);
        assertThat(table.toString()).contains("'bare': the same HTTP exchanges");
        for (String family : List.of("article", "tools", "index", "index_external", "floors", "process")) {
            for (JsonNode row : rows.get(family)) {
                for (String field : new String[] {"tool", "strategy", "n", "runs", "warmup", "avg_ms", "min_ms", "max_ms", "p50_ms",
                        "p90_ms", "p99_ms", "errors", "requests", "connections", "bound_ms"}) {
                    assertThat(row.has(field)).as(family + " " + field).isTrue();
                }
                assertThat(row.get("errors").asInt()).as(family + " " + row).isZero();
                assertThat(row.get("p50_ms").asDouble()).isGreaterThanOrEqualTo(10.0); // 20 ms ± 10 ms of jitter
            }
        }
        JsonNode listSequential = rows.get("tools").get(0);
        assertThat(listSequential.get("requests").asDouble()).isEqualTo(4.0); // 1 list + 3 gets
        assertThat(listSequential.get("bound_ms").asDouble()).isEqualTo(80.0);
        assertThat(rows.get("sweep")).hasSize(6);
        try (var files = Files.list(out)) {
            Path chart = files.filter(f -> f.toString().endsWith("-sweep.png")).findFirst().orElseThrow();
            assertThat(Files.readAllBytes(chart)).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        }
        // the article's picture, and the picture of every row
        Path summary = Path.of(json(out).toString().replaceFirst("\\.json$", ".png"));
        Path all = Path.of(json(out).toString().replaceFirst("\\.json$", "-all.png"));
        assertThat(table.toString()).contains("chart: " + summary, "chart of every row: " + all, "sweep chart: ");
        assertThat(Files.readAllBytes(summary)).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        assertThat(Files.readAllBytes(all)).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    }

    private static Path json(Path out) throws IOException {
        try (var files = Files.list(out)) {
            return files.filter(f -> f.toString().endsWith(".json")).findFirst().orElseThrow();
        }
    }

    private static JsonNode results(Path out) throws IOException {
        return Json.MAPPER.readTree(json(out).toFile());
    }

    @Test
    void timesTheCalendarToolsAcrossTheShownCalendars(@TempDir Path out) throws Exception {
        StringWriter table = new StringWriter();
        Benchmark.Options options = new Benchmark.Options("emulator", 2, 1, 3, List.of("list_events", "get_event"),
                List.of("sequential", "concurrent", "batch"), Duration.ofMillis(20), List.of(), 1, out, Duration.ZERO, true, true,
                Set.of(Benchmark.Part.tools, Benchmark.Part.floors));

        int status = Benchmark.run(options, new PrintWriter(table, true), new PrintStream(new ByteArrayOutputStream(), true));

        assertThat(status).as(table.toString()).isZero();
        assertThat(table.toString()).contains("list_events: today across the 9 calendars the user shows");
        JsonNode results = results(out);
        JsonNode rows = results.get("rows").get("tools");
        assertThat(rows.findValuesAsText("tool")).containsExactly("list_events", "list_events", "list_events", "get_event");
        assertThat(rows.findValuesAsText("strategy")).containsExactly("sequential", "concurrent", "batch", "sequential");
        for (JsonNode row : rows) {
            assertThat(row.get("errors").asInt()).as(row.toString()).isZero();
        }
        JsonNode sequential = rows.get(0);
        assertThat(sequential.get("n").asInt()).as("the seeded calendars shown").isEqualTo(9);
        assertThat(sequential.get("requests").asDouble()).as("one calendarList.list, then events.list of each").isEqualTo(10.0);
        assertThat(sequential.get("bound_ms").asDouble()).isEqualTo(200.0);
        assertThat(rows.get(1).get("requests").asDouble()).isEqualTo(10.0);
        assertThat(rows.get(1).get("bound_ms").asDouble()).as("two round trips").isEqualTo(40.0);
        assertThat(rows.get(2).get("bound_ms").asDouble()).as("two round trips and 3 parts in each of the 3 batches sent at once").isEqualTo(43.0);
        assertThat(rows.get(3).get("requests").asDouble()).isEqualTo(1.0);
        assertThat(rows.findValues("rate_limited")).allSatisfy(r -> assertThat(r.asInt()).isZero());
        JsonNode external = results.get("rows").get("tools_external");
        assertThat(external.findValuesAsText("strategy")).containsExactly("concurrent", "batch", "sequential");
        assertThat(external.findValuesAsText("tool")).containsExactly("list_events", "list_events", "get_event");
        assertThat(external.get(0).get("requests").asDouble()).as("counters read from the emulator process").isEqualTo(10.0);
        JsonNode bare = results.get("rows").get("floors");
        assertThat(bare.findValuesAsText("tool")).containsExactly("list_events", "get_event");
        assertThat(bare.get(0).get("requests").asDouble()).as("the bare client makes the same calls").isEqualTo(10.0);
        assertThat(bare.get(0).get("n").asInt()).isEqualTo(9);
        assertThat(bare.get(1).get("requests").asDouble()).isEqualTo(1.0);
        assertThat(external.findValues("errors")).allSatisfy(e -> assertThat(e.asInt()).isZero());
        assertThat(bare.findValues("errors")).allSatisfy(e -> assertThat(e.asInt()).isZero());
    }

    @Test
    void timesTheHabitToolsForAUserWithTwoYearsOfLogs() throws Exception {
        StringWriter lines = new StringWriter();

        Map<String, Object> habit = HabitBench.run(new PrintWriter(lines, true), 5);

        JsonNode results = Json.MAPPER.valueToTree(habit);
        assertThat(results.get("habits").asInt()).isEqualTo(50);
        assertThat(results.get("days").asInt()).isEqualTo(730);
        // a third daily, a third Mon/Wed/Fri, a third 3 times a week: about 50 * 730 * 0.55 days logged
        assertThat(results.get("logs_seeded").asInt()).isBetween(15_000, 25_000);
        for (String row : new String[] {"list", "list_after_log", "list_every_log", "log", "log_retried"}) {
            JsonNode r = results.get(row);
            assertThat(r.get("runs").asInt()).as(row).isEqualTo(5);
            assertThat(r.get("p50_ms").asDouble()).as(row).isPositive().isLessThanOrEqualTo(r.get("p90_ms").asDouble());
            assertThat(r.get("p90_ms").asDouble()).as(row).isLessThanOrEqualTo(r.get("p99_ms").asDouble());
            assertThat(r.get("met").asBoolean()).as(row).isEqualTo(r.get("p50_ms").asDouble() <= r.get("target_p50_ms").asDouble());
        }
        assertThat(results.get("list").get("tool").asText()).isEqualTo("habit.list");
        assertThat(results.get("list").get("target_p50_ms").asDouble()).isEqualTo(10.0);
        assertThat(results.get("log").get("target_p50_ms").asDouble()).isEqualTo(5.0);
        assertThat(lines.toString()).contains("habit.list", "habit.log", "target ≤ 10 ms p50: ", "target ≤ 5 ms p50: ",
                "habit: one user, 50 habits", "after a log of one habit here", "after another process's write: every log read");
    }

    @Test
    void rejectsBadOptionsNamingThem() {
        assertThatThrownBy(() -> new Benchmark.Options("prod", 1, 1, 10, List.of("list_emails"), List.of("batch"),
                Duration.ofMillis(1), List.of(), 1, Path.of("x"), Duration.ZERO, false, false, Benchmark.Part.all())).hasMessageContaining("target must be emulator, gmail or an http(s) root URL");
        assertThatThrownBy(() -> new Benchmark.Options("emulator", 1, 1, 10, List.of("send_email"), List.of("batch"),
                Duration.ofMillis(1), List.of(), 1, Path.of("x"), Duration.ZERO, false, false, Benchmark.Part.all())).hasMessageContaining("tools must be among");
        assertThatThrownBy(() -> new Benchmark.Options("emulator", 0, 1, 10, List.of("list_emails"), List.of("batch"),
                Duration.ofMillis(1), List.of(), 1, Path.of("x"), Duration.ZERO, false, false, Benchmark.Part.all())).hasMessageContaining("runs must be >= 1");
        assertThatThrownBy(() -> new Benchmark.Options("emulator", 1, 1, 10, List.of("list_emails"), List.of("batch"),
                Duration.ofMillis(1), List.of(), 1, Path.of("x"), Duration.ZERO, false, false, Set.of()))
                .hasMessageContaining("parts must name at least one of [article, tools, index, floors, process, extras]");
    }

    @Test
    void boundsFollowRoundTripsAndTheQuota() {
        Bounds b = new Bounds(150, new Bounds.Quota(15_000, 250, 5), Bounds.Quota.CALENDAR, 20, 50, 1, 0);
        assertThat(b.of(new Scenario("list_emails", "sequential", 10))).isEqualTo(1650);
        assertThat(b.of(new Scenario("list_emails", "concurrent", 10))).isEqualTo(300);
        // batches of 4, 3 and 3 parts at once: the largest adds 4 ms of part cost
        assertThat(b.of(new Scenario("list_emails", "batch", 10))).isEqualTo(304);
        assertThat(b.of(new Scenario("get_email", "batch", 1))).isEqualTo(150);
        // one run of 100 gets, 20 in flight, 5 units each, from a full bucket: the bucket binds before the waves
        assertThat(b.of(new Scenario("list_emails", "concurrent", 100))).isBetween(1170.0, 1400.0).isGreaterThan(6 * 150.0);
        // 50 runs back to back: the bucket is drained, the sustained rate binds: 505 units at 250 a second
        assertThat(b.of(new Scenario("list_emails", "concurrent", 100), 1, 50)).isCloseTo(2020, Offset.offset(1.0));
        // ... but not for small lists, whose 55 units a run refill within the run
        assertThat(b.of(new Scenario("list_emails", "concurrent", 10), 1, 50)).isEqualTo(300);
        // a pause long enough to refill the bucket gives every run a full bucket again
        Bounds paused = new Bounds(150, new Bounds.Quota(15_000, 250, 5), Bounds.Quota.CALENDAR, 20, 50, 1, 1_500);
        assertThat(paused.of(new Scenario("list_emails", "concurrent", 100), 1, 20)).isEqualTo(b.of(new Scenario("list_emails", "concurrent", 100)));
    }

    @Test
    void calendarRowsCountAgainstCalendarsOwnQuota() {
        Bounds b = new Bounds(150, Bounds.Quota.GMAIL, Bounds.Quota.CALENDAR, 20, 50, 1, 0);
        Scenario concurrent = new Scenario("list_events", "concurrent", 9);
        // a calendarList call, then the 9 calendars' events at once: two round trips; three batches of 3 add 3 parts' cost
        assertThat(b.of(new Scenario("list_events", "sequential", 9))).isEqualTo(1500);
        assertThat(b.of(concurrent)).isEqualTo(300);
        assertThat(b.of(new Scenario("list_events", "batch", 9))).isEqualTo(303);
        assertThat(b.of(new Scenario("get_event", "sequential", 1))).isEqualTo(150);
        // 51 runs of 10 requests in 15.3 s: 600 at hand and 10 a second refilled, so the bucket never runs dry ...
        assertThat(b.of(concurrent, 1, 50)).isEqualTo(300);
        // ... but it is left about 357 requests short (the full bucket refills nothing at first), which the next
        // Calendar row must not inherit unless it can afford it
        Bounds.Drain fast = b.drain(concurrent, 1, 50);
        assertThat(fast.deficitUnits()).isCloseTo(357, Offset.offset(1.0));
        assertThat(fast.neededUnits()).as("its lowest point is its last wave, the last 150 ms refill 1.5")
                .isCloseTo(fast.deficitUnits() + 1.5, Offset.offset(0.01));
        Bounds.Drain sequential = b.drain(new Scenario("list_events", "sequential", 9), 1, 50);
        assertThat(sequential.deficitUnits()).as("1.5 s a run spends less than it refills").isZero();
        assertThat(sequential.neededUnits()).as("one request at a time, each refilled before the next").isEqualTo(1.0);
        assertThat(b.drain(new Scenario("list_emails", "concurrent", 10), 1, 50).deficitUnits()).as("Gmail's bucket refills within the runs")
                .isLessThan(55);
        // a client pacing itself to a burst of 60 (the tools' default against Google): 6 runs at once, then about one a
        // second, the 10 requests' refill
        Bounds paced = new Bounds(150, Bounds.Quota.GMAIL, new Bounds.Quota(600, 60, 1), 20, 50, 1, 0);
        assertThat(paced.of(concurrent, 1, 50)).isBetween(1000.0, 1100.0);
    }

    @Test
    void runsAgainstAnEmulatorOfItsOwnByRootUrlAndReadsItsCounters(@TempDir Path out) throws Exception {
        try (Emulator external = Emulator.start(
                EmulatorConfig.builder().latency(Duration.ofMillis(20)).jitter(Duration.ZERO)
                        .handshake(Duration.ZERO).build())) {
            StringWriter table = new StringWriter();
            Benchmark.Options options = new Benchmark.Options(external.rootUri().toString(), 3, 1, 5, List.of("list_emails", "get_email"),
                    List.of("concurrent"), Duration.ofMillis(20), List.of(), 1, out, Duration.ZERO, false, false,
                    Set.of(Benchmark.Part.article));

            int status = Benchmark.run(options, new PrintWriter(table, true), new PrintStream(new ByteArrayOutputStream(), true));

            assertThat(status).as(table.toString()).isZero();
            Path json;
            try (var files = Files.list(out)) {
                json = files.filter(f -> f.toString().endsWith(".json")).findFirst().orElseThrow();
            }
            JsonNode results = Json.MAPPER.readTree(json.toFile());
            assertThat(results.get("environment").get("target").asText()).isEqualTo(external.rootUri().toString());
            JsonNode list = results.get("rows").get("article").get(0);
            assertThat(list.get("tool").asText()).isEqualTo("list_emails");
            assertThat(list.get("errors").asInt()).isZero();
            assertThat(list.get("requests").asDouble()).as("1 list + 5 gets, read from the emulator's counters").isEqualTo(6.0);
            assertThat(table.toString()).contains("the whole run:");
        }
    }
}
