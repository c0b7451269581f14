package dev.agenttools.bench;

import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.calendar.CalendarTools;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.gmail.GmailTools;
import dev.agenttools.gmail.GmailSettings;
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
     * @param externalTls that process serves HTTPS with HTTP/2 by ALPN, as Gmail is reached (default), not cleartext
     */
    public record Options(String target, int runs, int warmup, int n, List<String> tools, List<String> strategies,
                          Duration latency, List<Integer> sweep, int sweepRuns, Path out, Duration pause,
                          boolean processModel, boolean external, boolean externalTls) {
        /** With the external emulator over TLS. */
        public Options(String target, int runs, int warmup, int n, List<String> tools, List<String> strategies,
                       Duration latency, List<Integer> sweep, int sweepRuns, Path out, Duration pause,
                       boolean processModel, boolean external) {
            this(target, runs, warmup, n, tools, strategies, latency, sweep, sweepRuns, out, pause, processModel, external, true);
        }

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
                tools = emulatorTools(emulator.rootUri().toString(), config).build();
                bounds = emulatorBounds(config, o);
                env.put("emulator", emulatorSettings(config, emulator));
                err.println("bench: emulator at " + emulator.rootUri() + " (" + emulator.mailboxSummary() + ")");
            } else if (isUrl(o.target())) {
                // the server the user runs, reached with the configured client (token, CA certificate, pacing); its
                // latency is what --latency says, and the bound assumes Google's published limits, as for --target gmail
                Settings settings = Settings.load();
                tools = Tools.builder().settings(settings).rootUrl(o.target()).defaultAccessToken("bench-token").build();
                bounds = googleBounds(o, settings);
                counters = RemoteCounters.at(o.target());
                String configured = settings.google().accessToken();
                token = configured == null ? "bench-token" : configured;
                err.println("bench: " + o.target() + (counters == null ? "" : " (an agent-tools emulator: its counters are read)"));
            } else {
                Settings settings = Settings.load();
                tools = Tools.builder().settings(settings).build();
                bounds = googleBounds(o, settings);
            }
            Emulator e = emulator;
            if (e != null) {
                counters = e::counters;
            }
            ToolRegistry externalTools = null;
            if (e != null && o.external()) {
                external = ExternalEmulator.start(o.latency(), o.externalTls());
                externalTools = emulatorTools(external.rootUrl(), EmulatorConfig.builder().latency(o.latency()).build(), external.certificate()).build();
                err.println("bench: and an emulator process of its own at " + external.rootUrl());
            }
            String processRoot = external != null ? external.rootUrl() : e != null ? e.rootUri().toString() : isUrl(o.target()) ? o.target() : null;
            boolean gmail = o.tools().stream().anyMatch(t -> !Scenario.calendarTool(t)) || !o.sweep().isEmpty();
            boolean calendar = o.tools().stream().anyMatch(Scenario::calendarTool);
            Fixtures fixtures = Fixtures.load(tools, gmail, calendar);
            List<Scenario> scenarios = scenarios(o, fixtures.calendars());
            // as users meet it: the fast strategies and the one-item tools, against a process of its own
            List<Scenario> externalScenarios = externalTools == null ? List.of()
                    : scenarios.stream().filter(s -> s.single() || !s.strategy().equals("sequential") && !s.tool().equals("search_emails")).toList();
            List<Scenario> sweep = new ArrayList<>();
            for (int size : o.sweep()) {
                for (String strategy : o.strategies()) {
                    sweep.add(new Scenario("list_emails", strategy, size));
                }
            }
            int bareScenarios = bareScenarios(externalScenarios).size();
            int warmScenarios = o.tools().contains("list_emails") && e != null ? (externalTools != null ? 4 : 2) : 0;
            GoPeer go = externalTools == null ? null : GoPeer.findOrBuild(err).orElse(null);
            long totalCalls = (long) (scenarios.size() + externalScenarios.size() + bareScenarios + warmScenarios) * (o.warmup() + o.runs())
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
                List<Row> rows = runAll(runner, scenarios, o, fixtures);
                boolean warm = o.tools().contains("list_emails") && e != null;
                if (warm) {
                    rows.addAll(warmRows(e.rootUri().toString(), null, counters, bounds, progress, o, fixtures));
                }
                List<Row> externalRows = new ArrayList<>();
                int emulatorWarmed = 0;
                BenchRunner outside = null;
                if (externalTools != null && !externalScenarios.isEmpty()) {
                    RemoteCounters outsideCounters = RemoteCounters.at(external.rootUrl(), external.trust());
                    outside = new BenchRunner(externalTools, outsideCounters, bounds, progress, o.pause());
                    Fixtures externalFixtures = Fixtures.load(externalTools, gmail, calendar);
                    emulatorWarmed = warmEmulator(go, external, token, o);
                    externalRows.addAll(runAll(outside, externalScenarios, o, externalFixtures));
                    if (warm) {
                        externalRows.addAll(warmRows(external.rootUrl(), external.certificate(),
                                outsideCounters, bounds, progress, o, externalFixtures));
                    }
                    externalRows.addAll(bareRows(outside, external, token, o, externalScenarios, externalFixtures));
                    if (go != null) {
                        externalRows.addAll(goRows(go, external, outsideCounters, token, o, externalScenarios, externalFixtures, bounds, progress));
                    }
                }
                Map<String, Object> processModel = null;
                if (o.processModel() && processRoot != null && o.tools().contains("get_email")) {
                    ProcessModelBench models = new ProcessModelBench(tools, processRoot, token,
                            external == null ? null : external.certificate(), bounds, progress);
                    Path jar = ProcessModelBench.ownJar();
                    Path aot = jar == null ? null : jar.resolveSibling("agent-tools.aot");
                    aot = aot != null && java.nio.file.Files.isRegularFile(aot) ? aot : null;
                    rows.addAll(models.rows(o.warmup(), o.runs(), fixtures.messageIds(), aot));
                    processModel = new LinkedHashMap<>();
                    processModel.put("serve_overhead", models.serveOverhead(o.runs(), 5_000));
                    processModel.put("server_overhead", models.serverOverhead());
                    processModel.put("startup", models.startup(Math.min(o.runs(), 20), aot));
                    processModel.put("costs", models.costs());
                    if (models.firstCall() != null) {
                        processModel.put("launcher_first_call", models.firstCall());
                    }
                }
                List<Row> firstCallRows = external != null && o.processModel() && o.tools().contains("get_email")
                        ? firstCallRows(go, o, token, bounds, progress) : List.of();
                List<Row> sweepRows = new ArrayList<>();
                for (Scenario s : sweep) {
                    sweepRows.add(runner.run(s, 1, o.sweepRuns(), fixtures));
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
                    out.println("the same against an emulator process of its own (" + external.rootUrl() + (o.externalTls() ? ", TLS with HTTP/2 by ALPN" : ", cleartext")
                            + ", jitter 0, handshake 0), as users meet it;"
                            + " 'bare': the same HTTP exchanges by the JDK's plain HttpURLConnection (HTTP/1.1, connections kept) and nothing else, the floor this"
                            + " machine allowed in this run; 'go': the article's Go design (the official Go client, a goroutine per message) against the"
                            + " same process (scripts/go-peer builds it)"
                            + (emulatorWarmed > 0 ? "; the process was first warmed by " + emulatorWarmed + " untimed lists of the Go peer, so that"
                            + " the first row does not meet a colder server than the last" : "") + ":");
                    out.print(BenchReport.table(externalRows));
                    env.put("external_emulator", external.rootUrl());
                }
                if (!firstCallRows.isEmpty()) {
                    out.println("the first call of a fresh process against an emulator process with its handshake model on (a new connection's "
                            + "first request waits one latency more, as a TCP and TLS handshake across a network does)" + (o.externalTls() ? ", over TLS" : "")
                            + ": 'go', the Go peer started for one get_email (start, handshake, call, exit); 'launcher-new', ./agent-tools call "
                            + "when its resident server has just started and holds no connection yet; 'launcher', when it holds one:");
                    out.print(BenchReport.table(firstCallRows));
                    env.put("first_call_rows", firstCallRows);
                }
                out.println("bound: the fastest the server's latency, quota and concurrency allow these runs, back to back as run; "
                        + "calls: API calls per tool call; conns: connections opened during the row's runs; "
                        + "429s: calls the server refused (the client retried them)");
                if (warm) {
                    out.println("warm: list_emails asked again with the local mail index, nothing new (messages.list and history.list at "
                            + "once: 5 + 2 = 7 quota units); warm+new: after " + NEW_MAIL_PER_RUN + " new messages were delivered (not "
                            + "timed, and left out of calls), which are then fetched");
                }
                Duration waited = runner.waitedForQuota().plus(outside == null ? Duration.ZERO : outside.waitedForQuota());
                if (calendar) {
                    out.printf(java.util.Locale.ROOT, "list_events: today across the %d calendars the user shows (n), "
                            + "after one calendarList call; each row starts with the Calendar quota it needs (waited %.1f s between rows for it)%n",
                            fixtures.calendars(), waited.toMillis() / 1e3);
                    env.put("waited_for_quota_ms", waited.toMillis());
                }
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
                Map<String, Object> tokenCheck = TokenCheckBench.run(out);
                // a few seconds whatever the options (no Google, no emulator): the targets, beside every run's rows
                Map<String, Object> habit = HabitBench.run(out, Math.clamp(o.runs() * 4L, HabitBench.MIN_RUNS, HabitBench.MAX_RUNS));
                // the Python client's own cost over serve: processes of its own, as the process-model rows
                Map<String, Object> pythonClient = o.processModel() ? PythonClientBench.run(out, Math.clamp(o.runs() * 20L, 200, 2_000)) : null;
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
                    out.println("sweep chart: " + BenchReport.writeChart(o.out(), stamp, sweepRows, bounds.latencyMs()));
                }
                String externalLabel = external != null && external.rootUrl().startsWith("https:") ? "external, TLS" : "external";
                List<Row> drawnOutside = new ArrayList<>(externalRows);
                firstCallRows.forEach(r -> drawnOutside.add(r.withStrategy(SummaryChart.FIRST_CALL + r.strategy())));
                out.println("chart: " + BenchReport.writeSummaryChart(o.out(), stamp, rows, drawnOutside, externalLabel, bounds.latencyMs()));
                if (processModel != null) {
                    env.put("process_model", processModel);
                }
                if (!externalRows.isEmpty()) {
                    env.put("external_rows", externalRows);
                }
                env.put("tracking_overhead", tracking);
                env.put("token_check", tokenCheck);
                env.put("habit", habit);
                if (pythonClient != null) {
                    env.put("python_client", pythonClient);
                }
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

    /** New mail per run of the warm+new row: 1–3 new messages is the case the target names. */
    private static final int NEW_MAIL_PER_RUN = 2;

    /**
     * list_emails with the local mail index, against an emulator: {@code warm} (asked again, nothing new: messages.list
     * and history.list at once) and {@code warm+new} ({@value #NEW_MAIL_PER_RUN} new messages delivered before each run,
     * not timed, then fetched). The index is a file of the run's own, removed after.
     */
    private static List<Row> warmRows(String rootUrl, Path certificate, java.util.function.Supplier<dev.agenttools.emulator.EmulatorCounters> counters,
                                      Bounds bounds, Progress progress, Options o, Fixtures fixtures) throws Exception {
        Path dir = java.nio.file.Files.createTempDirectory("agent-tools-bench-index");
        try {
            ToolRegistry tools = emulatorTools(rootUrl, EmulatorConfig.builder().latency(o.latency()).build(), certificate)
                    .mailIndex(dir.resolve("mail-index.db")).build();
            BenchRunner runner = new BenchRunner(tools, counters, bounds, progress, o.pause());
            List<Row> rows = new ArrayList<>();
            rows.add(runner.run(new Scenario("list_emails", "warm", o.n()), Math.max(1, o.warmup()), o.runs(), fixtures, run -> 0));
            java.net.http.HttpClient.Builder client = java.net.http.HttpClient.newBuilder();
            if (certificate != null) {
                client.sslContext(dev.agenttools.Tools.trusting(certificate));
            }
            try (java.net.http.HttpClient http = client.build()) {
                rows.add(runner.run(new Scenario("list_emails", "warm+new", o.n()), Math.max(1, o.warmup()), o.runs(), fixtures,
                        run -> deliver(http, rootUrl, run)));
            }
            return rows;
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.deleteIfExists(f);
                }
            }
        }
    }

    /** Delivers {@value #NEW_MAIL_PER_RUN} new messages to the emulator's inbox (messages.insert); answers the calls made. */
    private static int deliver(java.net.http.HttpClient http, String rootUrl, int run) {
        for (int i = 0; i < NEW_MAIL_PER_RUN; i++) {
            String raw = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(("From: Bench <bench@example.org>\r\n"
                    + "To: me@example.com\r\nSubject: New mail " + run + "." + i + "\r\nMessage-ID: <bench." + run + "." + i
                    + "@example.org>\r\n\r\nArrived during the benchmark.\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            try {
                var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(rootUrl + (rootUrl.endsWith("/") ? "" : "/")
                                + "gmail/v1/users/me/messages")).header("Authorization", "Bearer bench-token")
                        .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"raw\": \"" + raw + "\", \"labelIds\": [\"INBOX\", \"UNREAD\"]}")).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("the emulator refused new mail: HTTP " + r.statusCode() + " " + r.body());
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot deliver new mail to " + rootUrl, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        return NEW_MAIL_PER_RUN;
    }

    /** The tools against an agent-tools emulator (to build), pacing themselves to its limits as a user would configure them. */
    private static Tools.Builder emulatorTools(String rootUrl, EmulatorConfig config) {
        return emulatorTools(rootUrl, config, null);
    }

    /** As above, trusting {@code certificate} (PEM) too when not null: an emulator's served over TLS. */
    private static Tools.Builder emulatorTools(String rootUrl, EmulatorConfig config, Path certificate) {
        int calendarQuota = config.calendarQuotaPerMinute();
        Tools.Builder b = Tools.builder();
        if (certificate != null) {
            b.trustCertificate(certificate);
        }
        return b.rootUrl(rootUrl)
                .pacing(config.quotaPerMinute(), config.burst(), config.maxConcurrent())
                // the emulator, like Google, lets a minute's Calendar requests go at once
                .calendarPacing(calendarQuota, calendarQuota, config.maxConcurrent())
                .defaultAccessToken("bench-token");
    }

    private static Bounds emulatorBounds(EmulatorConfig config, Options o) {
        return new Bounds(config.latency().toNanos() / 1e6,
                new Bounds.Quota(config.quotaPerMinute(), config.burst(), Bounds.Quota.GMAIL.unitsPerCall()),
                new Bounds.Quota(config.calendarQuotaPerMinute(), config.calendarQuotaPerMinute(), Bounds.Quota.CALENDAR.unitsPerCall()),
                config.maxConcurrent(), GmailSettings.DEFAULT_BATCH_SIZE, config.batchPartCost().toNanos() / 1e6, o.pause().toNanos() / 1e6);
    }

    /** Google's published limits, or the client's own pacing where that is tighter (Calendar's burst, by default). */
    private static Bounds googleBounds(Options o, Settings settings) {
        CalendarSettings client = settings.calendar();
        Bounds.Quota google = Bounds.Quota.CALENDAR;
        Bounds.Quota calendar = new Bounds.Quota(Math.min(google.unitsPerMinute(), client.quotaPerMinute()),
                Math.min(google.burstUnits(), client.burst()), google.unitsPerCall());
        return new Bounds(o.latency().toNanos() / 1e6, Bounds.Quota.GMAIL, calendar, 20, GmailSettings.DEFAULT_BATCH_SIZE, 0,
                o.pause().toNanos() / 1e6);
    }

    /**
     * The rows in table order: each tool with each strategy; get_email and get_event once (one item is one call
     * whatever the strategy: they have none, and answer as sequential); list_events across the shown calendars.
     */
    private static List<Scenario> scenarios(Options o, int calendars) {
        List<Scenario> scenarios = new ArrayList<>();
        for (String tool : o.tools()) {
            Scenario probe = new Scenario(tool, "sequential", 1);
            if (probe.single()) {
                scenarios.add(probe);
                continue;
            }
            for (String strategy : o.strategies()) {
                scenarios.add(new Scenario(tool, strategy, tool.equals("list_events") ? calendars : o.n()));
            }
        }
        return scenarios;
    }

    /**
     * Runs the rows and answers them in table order. The fast list_events rows, which spend a third of a minute's
     * Calendar quota each, run first and last, so that the Gmail rows between them refill the bucket instead of
     * the benchmark waiting for it ({@link BenchRunner} waits for whatever is left).
     */
    private static List<Row> runAll(BenchRunner runner, List<Scenario> scenarios, Options o, Fixtures fixtures)
            throws InterruptedException {
        List<Scenario> drains = scenarios.stream().filter(s -> s.calendar() && !s.single() && !s.strategy().equals("sequential")).toList();
        List<Scenario> order = new ArrayList<>();
        if (!drains.isEmpty()) {
            order.add(drains.get(0));
        }
        scenarios.stream().filter(s -> !drains.contains(s)).forEach(order::add);
        order.addAll(drains.subList(Math.min(1, drains.size()), drains.size()));
        Map<Scenario, Row> rows = new java.util.HashMap<>();
        for (Scenario s : order) {
            rows.put(s, runner.run(s, o.warmup(), o.runs(), fixtures));
        }
        return new ArrayList<>(scenarios.stream().map(rows::get).toList());
    }

    /** The {@link BareClient}'s rows beside the external ones: the lists' fast strategies and the one-item tools, as run. */
    private static List<Scenario> bareScenarios(List<Scenario> external) {
        List<Scenario> bare = new ArrayList<>();
        for (Scenario s : external) {
            Scenario floor = new Scenario(s.tool(), BareClient.STRATEGY, s.n());
            if (!bare.contains(floor)) {
                bare.add(floor);
            }
        }
        return bare;
    }

    private static List<Row> bareRows(BenchRunner runner, ExternalEmulator emulator, String token, Options o, List<Scenario> external,
                                      Fixtures fixtures) throws InterruptedException {
        String rootUrl = emulator.rootUrl();
        List<Row> rows = new ArrayList<>();
        // the tools' own field masks, so that the server does the same work for the bare client as for them
        List<String> masks = new ArrayList<>(GmailTools.LIST_FIELD_MASKS);
        masks.addAll(CalendarTools.LIST_FIELD_MASKS);
        try (BareClient bare = new BareClient(rootUrl, token, masks, emulator.trust())) {
            for (Scenario s : bareScenarios(external)) {
                rows.add(runner.run(s, o.warmup(), o.runs(), run -> {
                    try {
                        int listed = switch (s.tool()) {
                            case "get_email" -> bare.message(fixtures.messageId(run)).length > 0 ? 1 : 0;
                            case "get_event" -> bare.event(fixtures.event(run).calendarId(), fixtures.event(run).eventId()).length > 0 ? 1 : 0;
                            case "list_events" -> bare.agenda();
                            default -> bare.list(s.n()).size();
                        };
                        if (listed != s.n()) {
                            throw new java.io.IOException("got " + listed + " items, not " + s.n());
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

    /**
     * Warms the emulator process before its first timed row: it is a JVM too, and over a row's runs its own answers
     * get ~5 ms faster (the Go peer measured 309 ms p50 over a fresh process's first 30 lists, 304 once it had served
     * 200), which favoured whichever row ran last, the Go one. The Go peer does it, from a process of its own, so that
     * nothing in this JVM (the one measured) warms too; without it the rows run as they are and the table says so.
     *
     * @return the lists sent (0 when there is no Go peer or it failed)
     */
    private static int warmEmulator(GoPeer go, ExternalEmulator emulator, String token, Options o)
            throws InterruptedException {
        if (go == null || !o.tools().contains("list_emails")) {
            return 0;
        }
        int lists = o.warmup() + o.runs();
        try {
            GoPeer.Samples s = go.list(emulator.rootUrl(), token, emulator.certificate(), o.n(), 0, lists);
            return s.errors() == lists ? 0 : lists - s.errors();
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("bench: warming the emulator process by the Go peer failed: " + e.getMessage());
            return 0;
        }
    }

    /**
     * The article's Go design against the same emulator process, in the same minutes ({@link GoPeer}): list_emails(n)
     * and get_email, each in one Go process that times its own runs, as the rows above are timed in this JVM.
     */
    private static List<Row> goRows(GoPeer go, ExternalEmulator emulator, RemoteCounters counters, String token, Options o,
                                    List<Scenario> external, Fixtures fixtures, Bounds bounds, Progress progress) {
        List<Row> rows = new ArrayList<>();
        for (Scenario s : external) {
            boolean list = s.tool().equals("list_emails") && s.strategy().equals("concurrent");
            boolean get = s.tool().equals("get_email");
            if (!list && !get) {
                continue;
            }
            Scenario peer = new Scenario(s.tool(), GoPeer.STRATEGY, s.n());
            progress.scenario(peer, o.warmup() + o.runs());
            try {
                var before = counters == null ? null : counters.get();
                GoPeer.Samples samples = list
                        ? go.list(emulator.rootUrl(), token, emulator.certificate(), s.n(), o.warmup(), o.runs())
                        : go.get(emulator.rootUrl(), token, emulator.certificate(), fixtures.messageIds(), o.warmup(), o.runs());
                var after = counters == null ? null : counters.get();
                Row row = Row.of(s.tool(), GoPeer.STRATEGY, s.n(), o.warmup(), samples.runsMs(), samples.errors(),
                        before == null ? -1 : (after.apiCalls() - before.apiCalls()) / (double) (o.warmup() + o.runs()),
                        before == null ? -1 : after.connectionsOpened() - before.connectionsOpened(),
                        before == null ? 0 : after.quotaRejections() - before.quotaRejections()
                                + after.concurrencyRejections() - before.concurrencyRejections(),
                        bounds.of(s, o.warmup(), o.runs()));
                progress.finished(row);
                rows.add(row);
            } catch (java.io.IOException | RuntimeException e) {
                System.err.println("bench: the Go peer's " + s.tool() + " row failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return rows;
            }
        }
        return rows;
    }

    /** Fresh processes, each run its own, are slow to start: fewer runs than the other rows. */
    private static final int MAX_FIRST_CALL_RUNS = 20;

    /**
     * get_email as the first call of a fresh process against an emulator process of its own with the handshake model
     * on: the Go peer started per call, as the article's agent starts its binary (each run a new process, a new
     * connection and, over TLS, a new handshake), beside agent-tools' launcher, whose resident server either has
     * just started ({@code launcher-new}: a new connection, the same handshake) or holds its connection
     * ({@code launcher}: what an agent's calls after the first meet).
     */
    private static List<Row> firstCallRows(GoPeer go, Options o, String token, Bounds bounds, Progress progress) throws Exception {
        List<Row> rows = new ArrayList<>();
        int runs = Math.min(o.runs(), MAX_FIRST_CALL_RUNS);
        try (ExternalEmulator emulator = ExternalEmulator.start(o.latency(), o.externalTls(), o.latency())) {
            ToolRegistry tools = emulatorTools(emulator.rootUrl(), EmulatorConfig.builder().latency(o.latency()).build(),
                    emulator.certificate()).build();
            try {
                List<String> ids = Fixtures.load(tools, true, false).messageIds();
                if (go != null) {
                    Scenario s = new Scenario("get_email", GoPeer.STRATEGY, 1);
                    progress.scenario(s, runs);
                    List<Double> ok = new ArrayList<>();
                    int errors = 0;
                    for (int i = 0; i < runs; i++) {
                        try {
                            ok.add(go.firstCallNanos(emulator.rootUrl(), token, emulator.certificate(), ids.get(i % ids.size())) / 1e6);
                        } catch (java.io.IOException e) {
                            errors++;
                            System.err.println("bench: the Go peer's first call failed: " + e.getMessage());
                        }
                        progress.call();
                    }
                    Row row = Row.of("get_email", GoPeer.STRATEGY, 1, 0, ok, errors, 1, runs, 0, 2 * bounds.latencyMs());
                    progress.finished(row);
                    rows.add(row);
                }
                ProcessModelBench models = new ProcessModelBench(tools, emulator.rootUrl(), token, emulator.certificate(), bounds, progress);
                Row fresh = models.launcherNewConnectionRow(Math.min(runs, MAX_FIRST_CALL_RUNS / 2), ids);
                if (fresh != null) {
                    rows.add(fresh);
                    rows.add(models.launcherRowAlone(o.warmup(), runs, ids));
                }
            } finally {
                tools.close();
            }
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private static void printProcessModel(java.io.PrintWriter out, Map<String, Object> m) {
        Map<String, Object> serve = (Map<String, Object>) m.get("serve_overhead");
        Map<String, Object> startup = (Map<String, Object>) m.get("startup");
        out.printf(java.util.Locale.ROOT, "process model: get_email rows 'in-process', 'serve' (serve --stdio), 'server-call' and 'server-mcp' "
                        + "(agent-tools server's POST /v1/call and MCP /mcp, one keep-alive HTTP/1.1 connection), 'call' (a JVM per call)%s%s;%n",
                startup.containsKey("aot_cache_p50_ms") ? ", 'call+aot' (with the JDK AOT cache)" : "",
                startup.containsKey("launcher_p50_ms") ? ", 'launcher' (./agent-tools call through its resident server)" : "");
        out.printf(java.util.Locale.ROOT, "  serve --stdio adds %.3f ms p50 over in-process on tools.list (%.3f vs %.3f ms) and answers %d tools.list/s pipelined%n",
                serve.get("serve_added_p50_ms"), serve.get("serve_p50_ms"), serve.get("in_process_p50_ms"),
                serve.get("serve_pipelined_calls_per_second"));
        Map<String, Object> server = (Map<String, Object>) m.get("server_overhead");
        if (server != null) {
            out.printf(java.util.Locale.ROOT, "  agent-tools server adds %.3f ms p50 over in-process on tools.list through /v1/call (%.3f vs %.3f ms), "
                            + "%.3f ms through MCP's /mcp tools/list (%.3f ms), warmed by 2,000 calls%n",
                    server.get("call_added_p50_ms"), server.get("call_p50_ms"), server.get("in_process_p50_ms"),
                    server.get("mcp_added_p50_ms"), server.get("mcp_p50_ms"));
        }
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
