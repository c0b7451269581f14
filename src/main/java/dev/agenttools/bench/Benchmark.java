package dev.agenttools.bench;

import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The article's experiment and more: each tool with each strategy, 1 warm-up + 50 runs, percentiles, speedup
 * against sequential and the physical bound beside each row; optionally a sweep over N with a chart. Against
 * the embedded emulator by default (no account needed), or real Gmail read-only.
 */
public final class Benchmark {
    /**
     * What to run.
     *
     * @param target    {@code emulator} or {@code gmail}
     * @param sweep     sizes of list_emails to sweep over (empty: no sweep)
     * @param sweepRuns measured runs per sweep point
     * @param external  with the embedded emulator, also run list_emails (concurrent, batch) and get_email against an
     *                  emulator process of its own, and the process-model rows against that one
     */
    public record Options(String target, int runs, int warmup, int n, List<String> tools, List<String> strategies,
                          Duration latency, List<Integer> sweep, int sweepRuns, Path out, Duration pause,
                          boolean processModel, boolean external) {
        public Options {
            if (!target.equals("emulator") && !target.equals("gmail") && !isUrl(target)) {
                throw new IllegalArgumentException("target must be emulator, gmail or an http(s) root URL such as "
                        + "http://127.0.0.1:8080/ (an emulator's), got " + target);
            }
            if (runs < 1 || warmup < 0 || n < 1 || n > 500 || sweepRuns < 1) {
                throw new IllegalArgumentException("runs must be >= 1, warmup >= 0, n 1..500 and sweep runs >= 1; got runs "
                        + runs + ", warmup " + warmup + ", n " + n + ", sweep runs " + sweepRuns);
            }
            for (String t : tools) {
                if (!Scenario.TOOLS.contains(t)) {
                    throw new IllegalArgumentException("tools must be among " + Scenario.TOOLS + ", got " + t);
                }
            }
            for (String s : strategies) {
                if (!Scenario.STRATEGIES.contains(s)) {
                    throw new IllegalArgumentException("strategies must be among " + Scenario.STRATEGIES + ", got " + s);
                }
            }
            for (int size : sweep) {
                if (size < 1 || size > 500) {
                    throw new IllegalArgumentException("sweep sizes must be 1..500, got " + size);
                }
            }
            if (pause == null || pause.isNegative()) {
                throw new IllegalArgumentException("pause must be zero or more, got " + pause);
            }
            tools = List.copyOf(tools);
            strategies = List.copyOf(strategies);
            sweep = List.copyOf(sweep);
        }
    }

    private Benchmark() {
    }

    /** A root URL target: an emulator running on its own ({@code ./agent-tools emulator}), or any Gmail-compatible server. */
    static boolean isUrl(String target) {
        return target.startsWith("http://") || target.startsWith("https://");
    }

    /** Runs the benchmark; returns 0, or 1 when any call failed, 130 when interrupted. */
    public static int run(Options o, java.io.PrintWriter out, PrintStream err) throws Exception {
        Emulator emulator = null;
        ExternalEmulator external = null;
        try {
            ToolRegistry tools;
            java.util.function.Supplier<dev.agenttools.emulator.EmulatorCounters> counters = null;
            String token = "bench-token";
            Map<String, Object> env = environment(o);
            Bounds bounds;
            if (o.target().equals("emulator")) {
                EmulatorConfig config = EmulatorConfig.builder().latency(o.latency()).build();
                emulator = Emulator.start(config);
                tools = Tools.builder().rootUrl(emulator.rootUri().toString())
                        .pacing(config.quotaPerMinute(), config.burst(), config.maxConcurrent())
                        .defaultAccessToken("bench-token").build();
                bounds = new Bounds(config.latency().toNanos() / 1e6, config.quotaPerMinute(), config.burst(),
                        config.maxConcurrent(), 50, config.batchPartCost().toNanos() / 1e6, o.pause().toNanos() / 1e6);
                env.put("emulator", emulatorSettings(config, emulator));
                err.println("bench: emulator at " + emulator.rootUri() + " (" + emulator.mailboxSummary() + ")");
            } else if (isUrl(o.target())) {
                // the server the user runs, reached with the configured client (token, CA certificate, pacing); its
                // latency is what --latency says, and the bound assumes Gmail's published limits, as for --target gmail
                Map<String, String> settings = dev.agenttools.Config.load();
                tools = Tools.builder().settings(settings).rootUrl(o.target()).defaultAccessToken("bench-token").build();
                bounds = new Bounds(o.latency().toNanos() / 1e6, 15_000, 250, 20, 50, 0, o.pause().toNanos() / 1e6);
                counters = RemoteCounters.at(o.target());
                String configured = settings.get("AGENT_TOOLS_ACCESS_TOKEN");
                token = configured == null || configured.isBlank() ? "bench-token" : configured;
                err.println("bench: " + o.target() + (counters == null ? "" : " (an agent-tools emulator: its counters are read)"));
            } else {
                tools = Tools.builder().settings(dev.agenttools.Config.load()).build();
                bounds = new Bounds(o.latency().toNanos() / 1e6, 15_000, 250, 20, 50, 0, o.pause().toNanos() / 1e6);
            }
            Emulator e = emulator;
            if (e != null) {
                counters = e::counters;
            }
            ToolRegistry externalTools = null;
            List<Scenario> externalScenarios = new ArrayList<>();
            if (e != null && o.external()) {
                external = ExternalEmulator.start(o.latency());
                EmulatorConfig config = EmulatorConfig.builder().latency(o.latency()).build();
                externalTools = Tools.builder().rootUrl(external.rootUrl())
                        .pacing(config.quotaPerMinute(), config.burst(), config.maxConcurrent()).defaultAccessToken("bench-token").build();
                err.println("bench: and an emulator process of its own at " + external.rootUrl());
                for (String tool : o.tools()) {
                    if (tool.equals("get_email")) {
                        externalScenarios.add(new Scenario(tool, "sequential", 1));
                    } else if (tool.equals("list_emails")) {
                        o.strategies().stream().filter(s -> !s.equals("sequential")).forEach(s -> externalScenarios.add(new Scenario(tool, s, o.n())));
                    }
                }
            }
            String processRoot = external != null ? external.rootUrl() : e != null ? e.rootUri().toString() : isUrl(o.target()) ? o.target() : null;
            List<String> ids = messageIds(tools);
            List<Scenario> scenarios = new ArrayList<>();
            for (String tool : o.tools()) {
                if (tool.equals("get_email")) {
                    // one email is one call whatever the strategy: get_email has none, and answers as sequential
                    scenarios.add(new Scenario(tool, "sequential", 1));
                    continue;
                }
                for (String strategy : o.strategies()) {
                    scenarios.add(new Scenario(tool, strategy, o.n()));
                }
            }
            List<Scenario> sweep = new ArrayList<>();
            for (int size : o.sweep()) {
                for (String strategy : o.strategies()) {
                    sweep.add(new Scenario("list_emails", strategy, size));
                }
            }
            int bareScenarios = externalScenarios.isEmpty() ? 0 : bareScenarios(o).size();
            long totalCalls = (long) (scenarios.size() + externalScenarios.size() + bareScenarios) * (o.warmup() + o.runs())
                    + (long) sweep.size() * (1 + o.sweepRuns());
            try (Progress progress = Progress.open(err, totalCalls)) {
                BenchRunner runner = new BenchRunner(tools, counters, bounds, progress, o.pause());
                AtomicBoolean done = new AtomicBoolean();
                Thread reporter = new Thread(() -> {
                    if (!done.get()) {
                        out.println("\nbench: interrupted; what finished:");
                        out.print(BenchReport.table(BenchReport.withSpeedups(runner.finished())));
                        out.flush();
                    }
                });
                Runtime.getRuntime().addShutdownHook(reporter);
                List<Row> rows = new ArrayList<>();
                for (Scenario s : scenarios) {
                    rows.add(runner.run(s, o.warmup(), o.runs(), ids));
                }
                List<Row> externalRows = new ArrayList<>();
                if (externalTools != null && !externalScenarios.isEmpty()) {
                    BenchRunner outside = new BenchRunner(externalTools, RemoteCounters.at(external.rootUrl()), bounds, progress, o.pause());
                    List<String> externalIds = messageIds(externalTools);
                    for (Scenario s : externalScenarios) {
                        externalRows.add(outside.run(s, o.warmup(), o.runs(), externalIds));
                    }
                    externalRows.addAll(bareRows(outside, external.rootUrl(), token, o, externalIds));
                }
                Map<String, Object> processModel = null;
                if (o.processModel() && processRoot != null && o.tools().contains("get_email")) {
                    ProcessModelBench models = new ProcessModelBench(tools, processRoot, token, bounds, progress);
                    Path jar = ProcessModelBench.ownJar();
                    Path aot = jar == null ? null : jar.resolveSibling("agent-tools.aot");
                    aot = aot != null && java.nio.file.Files.isRegularFile(aot) ? aot : null;
                    rows.addAll(models.rows(o.warmup(), o.runs(), ids, aot));
                    processModel = new LinkedHashMap<>();
                    processModel.put("serve_overhead", models.serveOverhead(o.runs(), 5_000));
                    processModel.put("startup", models.startup(Math.min(o.runs(), 20), aot));
                    processModel.put("costs", models.costs());
                    if (models.firstCall() != null) {
                        processModel.put("launcher_first_call", models.firstCall());
                    }
                }
                List<Row> sweepRows = new ArrayList<>();
                for (Scenario s : sweep) {
                    sweepRows.add(runner.run(s, 1, o.sweepRuns(), ids));
                }
                done.set(true);
                Runtime.getRuntime().removeShutdownHook(reporter);
                progress.finish(); // the bar's last line before the report, not after it
                rows = BenchReport.withSpeedups(rows);
                sweepRows = BenchReport.withSpeedups(sweepRows);
                String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
                out.println();
                out.println("agent-tools bench: " + o.target() + ", latency " + o.latency().toMillis() + " ms, "
                        + o.warmup() + " warm-up + " + o.runs() + " runs per row");
                out.print(BenchReport.table(rows));
                if (!externalRows.isEmpty()) {
                    out.println("the same against an emulator process of its own (" + external.rootUrl() + ", jitter 0, handshake 0), as users meet it;"
                            + " 'bare': the same HTTP exchanges by the JDK's plain HttpURLConnection and nothing else, the floor this machine allowed in this run:");
                    out.print(BenchReport.table(externalRows));
                    env.put("external_emulator", external.rootUrl());
                }
                out.println("bound: the fastest the server's latency, quota and concurrency allow these runs, back to back as run; "
                        + "calls: API calls per tool call; conns: connections opened during the row's runs; "
                        + "429s: calls the server refused (the client retried them)");
                if (counters != null) {
                    var c = counters.get();
                    out.println("the whole run: " + c.apiCalls() + " API calls in " + c.httpRequests() + " HTTP requests over "
                            + c.connectionsOpened() + " connection(s); peak " + c.peakInFlight() + " calls in flight");
                    env.put("totals", Map.of("api_calls", c.apiCalls(), "http_requests", c.httpRequests(),
                            "connections_opened", c.connectionsOpened(), "peak_in_flight", c.peakInFlight(),
                            "quota_rejections", c.quotaRejections(), "concurrency_rejections", c.concurrencyRejections()));
                }
                if (processModel != null) {
                    printProcessModel(out, processModel);
                }
                Map<String, Object> tracking = TrackingBench.run(Math.max(1_000, o.runs() * 2_000));
                out.printf(java.util.Locale.ROOT, "tracking: adds %.2f µs p50 (%.2f vs %.2f µs) and %.2f µs p99 to a call (SQLite, %s calls, %s dropped while measured)%n",
                        tracking.get("added_p50_us"), tracking.get("with_p50_us"), tracking.get("without_p50_us"),
                        tracking.get("added_p99_us"), tracking.get("calls"), tracking.get("dropped_while_measured"));
                Map<String, Object> decoding = o.tools().contains("get_email") ? DecodingBench.run(tools, o.runs()) : null;
                if (decoding != null) {
                    out.printf(java.util.Locale.ROOT, "decoding: HTML to text of a %.1f MB message: p50 %.1f ms, p90 %.1f ms, max %.1f ms (%d runs, in-process)%n",
                            ((Number) decoding.get("html_bytes")).doubleValue() / 1e6, decoding.get("p50_ms"), decoding.get("p90_ms"),
                            decoding.get("max_ms"), o.runs());
                }
                if (!sweepRows.isEmpty()) {
                    out.println();
                    out.println("sweep (list_emails, " + o.sweepRuns() + " runs per point):");
                    out.print(BenchReport.table(sweepRows));
                    out.println("chart: " + BenchReport.writeChart(o.out(), stamp, sweepRows, bounds.latencyMs()));
                }
                if (processModel != null) {
                    env.put("process_model", processModel);
                }
                if (!externalRows.isEmpty()) {
                    env.put("external_rows", externalRows);
                }
                env.put("tracking_overhead", tracking);
                out.println("results: " + BenchReport.writeJson(o.out(), stamp, env, rows, sweepRows, decoding));
                boolean failures = rows.stream().anyMatch(r -> r.errors() > 0) || sweepRows.stream().anyMatch(r -> r.errors() > 0);
                return failures ? 1 : 0;
            }
        } finally {
            if (emulator != null) {
                emulator.close();
            }
            if (external != null) {
                external.close();
            }
        }
    }

    /** The {@link BareClient}'s rows beside the external ones: list_emails(n) and get_email, as the options ask. */
    private static List<Scenario> bareScenarios(Options o) {
        List<Scenario> bare = new ArrayList<>();
        if (o.tools().contains("list_emails") && o.strategies().stream().anyMatch(s -> !s.equals("sequential"))) {
            bare.add(new Scenario("list_emails", BareClient.STRATEGY, o.n()));
        }
        if (o.tools().contains("get_email")) {
            bare.add(new Scenario("get_email", BareClient.STRATEGY, 1));
        }
        return bare;
    }

    private static List<Row> bareRows(BenchRunner runner, String rootUrl, String token, Options o, List<String> ids)
            throws InterruptedException {
        List<Row> rows = new ArrayList<>();
        List<String> masks = dev.agenttools.Tools.gmailListFieldMasks();
        try (BareClient bare = new BareClient(rootUrl, token, masks.get(0), masks.get(1))) {
            for (Scenario s : bareScenarios(o)) {
                rows.add(runner.run(s, o.warmup(), o.runs(), run -> {
                    try {
                        if (s.tool().equals("get_email")) {
                            bare.message(ids.get(run % ids.size()));
                        } else if (bare.list(s.n()).size() != s.n()) {
                            throw new java.io.IOException("listed fewer than " + s.n() + " emails");
                        }
                        return true;
                    } catch (java.io.IOException e) {
                        System.err.println("bench: " + s.label() + " failed: " + e.getMessage());
                        return false;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }));
            }
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private static void printProcessModel(java.io.PrintWriter out, Map<String, Object> m) {
        Map<String, Object> serve = (Map<String, Object>) m.get("serve_overhead");
        Map<String, Object> startup = (Map<String, Object>) m.get("startup");
        out.printf(java.util.Locale.ROOT, "process model: get_email rows 'in-process', 'serve' (serve --stdio), 'call' (a JVM per call)%s%s;%n",
                startup.containsKey("aot_cache_p50_ms") ? ", 'call+aot' (with the JDK AOT cache)" : "",
                startup.containsKey("launcher_p50_ms") ? ", 'launcher' (./agent-tools call through its resident server)" : "");
        out.printf(java.util.Locale.ROOT, "  serve --stdio adds %.3f ms p50 over in-process on tools.list (%.3f vs %.3f ms) and answers %d tools.list/s pipelined%n",
                serve.get("serve_added_p50_ms"), serve.get("serve_p50_ms"), serve.get("in_process_p50_ms"),
                serve.get("serve_pipelined_calls_per_second"));
        out.printf(java.util.Locale.ROOT, "  one-shot call start-up (tools.list): p50 %.0f ms%s%s%n", startup.get("plain_p50_ms"),
                startup.containsKey("aot_cache_p50_ms")
                        ? String.format(java.util.Locale.ROOT, ", %.0f ms with the AOT cache", startup.get("aot_cache_p50_ms")) : "",
                startup.containsKey("launcher_p50_ms")
                        ? String.format(java.util.Locale.ROOT, ", %.1f ms through the launcher's resident server", startup.get("launcher_p50_ms")) : "");
        Map<String, Object> first = (Map<String, Object>) m.get("launcher_first_call");
        if (first != null) {
            out.printf(java.util.Locale.ROOT, "  the launcher's first call (starts its server): p50 %.0f ms, max %.0f ms over %s starts%n",
                    first.get("first_call_p50_ms"), first.get("first_call_max_ms"), first.get("first_calls"));
        }
        out.println("  per get_email call:  caller CPU ms | server CPU ms | peak RSS MB (the process the caller starts, or serve) | server RSS MB");
        for (Map<String, Object> c : (List<Map<String, Object>>) m.get("costs")) {
            out.printf(java.util.Locale.ROOT, "    %-10s %13s | %13s | %11s | %s%n", c.get("model"), orDash(c.get("caller_cpu_ms_per_call")),
                    orDash(c.get("server_cpu_ms_per_call")), orDash(c.get("peak_rss_mb")), orDash(c.get("server_rss_mb")));
        }
        out.println("  (CPU from /proc in 10 ms ticks, a mean over the row's runs; in-process CPU is the whole benchmark JVM's,"
                + " the emulator's included when it runs in this JVM)");
    }

    private static String orDash(Object value) {
        return value == null ? "-" : value.toString();
    }

    private static List<String> messageIds(ToolRegistry tools) {
        var params = Json.object().put("max_results", 10).put("strategy", "sequential");
        var emails = tools.call(new ToolCall("gmail.list-emails", params, "bench", null)).data().get("emails");
        List<String> ids = new ArrayList<>();
        emails.forEach(m -> ids.add(m.get("id").asText()));
        if (ids.isEmpty()) {
            throw new IllegalStateException("the mailbox's INBOX is empty: get_email has nothing to fetch");
        }
        return ids;
    }

    private static Map<String, Object> environment(Options o) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("started_at", Instant.now().toString());
        env.put("target", o.target());
        env.put("jdk", Runtime.version().toString() + " (" + System.getProperty("java.vendor") + ")");
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        env.put("cpus", Runtime.getRuntime().availableProcessors());
        env.put("max_heap_mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        env.put("git_commit", gitCommit());
        env.put("runs", o.runs());
        env.put("warmup", o.warmup());
        return env;
    }

    private static Map<String, Object> emulatorSettings(EmulatorConfig c, Emulator e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("latency_ms", c.latency().toMillis());
        m.put("jitter_ms", c.jitter().toMillis());
        m.put("handshake_ms", c.handshake().toMillis());
        m.put("quota_units_per_minute", c.quotaPerMinute());
        m.put("burst_units", c.burst());
        m.put("max_concurrent", c.maxConcurrent());
        m.put("batch_part_cost_ms", c.batchPartCost().toNanos() / 1e6);
        m.put("mailbox", e.mailboxSummary());
        m.put("seed", c.seed());
        return m;
    }

    private static String gitCommit() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor() == 0 ? out : "unknown";
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** A progress bar on a terminal, plain lines otherwise; both on stderr. */
    private static final class Progress implements BenchRunner.Progress, AutoCloseable {
        private final ProgressBar bar;
        private final PrintStream err;
        private boolean closed;

        private Progress(ProgressBar bar, PrintStream err) {
            this.bar = bar;
            this.err = err;
        }

        static Progress open(PrintStream err, long total) {
            boolean terminal = System.console() != null && System.console().isTerminal();
            ProgressBar bar = terminal ? new ProgressBarBuilder().setTaskName("bench").setInitialMax(total)
                    .setStyle(ProgressBarStyle.ASCII).setConsumer(new ConsoleProgressBarConsumer(err))
                    .setUpdateIntervalMillis(200).build() : null;
            return new Progress(bar, err);
        }

        @Override
        public void scenario(Scenario s, int calls) {
            if (bar != null) {
                bar.setExtraMessage(s.label());
            }
        }

        @Override
        public void call() {
            if (bar != null) {
                bar.step();
            }
        }

        @Override
        public void finished(Row r) {
            if (bar == null) {
                err.printf(java.util.Locale.ROOT, "bench: %-16s %-11s n=%-3d p50 %7.1f ms  p90 %7.1f ms  errors %d%n",
                        r.tool(), r.strategy(), r.n(), r.p50Ms(), r.p90Ms(), r.errors());
            }
        }

        /** Ends the bar (idempotent). */
        void finish() {
            if (bar != null && !closed) {
                bar.close();
            }
            closed = true;
        }

        @Override
        public void close() {
            finish();
        }
    }
}
