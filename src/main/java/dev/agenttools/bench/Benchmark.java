package dev.agenttools.bench;

import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.calendar.CalendarTools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.EmulatorCounters;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.gmail.GmailTools;
import dev.agenttools.tool.ToolRegistry;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The article's experiment and more, by part ({@link Part}): by default only the article's own rows (list_emails(n) with
 * each strategy and the Go peer, get_email; 1 warm-up + 50 runs, percentiles, speedup against sequential and the
 * physical bound beside each row) against an emulator process of its own, in about three minutes; every other part
 * on request. Against the embedded emulator by default (no account needed), a root URL, or real Gmail read-only.
 */
public final class Benchmark {
    /** The benchmark's parts, named as users type them; each prints its table when its rows are done. */
    public enum Part {
        article("the article's experiment: list_emails(n) sequential, concurrent, batch and the Go peer; get_email"),
        tools("every tool with every strategy against the emulator in this JVM, the Calendar tools against the process too"),
        index("list_emails with the local mail index: asked again with nothing new, and after new mail"),
        floors("the bare JDK client: the same HTTP exchanges and nothing else, the floor this machine allows"),
        process("get_email by process model (in-process, serve, server, a JVM per call, the launcher), start-up, first calls"),
        extras("tracking's overhead, the token check, the Habit tools, the Python client, HTML decoding");

        /** What the part measures, for help and docs. */
        public final String description;

        Part(String description) {
            this.description = description;
        }

        /** Every part: {@code bench --all}. */
        public static Set<Part> all() {
            return EnumSet.allOf(Part.class);
        }
    }

    /**
     * What to run.
     *
     * @param target    {@code emulator} or {@code gmail}
     * @param sweep     sizes of list_emails to sweep over (empty: no sweep)
     * @param sweepRuns measured runs per sweep point
     * @param external  with the embedded emulator, run the article's rows (and the others' that say so) against an
     *                  emulator process of its own, as users meet it, rather than the one in this JVM
     * @param externalTls that process serves HTTPS with HTTP/2 by ALPN, as Gmail is reached (default), not cleartext
     * @param parts     the parts to run
     */
    public record Options(String target, int runs, int warmup, int n, List<String> tools, List<String> strategies,
                          Duration latency, List<Integer> sweep, int sweepRuns, Path out, Duration pause,
                          boolean external, boolean externalTls, Set<Part> parts) {
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
            if (parts.isEmpty() && sweep.isEmpty()) {
                throw new IllegalArgumentException("parts must name at least one of " + EnumSet.allOf(Part.class) + " (or give a sweep)");
            }
            tools = List.copyOf(tools);
            strategies = List.copyOf(strategies);
            sweep = List.copyOf(sweep);
            parts = parts.isEmpty() ? EnumSet.noneOf(Part.class) : EnumSet.copyOf(parts);
        }

        boolean has(Part p) {
            return parts.contains(p);
        }
    }

    private Benchmark() {
    }

    /** A root URL target: an emulator running on its own ({@code ./agent-tools emulator}), or any Gmail-compatible server. */
    static boolean isUrl(String target) {
        return target.startsWith("http://") || target.startsWith("https://");
    }

    /** Runs the benchmark; returns 0, or 1 when any call failed, 130 when interrupted. */
    public static int run(Options o, PrintWriter out, PrintStream err) throws Exception {
        try (Session session = Session.open(o, err)) {
            return session.run(out, err);
        }
    }

    /** Where a part's calls go: the tools, their server's counters (when known) and its fixtures. */
    private record Target(ToolRegistry tools, Supplier<EmulatorCounters> counters, Fixtures fixtures) {
    }

    /** One run: the emulators it started, the tools against each, the plan, and what each part measured. */
    private static final class Session implements AutoCloseable {
        private final Options o;
        private Emulator embedded;
        private ExternalEmulator external;
        /** Against the target: the emulator in this JVM, a root URL or Gmail (null when no part needs it). */
        private Target main;
        /** Against the emulator process of its own (null without one). */
        private Target outside;
        private ToolRegistry outsideTools;
        private ToolRegistry mainTools;
        private GoPeer go;
        private Bounds bounds;
        private String token = "bench-token";
        private final Map<String, Object> env;
        /** The results JSON: environment, parts, rows by part, then each part's other figures. */
        private final Map<String, Object> results = new LinkedHashMap<>();
        private final Map<String, List<Row>> rows = new LinkedHashMap<>();
        private final List<BenchRunner> runners = new ArrayList<>();
        private BenchProgress progress;
        private final String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());

        private Session(Options o) {
            this.o = o;
            this.env = environment(o);
        }

        static Session open(Options o, PrintStream err) throws Exception {
            Session s = new Session(o);
            try {
                s.start(err);
                return s;
            } catch (Exception | Error e) {
                s.close();
                throw e;
            }
        }

        private boolean gmail() {
            return o.tools().stream().anyMatch(t -> !Scenario.calendarTool(t)) || !o.sweep().isEmpty();
        }

        private boolean calendar() {
            return o.tools().stream().anyMatch(Scenario::calendarTool);
        }

        /** Starts what the parts asked for need: the emulator in this JVM, the emulator process, the Go peer. */
        private void start(PrintStream err) throws Exception {
            boolean emulatorTarget = o.target().equals("emulator");
            boolean wantsOutside = emulatorTarget && o.external() && (o.has(Part.article) || o.has(Part.tools)
                    || o.has(Part.index) || o.has(Part.floors) || o.has(Part.process));
            boolean wantsMain = !emulatorTarget || !wantsOutside || o.has(Part.tools) || o.has(Part.index) || !o.sweep().isEmpty();
            if (emulatorTarget) {
                EmulatorConfig config = EmulatorConfig.builder().latency(o.latency()).build();
                bounds = emulatorBounds(config, o);
                if (wantsMain) {
                    embedded = Emulator.start(config);
                    mainTools = emulatorTools(embedded.rootUri().toString(), config).build();
                    env.put("emulator", emulatorSettings(config, embedded));
                    err.println("bench: emulator in this JVM at " + embedded.rootUri() + " (" + embedded.mailboxSummary() + ")");
                    Emulator e = embedded;
                    main = new Target(mainTools, e::counters, Fixtures.load(mainTools, gmail(), calendar()));
                }
                if (wantsOutside) {
                    external = ExternalEmulator.start(o.latency(), o.externalTls());
                    outsideTools = emulatorTools(external.rootUrl(), config, external.certificate()).build();
                    err.println("bench: emulator process of its own at " + external.rootUrl());
                    Map<String, Object> process = new LinkedHashMap<>();
                    process.put("root_url", external.rootUrl());
                    process.put("tls", o.externalTls());
                    process.put("latency_ms", o.latency().toMillis());
                    process.put("jitter_ms", 0); // as ExternalEmulator starts it: the article's conditions, no noise added
                    process.put("handshake_ms", 0);
                    env.put("external_emulator", process);
                    outsideCounters = RemoteCounters.at(external.rootUrl(), external.trust());
                    outside = new Target(outsideTools, outsideCounters,
                            Fixtures.load(outsideTools, gmail(), calendar()));
                    if (o.has(Part.article) || o.has(Part.process)) {
                        go = GoPeer.findOrBuild(err).orElse(null);
                    }
                }
            } else {
                // the server the user runs, reached with the configured client (token, CA certificate, pacing); its
                // latency is what --latency says, and the bound assumes Google's published limits
                Settings settings = Settings.load();
                Tools.Builder b = Tools.builder().settings(settings);
                if (isUrl(o.target())) {
                    b.rootUrl(o.target()).defaultAccessToken("bench-token");
                    String configured = settings.google().accessToken();
                    token = configured == null ? "bench-token" : configured;
                }
                mainTools = b.build();
                bounds = googleBounds(o, settings);
                Supplier<EmulatorCounters> counters = isUrl(o.target()) ? RemoteCounters.at(o.target()) : null;
                err.println("bench: " + o.target() + (counters == null ? "" : " (an agent-tools emulator: its counters are read)"));
                main = new Target(mainTools, counters, Fixtures.load(mainTools, gmail(), calendar()));
            }
        }

        /** Where the article's rows (and the process models) go: the emulator process when there is one. */
        private Target near() {
            return outside != null ? outside : main;
        }

        private String processRoot() {
            return external != null ? external.rootUrl() : embedded != null ? embedded.rootUri().toString()
                    : isUrl(o.target()) ? o.target() : null;
        }

        /** The article's scenarios: list_emails(n) with each strategy asked for, and get_email. */
        private List<Scenario> articleScenarios() {
            List<Scenario> s = new ArrayList<>();
            if (o.tools().contains("list_emails")) {
                o.strategies().forEach(strategy -> s.add(new Scenario("list_emails", strategy, o.n())));
            }
            if (o.tools().contains("get_email")) {
                s.add(new Scenario("get_email", "sequential", 1));
            }
            return s;
        }

        /** The tools part's rows against the target: every tool and strategy, less the article's when it ran there. */
        private List<Scenario> toolScenarios() {
            List<Scenario> all = scenarios(o, main == null ? 0 : main.fixtures().calendars());
            if (o.has(Part.article) && outside == null) {
                all.removeAll(articleScenarios());
            }
            return all;
        }

        /** The tools part's rows against the emulator process: the Calendar tools' fast strategies and get_event. */
        private List<Scenario> toolScenariosOutside() {
            if (outside == null) {
                return List.of();
            }
            return scenarios(o, outside.fixtures().calendars()).stream()
                    .filter(s -> s.calendar() && (s.single() || !s.strategy().equals("sequential"))).toList();
        }

        /** What a call of {@code s} is expected to take: its bound, or a process's start for the process models. */
        private double msPerCall(Scenario s) {
            double latency = bounds.latencyMs();
            return switch (s.strategy()) {
                case "call", "call+aot" -> latency + 700;
                case "launcher-new" -> latency + 1_500;
                case "in-process", "serve", "server-call", "server-mcp", "launcher" -> latency + 3;
                case "bare", "go" -> bounds.of(new Scenario(s.tool(), "concurrent", s.n()));
                default -> bounds.of(s) + o.pause().toMillis();
            };
        }

        private double rowsMs(List<Scenario> scenarios, int warmup, int runs) {
            return scenarios.stream().mapToDouble(s -> msPerCall(s) * (warmup + runs)).sum();
        }

        /** Each part's expected milliseconds, in the order they run: the progress bar's fixed total. */
        private Map<String, Double> plan() {
            int calls = o.warmup() + o.runs();
            Map<String, Double> plan = new LinkedHashMap<>();
            if (o.has(Part.article)) {
                List<Scenario> article = articleScenarios();
                double ms = rowsMs(article, o.warmup(), o.runs());
                if (go != null && outside != null) {
                    List<Scenario> peer = article.stream().filter(s -> s.single() || s.strategy().equals("concurrent"))
                            .map(s -> new Scenario(s.tool(), "go", s.n())).toList();
                    ms += rowsMs(peer, o.warmup(), o.runs()) + WARMING_LISTS * msPerCall(peer.get(0));
                }
                plan.put(Part.article.name(), ms);
            }
            if (o.has(Part.tools)) {
                plan.put(Part.tools.name(), rowsMs(toolScenarios(), o.warmup(), o.runs()) + rowsMs(toolScenariosOutside(), o.warmup(), o.runs()));
            }
            if (o.has(Part.index) && o.tools().contains("list_emails")) {
                int places = (main != null && embedded != null ? 1 : 0) + (outside != null ? 1 : 0);
                plan.put(Part.index.name(), places * (calls + 1) * 3.0 * bounds.latencyMs());
            }
            if (o.has(Part.floors) && outside != null) {
                plan.put(Part.floors.name(), rowsMs(bareScenarios(floorScenarios()), o.warmup(), o.runs()));
            }
            if (o.has(Part.process) && processRoot() != null && o.tools().contains("get_email")) {
                List<Scenario> models = List.of("in-process", "serve", "server-call", "server-mcp", "call", "call+aot", "launcher")
                        .stream().map(m -> new Scenario("get_email", m, 1)).toList();
                int firstCalls = Math.min(o.runs(), MAX_FIRST_CALL_RUNS);
                // start-up's runs, the servers' 2,000 warming calls, the first calls' fresh processes
                plan.put(Part.process.name(), rowsMs(models, o.warmup(), o.runs()) + Math.min(o.runs(), 20) * 3 * 700.0 + 8_000
                        + firstCalls * (2 * bounds.latencyMs() + 60) + firstCalls / 2.0 * 2_000 + calls * (bounds.latencyMs() + 3));
            }
            if (o.has(Part.extras)) {
                plan.put(Part.extras.name(), 25_000.0 + o.runs() * 40.0);
            }
            if (!o.sweep().isEmpty()) {
                double ms = 0;
                for (int size : o.sweep()) {
                    for (String strategy : o.strategies()) {
                        ms += msPerCall(new Scenario("list_emails", strategy, size)) * (1 + o.sweepRuns());
                    }
                }
                plan.put("sweep", ms);
            }
            return plan;
        }

        int run(PrintWriter out, PrintStream err) throws Exception {
            this.out = out;
            results.put("environment", env);
            results.put("parts", o.parts().stream().map(Part::name).toList());
            results.put("rows", rows);
            AtomicBoolean done = new AtomicBoolean();
            Thread reporter = new Thread(() -> {
                if (!done.get()) {
                    out.println("\nbench: interrupted; what finished:");
                    List<Row> finished = new ArrayList<>();
                    runners.forEach(r -> finished.addAll(r.finished()));
                    out.print(BenchReport.table(BenchReport.withSpeedups(finished)));
                    out.flush();
                }
            });
            Runtime.getRuntime().addShutdownHook(reporter);
            try (BenchProgress p = BenchProgress.open(err, plan(), this::msPerCall)) {
                progress = p;
                print("agent-tools bench: " + o.target() + ", latency " + o.latency().toMillis() + " ms, " + o.warmup()
                        + " warm-up + " + o.runs() + " runs per row; parts " + o.parts().stream().map(Part::name).toList()
                        + (o.sweep().isEmpty() ? "" : " and a sweep") + "\n");
                if (o.has(Part.article)) {
                    article();
                }
                if (o.has(Part.tools)) {
                    tools();
                }
                if (o.has(Part.index) && o.tools().contains("list_emails")) {
                    index();
                }
                if (o.has(Part.floors) && outside != null) {
                    floors();
                }
                if (o.has(Part.process) && processRoot() != null && o.tools().contains("get_email")) {
                    process();
                }
                if (o.has(Part.extras)) {
                    extras();
                }
                if (!o.sweep().isEmpty()) {
                    sweep();
                }
                done.set(true);
                Runtime.getRuntime().removeShutdownHook(reporter);
                p.finish();
            }
            out.println();
            out.println(BenchReport.wrap("bound: the fastest the server's latency, quota and concurrency allow these runs, back to "
                    + "back as run; calls: API calls per tool call; conns: connections opened during the row's runs; "
                    + "429s: calls the server refused (the client retried them)", BenchReport.COLUMNS));
            totals();
            charts();
            out.println("results: " + BenchReport.writeJson(o.out(), stamp, results));
            out.flush();
            boolean failures = rows.values().stream().flatMap(List::stream).anyMatch(r -> r.errors() > 0);
            return failures ? 1 : 0;
        }

        private void print(String text) {
            progress.print(out, BenchReport.wrap(text, BenchReport.COLUMNS));
        }

        private PrintWriter out;

        private BenchRunner runner(Target t) {
            BenchRunner r = new BenchRunner(t.tools(), t.counters(), bounds, progress, o.pause());
            runners.add(r);
            return r;
        }

        private String outsideName() {
            return "an emulator process of its own (" + external.rootUrl() + (o.externalTls() ? ", TLS with HTTP/2 by ALPN" : ", cleartext")
                    + ", jitter 0, handshake 0)";
        }

        private String nearName() {
            return outside != null ? outsideName() : embedded != null ? "the emulator in this JVM" : o.target();
        }

        /** The article's rows, then a line per tool that sets them beside the article's figures. */
        private void article() throws Exception {
            progress.part(Part.article.name());
            Target t = near();
            List<Scenario> scenarios = articleScenarios();
            int warmed = 0;
            if (go != null && outside != null) {
                progress.phase("the Go peer warms the emulator process");
                warmed = warmEmulator(go, external, token, o);
            }
            List<Row> article = runAll(runner(t), scenarios, o, t.fixtures());
            if (go != null && outside != null) {
                article.addAll(goRows(go, external, outsideCounters, token, o, scenarios, outside.fixtures(), bounds, progress));
            }
            article = BenchReport.withSpeedups(article);
            rows.put(Part.article.name(), article);
            StringBuilder text = new StringBuilder("\nthe article's experiment, against " + nearName()
                    + (go != null && outside != null ? "; 'go': the article's Go design (the official Go client, a goroutine per message, "
                    + "built by scripts/bench/go-peer) against the same process" : "")
                    + (warmed > 0 ? "; the process was first warmed by " + warmed + " untimed lists of the Go peer, so that the first row "
                    + "does not meet a colder server than the last" : "") + ":\n");
            text.append(BenchReport.table(article));
            text.append(articleSummary(article));
            print(text.toString());
        }

        /** "list_emails(10), p50: sequential 1712 ms (the article's Python: 1659 ms), ..." and get_email's line. */
        private String articleSummary(List<Row> article) {
            StringBuilder b = new StringBuilder();
            Map<String, Row> list = new LinkedHashMap<>();
            Map<String, Row> get = new LinkedHashMap<>();
            article.forEach(r -> (r.tool().equals("list_emails") ? list : get).put(r.strategy(), r));
            boolean ten = o.n() == 10;
            if (!list.isEmpty()) {
                List<String> parts = new ArrayList<>();
                list.forEach((strategy, r) -> parts.add(String.format(Locale.ROOT, "%s %.0f ms%s", strategy, r.p50Ms(),
                        !ten ? "" : strategy.equals("sequential") ? " (the article's Python: 1659)"
                                : strategy.equals(GoPeer.STRATEGY) ? " (the article's Go: 310)" : "")));
                b.append("list_emails(").append(o.n()).append("), p50: ").append(String.join(" · ", parts));
                Row seq = list.get("sequential");
                Row fastest = list.values().stream().filter(r -> Scenario.STRATEGIES.contains(r.strategy()) && Double.isFinite(r.p50Ms()))
                        .min(Comparator.comparingDouble(Row::p50Ms)).orElse(null);
                if (seq != null && fastest != null && fastest != seq) {
                    b.append(String.format(Locale.ROOT, "; %s is %.1f× faster than sequential", fastest.strategy(), seq.p50Ms() / fastest.p50Ms()));
                }
                b.append('\n');
            }
            if (!get.isEmpty()) {
                List<String> parts = new ArrayList<>();
                get.forEach((strategy, r) -> parts.add(String.format(Locale.ROOT, "%s %.0f ms", strategy.equals("sequential")
                        ? "agent-tools" : strategy, r.p50Ms())));
                b.append("get_email, p50: ").append(String.join(" · ", parts)).append(" (the article: ~150 in both)\n");
            }
            return b.toString();
        }

        private RemoteCounters outsideCounters;

        /** Every tool with every strategy against the target, and the Calendar tools' fast ones against the process. */
        private void tools() throws Exception {
            progress.part(Part.tools.name());
            List<Row> tools = BenchReport.withSpeedups(runAll(runner(main), toolScenarios(), o, main.fixtures()));
            rows.put(Part.tools.name(), tools);
            StringBuilder text = new StringBuilder("\nevery tool with every strategy, against " + (embedded != null
                    ? "the emulator in this JVM" : o.target()) + ":\n").append(BenchReport.table(tools));
            List<Scenario> outsideScenarios = toolScenariosOutside();
            if (!outsideScenarios.isEmpty()) {
                List<Row> more = runAll(runner(outside), outsideScenarios, o, outside.fixtures());
                rows.put("tools_external", more);
                text.append("and against ").append(outsideName()).append(":\n").append(BenchReport.table(more));
            }
            if (calendar()) {
                Duration waited = runners.stream().map(BenchRunner::waitedForQuota).reduce(Duration.ZERO, Duration::plus);
                text.append(String.format(Locale.ROOT, "list_events: today across the %d calendars the user shows (n), after one "
                        + "calendarList call; each row starts with the Calendar quota it needs (waited %.1f s between rows for it)%n",
                        main.fixtures().calendars(), waited.toMillis() / 1e3));
                results.put("waited_for_quota_ms", waited.toMillis());
            }
            print(text.toString());
        }

        /** list_emails with the local mail index, in this JVM's emulator and in the process's. */
        private void index() throws Exception {
            progress.part(Part.index.name());
            StringBuilder text = new StringBuilder("\nlist_emails with the local mail index: 'warm', asked again with nothing new "
                    + "(messages.list and history.list at once: 5 + 2 = 7 quota units); 'warm+new', after " + NEW_MAIL_PER_RUN
                    + " new messages were delivered (not timed, and left out of calls), which are then fetched:\n");
            if (embedded != null) {
                List<Row> warm = warmRows(embedded.rootUri().toString(), null, main.counters(), bounds, progress, o, main.fixtures());
                rows.put(Part.index.name(), warm);
                text.append("against the emulator in this JVM:\n").append(BenchReport.table(warm));
            }
            if (outside != null) {
                List<Row> warm = warmRows(external.rootUrl(), external.certificate(), outside.counters(), bounds, progress, o, outside.fixtures());
                rows.put("index_external", warm);
                text.append("against ").append(outsideName()).append(":\n").append(BenchReport.table(warm));
            }
            print(text.toString());
        }

        /** The scenarios with a bare floor: the lists' fast strategies and the one-item tools. */
        private List<Scenario> floorScenarios() {
            return scenarios(o, outside.fixtures().calendars()).stream()
                    .filter(s -> s.single() || !s.strategy().equals("sequential") && !s.tool().equals("search_emails")).toList();
        }

        private void floors() throws Exception {
            progress.part(Part.floors.name());
            List<Row> bare = bareRows(runner(outside), external, token, o, floorScenarios(), outside.fixtures());
            rows.put(Part.floors.name(), bare);
            print("\n'bare': the same HTTP exchanges as the tools' fast rows, by the JDK's plain HttpURLConnection (HTTP/1.1, "
                    + "connections kept) and nothing else, against " + outsideName() + ": the floor this machine allowed in this run:\n"
                    + BenchReport.table(bare));
        }

        /** get_email by process model, the start-up figures, and the first call of a fresh process. */
        private void process() throws Exception {
            progress.part(Part.process.name());
            Target t = near();
            ProcessModelBench models = new ProcessModelBench(t.tools(), processRoot(), token,
                    external == null ? null : external.certificate(), bounds, progress);
            Path jar = ProcessModelBench.ownJar();
            Path aot = jar == null ? null : jar.resolveSibling("agent-tools.aot");
            aot = aot != null && Files.isRegularFile(aot) ? aot : null;
            List<Row> processRows = models.rows(o.warmup(), o.runs(), t.fixtures().messageIds(), aot);
            rows.put(Part.process.name(), processRows);
            Map<String, Object> processModel = new LinkedHashMap<>();
            progress.phase("serve's and the server's overhead, start-up");
            processModel.put("serve_overhead", models.serveOverhead(o.runs(), 5_000));
            processModel.put("server_overhead", models.serverOverhead());
            processModel.put("startup", models.startup(Math.min(o.runs(), 20), aot));
            processModel.put("costs", models.costs());
            if (models.firstCall() != null) {
                processModel.put("launcher_first_call", models.firstCall());
            }
            results.put("process_model", processModel);
            StringWriter text = new StringWriter();
            PrintWriter w = new PrintWriter(text);
            w.println();
            w.println("get_email by process model, against " + nearName() + ":");
            w.print(BenchReport.table(processRows));
            printProcessModel(w, processModel);
            if (external != null) {
                List<Row> first = firstCallRows(go, o, token, bounds, progress);
                rows.put("startup", first);
                w.println("the first call of a fresh process against an emulator process with its handshake model on (a new "
                        + "connection's first request waits one latency more, as a TCP and TLS handshake across a network does)"
                        + (o.externalTls() ? ", over TLS" : "") + ": 'go', the Go peer started for one get_email (start, handshake, "
                        + "call, exit); 'launcher-new', ./agent-tools call when its resident server has just started and holds no "
                        + "connection yet; 'launcher', when it holds one:");
                w.print(BenchReport.table(first));
            }
            w.flush();
            print(text.toString());
        }

        /** A few seconds each, whatever the options: tracking, the token check, Habit, the Python client, decoding. */
        private void extras() throws Exception {
            progress.part(Part.extras.name());
            StringWriter text = new StringWriter();
            PrintWriter w = new PrintWriter(text);
            w.println();
            progress.phase("tracking's overhead");
            Map<String, Object> tracking = TrackingBench.run(Math.max(1_000, o.runs() * 2_000));
            // "adds -5.6 µs" read as a cost below zero: within the noise, it is said so
            w.printf(Locale.ROOT, "tracking: adds %s p50 (%.2f vs %.2f µs) and %s p99 to a call (SQLite, %s calls, %s dropped while measured)%n",
                    added((Double) tracking.get("added_p50_us")), tracking.get("with_p50_us"), tracking.get("without_p50_us"),
                    added((Double) tracking.get("added_p99_us")), tracking.get("calls"), tracking.get("dropped_while_measured"));
            results.put("tracking_overhead", tracking);
            progress.phase("the token check");
            results.put("token_check", TokenCheckBench.run(w));
            progress.phase("the Habit tools");
            results.put("habit", HabitBench.run(w, Math.clamp(o.runs() * 4L, HabitBench.MIN_RUNS, HabitBench.MAX_RUNS)));
            progress.phase("the Python client");
            Map<String, Object> python = PythonClientBench.run(w, Math.clamp(o.runs() * 20L, 200, 2_000));
            if (python != null) {
                results.put("python_client", python);
            }
            Target t = near();
            if (o.tools().contains("get_email") && t != null) {
                progress.phase("HTML decoding");
                Map<String, Object> decoding = DecodingBench.run(t.tools(), o.runs());
                if (decoding != null) {
                    w.printf(Locale.ROOT, "decoding: HTML to text of a %.1f MB message: p50 %.1f ms, p90 %.1f ms, max %.1f ms (%d runs, in-process)%n",
                            ((Number) decoding.get("html_bytes")).doubleValue() / 1e6, decoding.get("p50_ms"), decoding.get("p90_ms"),
                            decoding.get("max_ms"), o.runs());
                    results.put("decoding", decoding);
                }
            }
            w.flush();
            print(text.toString());
        }

        /** A difference within the measurement's noise is not printed as a negative cost. */
        private static String added(Double us) {
            return us == null ? "-" : us < 0 ? String.format(Locale.ROOT, "nothing measurable (%.2f µs, within the noise)", us)
                    : String.format(Locale.ROOT, "%.2f µs", us);
        }

        private void sweep() throws Exception {
            progress.part("sweep");
            BenchRunner runner = runner(main);
            List<Row> sweep = new ArrayList<>();
            for (int size : o.sweep()) {
                for (String strategy : o.strategies()) {
                    sweep.add(runner.run(new Scenario("list_emails", strategy, size), 1, o.sweepRuns(), main.fixtures()));
                }
            }
            sweep = BenchReport.withSpeedups(sweep);
            rows.put("sweep", sweep);
            print("\nsweep (list_emails, " + o.sweepRuns() + " runs per point):\n" + BenchReport.table(sweep)
                    + "sweep chart: " + BenchReport.writeChart(o.out(), stamp, sweep, bounds.latencyMs()) + "\n");
        }

        /** Each emulator's counters over the whole run. */
        private void totals() {
            Map<String, Object> totals = new LinkedHashMap<>();
            Map<String, Supplier<EmulatorCounters>> counters = new LinkedHashMap<>();
            if (main != null && main.counters() != null) {
                counters.put("embedded", main.counters());
            }
            if (outside != null && outside.counters() != null) { // null: the process's counters could not be read
                counters.put("external", outside.counters());
            }
            for (var where : counters.entrySet()) {
                EmulatorCounters c = where.getValue().get();
                out.println(BenchReport.wrap("the whole run" + (where.getKey().equals("external") ? ", the emulator process"
                        : embedded != null ? ", the emulator in this JVM" : "") + ": " + c.apiCalls() + " API calls in "
                        + c.httpRequests() + " HTTP requests over " + c.connectionsOpened() + " connection(s); peak "
                        + c.peakInFlight() + " calls in flight", BenchReport.COLUMNS));
                totals.put(where.getKey(), Map.of("api_calls", c.apiCalls(), "http_requests", c.httpRequests(),
                        "connections_opened", c.connectionsOpened(), "peak_in_flight", c.peakInFlight(),
                        "quota_rejections", c.quotaRejections(), "concurrency_rejections", c.concurrencyRejections()));
            }
            if (!totals.isEmpty()) {
                results.put("totals", totals);
            }
        }

        /** The article's picture (when it ran) and the picture of every other row (when any ran). */
        private void charts() {
            String subtitle = String.format(Locale.ROOT, "commit %s · %s UTC · %d warm-up + %d runs per row, p50 drawn · %s CPUs, JDK %s",
                    shortCommit(), DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneOffset.UTC).format(Instant.now()),
                    o.warmup(), o.runs(), env.get("cpus"), Runtime.version().feature());
            List<Row> article = rows.getOrDefault(Part.article.name(), List.of());
            if (!article.isEmpty()) {
                String legend = outside != null ? "against an emulator process of its own at " + o.latency().toMillis() + " ms a call"
                        + (o.externalTls() ? ", over TLS" : "") : "against " + nearName() + " at " + o.latency().toMillis() + " ms a call";
                out.println("chart: " + BenchReport.writeArticleChart(o.out(), stamp, article, o.n(), bounds.latencyMs(), legend, subtitle));
            }
            List<Row> inside = new ArrayList<>();
            List<Row> drawnOutside = new ArrayList<>();
            (outside != null ? drawnOutside : inside).addAll(article);
            for (String family : List.of(Part.tools.name(), Part.index.name(), Part.process.name())) {
                inside.addAll(rows.getOrDefault(family, List.of()));
            }
            for (String family : List.of("tools_external", "index_external", Part.floors.name())) {
                drawnOutside.addAll(rows.getOrDefault(family, List.of()));
            }
            rows.getOrDefault("startup", List.of()).forEach(r -> drawnOutside.add(r.withStrategy(SummaryChart.FIRST_CALL + r.strategy())));
            boolean others = o.parts().stream().anyMatch(p -> p != Part.article && p != Part.extras);
            if (others && !(inside.isEmpty() && drawnOutside.isEmpty())) {
                String label = external != null && external.rootUrl().startsWith("https:") ? "external, TLS" : "external";
                out.println("chart of every row: " + BenchReport.writeSummaryChart(o.out(), stamp, inside, drawnOutside, label,
                        bounds.latencyMs(), subtitle));
            }
        }

        private String shortCommit() {
            String commit = String.valueOf(env.get("git_commit"));
            return commit.length() > 10 ? commit.substring(0, 10) + (commit.endsWith("-dirty") ? "-dirty" : "") : commit;
        }

        @Override
        public void close() {
            try (var _ = mainTools; var _ = outsideTools) {
                // the tools first, then the servers they talk to
            } finally {
                if (embedded != null) {
                    embedded.close();
                }
                if (external != null) {
                    external.close();
                }
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
    private static List<Row> warmRows(String rootUrl, Path certificate, Supplier<EmulatorCounters> counters,
                                      Bounds bounds, BenchProgress progress, Options o, Fixtures fixtures) throws Exception {
        Path dir = Files.createTempDirectory("agent-tools-bench-index");
        try {
            ToolRegistry tools = emulatorTools(rootUrl, EmulatorConfig.builder().latency(o.latency()).build(), certificate)
                    .mailIndex(dir.resolve("mail-index.db")).build();
            BenchRunner runner = new BenchRunner(tools, counters, bounds, progress, o.pause());
            List<Row> rows = new ArrayList<>();
            rows.add(runner.run(new Scenario("list_emails", "warm", o.n()), Math.max(1, o.warmup()), o.runs(), fixtures, run -> 0));
            HttpClient.Builder client = HttpClient.newBuilder();
            if (certificate != null) {
                client.sslContext(Tools.trusting(certificate));
            }
            try (HttpClient http = client.build()) {
                rows.add(runner.run(new Scenario("list_emails", "warm+new", o.n()), Math.max(1, o.warmup()), o.runs(), fixtures,
                        run -> deliver(http, rootUrl, run)));
            }
            return rows;
        } finally {
            try (var files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** Delivers {@value #NEW_MAIL_PER_RUN} new messages to the emulator's inbox (messages.insert); answers the calls made. */
    private static int deliver(HttpClient http, String rootUrl, int run) {
        for (int i = 0; i < NEW_MAIL_PER_RUN; i++) {
            String raw = Base64.getUrlEncoder().withoutPadding().encodeToString(("From: Bench <bench@example.org>\r\n"
                    + "To: me@example.com\r\nSubject: New mail " + run + "." + i + "\r\nMessage-ID: <bench." + run + "." + i
                    + "@example.org>\r\n\r\nArrived during the benchmark.\r\n").getBytes(StandardCharsets.UTF_8));
            try {
                var r = http.send(HttpRequest.newBuilder(URI.create(rootUrl + (rootUrl.endsWith("/") ? "" : "/")
                                + "gmail/v1/users/me/messages")).header("Authorization", "Bearer bench-token")
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                                "{\"raw\": \"" + raw + "\", \"labelIds\": [\"INBOX\", \"UNREAD\"]}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("the emulator refused new mail: HTTP " + r.statusCode() + " " + r.body());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot deliver new mail to " + rootUrl, e);
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
        Map<Scenario, Row> rows = new HashMap<>();
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
                            throw new IOException("got " + listed + " items, not " + s.n());
                        }
                        return true;
                    } catch (IOException e) {
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

    /** Lists the Go peer sends to warm the emulator process: 20 (220 requests) is most of its JIT's gain, in 7 s. */
    private static final int WARMING_LISTS = 20;

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
        int lists = Math.min(o.warmup() + o.runs(), WARMING_LISTS);
        try {
            GoPeer.Samples s = go.list(emulator.rootUrl(), token, emulator.certificate(), o.n(), 0, lists);
            return s.errors() == lists ? 0 : lists - s.errors();
        } catch (IOException | RuntimeException e) {
            System.err.println("bench: warming the emulator process by the Go peer failed: " + e.getMessage());
            return 0;
        }
    }

    /**
     * The article's Go design against the same emulator process, in the same minutes ({@link GoPeer}): list_emails(n)
     * and get_email, each in one Go process that times its own runs, as the rows above are timed in this JVM.
     */
    private static List<Row> goRows(GoPeer go, ExternalEmulator emulator, RemoteCounters counters, String token, Options o,
                                    List<Scenario> external, Fixtures fixtures, Bounds bounds, BenchProgress progress) {
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
            } catch (IOException | RuntimeException e) {
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
    private static List<Row> firstCallRows(GoPeer go, Options o, String token, Bounds bounds, BenchProgress progress) throws Exception {
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
                        } catch (IOException e) {
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
    private static void printProcessModel(PrintWriter out, Map<String, Object> m) {
        Map<String, Object> serve = (Map<String, Object>) m.get("serve_overhead");
        Map<String, Object> startup = (Map<String, Object>) m.get("startup");
        out.printf(Locale.ROOT, "process model: get_email rows 'in-process', 'serve' (serve --stdio), 'server-call' and 'server-mcp' "
                        + "(agent-tools server's POST /v1/call and MCP /mcp, one keep-alive HTTP/1.1 connection), 'call' (a JVM per call)%s%s;%n",
                startup.containsKey("aot_cache_p50_ms") ? ", 'call+aot' (with the JDK AOT cache)" : "",
                startup.containsKey("launcher_p50_ms") ? ", 'launcher' (./agent-tools call through its resident server)" : "");
        out.printf(Locale.ROOT, "  serve --stdio adds %.3f ms p50 over in-process on tools.list (%.3f vs %.3f ms) and answers %d tools.list/s pipelined%n",
                serve.get("serve_added_p50_ms"), serve.get("serve_p50_ms"), serve.get("in_process_p50_ms"),
                serve.get("serve_pipelined_calls_per_second"));
        Map<String, Object> server = (Map<String, Object>) m.get("server_overhead");
        if (server != null) {
            out.printf(Locale.ROOT, "  agent-tools server adds %.3f ms p50 over in-process on tools.list through /v1/call (%.3f vs %.3f ms), "
                            + "%.3f ms through MCP's /mcp tools/list (%.3f ms), warmed by 2,000 calls%n",
                    server.get("call_added_p50_ms"), server.get("call_p50_ms"), server.get("in_process_p50_ms"),
                    server.get("mcp_added_p50_ms"), server.get("mcp_p50_ms"));
        }
        out.printf(Locale.ROOT, "  one-shot call start-up (tools.list): p50 %.0f ms%s%s%n", startup.get("plain_p50_ms"),
                startup.containsKey("aot_cache_p50_ms")
                        ? String.format(Locale.ROOT, ", %.0f ms with the AOT cache", startup.get("aot_cache_p50_ms")) : "",
                startup.containsKey("launcher_p50_ms")
                        ? String.format(Locale.ROOT, ", %.1f ms through the launcher's resident server", startup.get("launcher_p50_ms")) : "");
        Map<String, Object> first = (Map<String, Object>) m.get("launcher_first_call");
        if (first != null) {
            out.printf(Locale.ROOT, "  the launcher's first call (starts its server): p50 %.0f ms, max %.0f ms over %s starts%n",
                    first.get("first_call_p50_ms"), first.get("first_call_max_ms"), first.get("first_calls"));
        }
        out.println("  per get_email call:  caller CPU ms | server CPU ms | peak RSS MB | server RSS MB");
        for (Map<String, Object> c : (List<Map<String, Object>>) m.get("costs")) {
            out.printf(Locale.ROOT, "    %-10s %13s | %13s | %11s | %s%n", c.get("model"), orDash(c.get("caller_cpu_ms_per_call")),
                    orDash(c.get("server_cpu_ms_per_call")), orDash(c.get("peak_rss_mb")), orDash(c.get("server_rss_mb")));
        }
        out.println("  (CPU from /proc in 10 ms ticks, a mean over the row's runs; in-process CPU is the whole benchmark JVM's,"
                + " the emulator's included when it runs in this JVM; peak RSS: the process the caller starts, or serve)");
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
            // the project's commit, wherever the benchmark is run from (its results folder need not be in the clone)
            Path project = ProjectFolders.candidates().filter(f -> Files.isRegularFile(f.resolve("pom.xml"))).findFirst()
                    .orElse(Path.of("").toAbsolutePath());
            Process p = new ProcessBuilder("git", "-C", project.toString(), "rev-parse", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor() != 0) {
                return "unknown";
            }
            // sources changed since that commit: the figures are not the commit's alone, and the results say so
            Process diff = new ProcessBuilder("git", "-C", project.toString(), "diff", "--quiet", "HEAD", "--", "src", "pom.xml")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return diff.waitFor() == 1 ? out + "-dirty" : out;
        } catch (Exception e) {
            return "unknown";
        }
    }

}
