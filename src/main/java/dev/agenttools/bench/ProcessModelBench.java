package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the process model costs: the same get_email in-process, through a persistent {@code serve --stdio}, and
 * through {@code agent-tools server} over HTTP ({@code /v1/call} and MCP's {@code /mcp}), through a fresh
 * {@code call} JVM per request (the article's production set-up), with and without the JDK's AOT
 * cache; plus the protocol overhead and throughput of {@code serve} on {@code tools.list}, which does no I/O.
 */
final class ProcessModelBench {
    private static final String MAIN = "dev.agenttools.cli.Main";
    private final ToolRegistry tools;
    private final String rootUrl;
    private final String token;
    private final Bounds bounds;
    private final BenchRunner.Progress progress;
    private final Path certificate;

    /**
     * @param token       the access token the child processes call with (never printed)
     * @param certificate the CA certificate (PEM) the child processes trust, for a root URL served over TLS with a
     *                    self-signed one (the external emulator's), or null
     */
    ProcessModelBench(ToolRegistry tools, String rootUrl, String token, Path certificate, Bounds bounds, BenchRunner.Progress progress) {
        this.tools = tools;
        this.certificate = certificate;
        this.rootUrl = rootUrl;
        this.token = token;
        this.bounds = bounds;
        this.progress = progress;
    }

    /** Rows for get_email by process model (the "strategy" column names the model). */
    List<Row> rows(int warmup, int runs, List<String> ids, Path aotCache) throws Exception {
        List<Row> rows = new ArrayList<>();
        ToolProtocol protocol = new ToolProtocol(tools);
        long self = ProcessHandle.current().pid();
        rows.add(measure("in-process", warmup, runs, i -> protocol.answer(getEmail(ids, i)).line(),
                new Meter(() -> ProcStat.cpuNanos(self), null, null)));
        try (Serve serve = Serve.start(command("serve", "--stdio"), env())) {
            long pid = serve.process.pid();
            rows.add(measure("serve", warmup, runs, i -> serve.roundTrip(getEmail(ids, i)),
                    new Meter(null, () -> ProcStat.cpuNanos(pid), () -> ProcStat.peakRssKb(pid))));
        }
        // agent-tools server: the same call over HTTP, by a trusted backend (/v1/call) and by an MCP client (/mcp)
        try (HttpServerProcess server = HttpServerProcess.start(command("server", "--port", "0"), env(), token)) {
            long pid = server.process.pid();
            Meter serverMeter = new Meter(() -> ProcStat.cpuNanos(self), () -> ProcStat.cpuNanos(pid), () -> ProcStat.peakRssKb(pid));
            serverOverhead = serverOverhead(server, protocol, runs);
            rows.add(measure("server-call", warmup, runs, i -> server.call(getEmail(ids, i)), serverMeter));
            rows.add(measure("server-mcp", warmup, runs, i -> server.mcp(ids.get(i % ids.size()), i), serverMeter));
        }
        rows.add(measure("call", warmup, runs, i -> callOnce(command("call"), getEmail(ids, i), Map.of()), oneShotMeter(null)));
        if (aotCache != null) {
            List<String> withCache = new ArrayList<>(command("call"));
            withCache.add(1, "-XX:AOTCache=" + aotCache);
            rows.add(measure("call+aot", warmup, runs, i -> callOnce(withCache, getEmail(ids, i), Map.of()), oneShotMeter(null)));
        }
        Path launcher = launcher();
        if (launcher != null) {
            rows.add(launcherRow(launcher, warmup, runs, ids));
        }
        return rows;
    }

    /**
     * CPU and memory per call of each model measured by {@link #rows}: the caller's side (the process the agent
     * starts, and what it starts in turn), the server's side (serve, or the launcher's resident server), peak RSS.
     */
    List<Map<String, Object>> costs() {
        return costs;
    }

    /**
     * {@code ./agent-tools call}, the launcher, through its resident server: the first call (which starts the server)
     * a few times over, then the row. The server runs in a runtime folder of the benchmark's own, so that neither
     * the user's server nor an earlier run's warm one is measured; it is stopped afterwards.
     */
    private Row launcherRow(Path launcher, int warmup, int runs, List<String> ids) throws Exception {
        Path runtime = Files.createTempDirectory("agent-tools-bench-run-");
        Map<String, String> env = Map.of("XDG_RUNTIME_DIR", runtime.toString());
        List<String> command = List.of(launcher.toString(), "call");
        try {
            callOnce(command, getEmail(ids, 0), env); // not measured: builds the jar and trains the AOT cache when due
            Histogram first = new Histogram(3_600_000_000L, 3);
            for (int i = 0; i < FIRST_CALLS; i++) {
                stopServer(runtime);
                long start = System.nanoTime();
                String answer = callOnce(command, getEmail(ids, i), env);
                if (answer.contains("\"status\":\"ok\"")) {
                    first.recordValue((System.nanoTime() - start) / 1_000);
                }
            }
            firstCall = first.getTotalCount() == 0 ? null : Map.of("first_call_p50_ms", first.getValueAtPercentile(50) / 1e3,
                    "first_call_max_ms", first.getMaxValue() / 1e3, "first_calls", first.getTotalCount());
            Long server = serverPid(runtime);
            return measure("launcher", warmup, runs, i -> callOnce(command, getEmail(ids, i), env),
                    oneShotMeter(server == null ? null : () -> ProcStat.cpuNanos(server)), () -> server == null ? null : ProcStat.rssKb(server));
        } finally {
            stopServer(runtime);
            Files.deleteIfExists(runtime);
        }
    }

    /**
     * get_email through the launcher when its resident server holds no connection to the API yet, as a fresh
     * process of the article's design never does: each run stops the server and starts it again (a tools.list,
     * which reaches no API; not timed), then times the call, which opens a new connection (over TLS: a handshake,
     * and the emulator's handshake model). Null without a launcher.
     */
    Row launcherNewConnectionRow(int runs, List<String> ids) throws Exception {
        Path launcher = launcher();
        if (launcher == null) {
            return null;
        }
        Path runtime = Files.createTempDirectory("agent-tools-bench-run-");
        Map<String, String> env = Map.of("XDG_RUNTIME_DIR", runtime.toString());
        List<String> command = List.of(launcher.toString(), "call");
        Scenario s = new Scenario("get_email", "launcher-new", 1);
        progress.scenario(s, runs);
        List<Double> ok = new ArrayList<>();
        int errors = 0;
        try {
            for (int i = 0; i < runs; i++) {
                stopServer(runtime);
                callOnce(command, "{\"command\": \"tools.list\"}", env);
                long start = System.nanoTime();
                String answer = callOnce(command, getEmail(ids, i), env);
                double ms = (System.nanoTime() - start) / 1e6;
                if (answer != null && answer.contains("\"status\":\"ok\"")) {
                    ok.add(ms);
                } else {
                    errors++;
                }
                progress.call();
            }
        } finally {
            stopServer(runtime);
            Files.deleteIfExists(runtime);
        }
        Row row = Row.of("get_email", "launcher-new", 1, 0, ok, errors, 1, -1, 0, 2 * bounds.latencyMs());
        progress.finished(row);
        return row;
    }

    /** The {@code launcher} row alone (its server started and stopped around it), or null without a launcher. */
    Row launcherRowAlone(int warmup, int runs, List<String> ids) throws Exception {
        Path launcher = launcher();
        return launcher == null ? null : launcherRow(launcher, warmup, runs, ids);
    }

    private static final int FIRST_CALLS = 3;
    private Map<String, Object> firstCall;

    /** The launcher's first call, which starts its server: p50 and max over a few fresh starts (null when not run). */
    Map<String, Object> firstCall() {
        return firstCall;
    }

    /**
     * The launcher of the checkout the jar this runs from was built in (target/launcher/, the launcher's own build,
     * or target/), if any.
     */
    private static Path launcher() {
        Path jar = ownJar();
        Path dir = jar == null ? null : jar.toAbsolutePath().getParent();
        for (int up = 0; up < 2 && dir != null; up++) {
            dir = dir.getParent();
            if (dir != null && Files.isExecutable(dir.resolve("agent-tools")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir.resolve("agent-tools");
            }
        }
        return null;
    }

    /** Stops the benchmark's resident server (its address file gone, it stops within a second) and waits for it. */
    private static void stopServer(Path runtime) throws IOException, InterruptedException {
        Long pid = serverPid(runtime);
        try (var files = Files.walk(runtime)) {
            files.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(runtime)).forEach(p -> p.toFile().delete());
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pid != null && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < until) {
            Thread.sleep(20);
        }
    }

    private static Long serverPid(Path runtime) throws IOException {
        try (var files = Files.walk(runtime)) {
            Path address = files.filter(p -> p.getFileName().toString().equals("daemon")).findFirst().orElse(null);
            if (address == null) {
                return null;
            }
            String[] fields = Files.readString(address).strip().split(" ");
            return fields.length >= 4 ? Long.valueOf(fields[3]) : null;
        } catch (UncheckedIOException | NumberFormatException e) {
            return null;
        }
    }

    /** A one-shot process per call: the caller's CPU is what the processes it started and reaped used. */
    private Meter oneShotMeter(Counter serverCpu) {
        oneShotPeakKb.set(0);
        return new Meter(ProcStat::reapedChildrenCpuNanos, serverCpu, () -> oneShotPeakKb.get() == 0 ? null : oneShotPeakKb.get());
    }

    private final AtomicLong oneShotPeakKb = new AtomicLong();
    private final List<Map<String, Object>> costs = new ArrayList<>();

    private interface Counter {
        Long read();
    }

    /** Reads CPU counters before and after a row's measured runs, and its peak memory after them. */
    private record Meter(Counter callerCpu, Counter serverCpu, Counter peakKb) {
    }

    private Map<String, Object> serverOverhead;

    /** What the HTTP server adds to a call, measured by {@link #rows} (null before). */
    Map<String, Object> serverOverhead() {
        return serverOverhead;
    }

    /**
     * The server's own cost on a call that does no I/O (tools.list; MCP's tools/list), its code warmed first as a
     * long-running server's is: p50 over the same call in-process.
     */
    private static Map<String, Object> serverOverhead(HttpServerProcess server, ToolProtocol protocol, int runs) throws Exception {
        String request = "{\"command\": \"tools.list\"}";
        for (int i = 0; i < 2_000; i++) { // JIT warm-up of both sides
            server.call(request);
            server.mcpList(i);
            protocol.answer(request);
        }
        Histogram inProcess = histogram(runs * 5, () -> protocol.answer(request));
        Histogram call = histogram(runs * 5, () -> server.call(request));
        Histogram mcp = histogram(runs * 5, () -> server.mcpList(1));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("what", "tools.list, no I/O, after 2,000 warm-up calls: agent-tools server over one keep-alive HTTP/1.1 connection against in-process");
        m.put("in_process_p50_ms", inProcess.getValueAtPercentile(50) / 1e3);
        m.put("call_p50_ms", call.getValueAtPercentile(50) / 1e3);
        m.put("call_added_p50_ms", (call.getValueAtPercentile(50) - inProcess.getValueAtPercentile(50)) / 1e3);
        m.put("mcp_p50_ms", mcp.getValueAtPercentile(50) / 1e3);
        m.put("mcp_added_p50_ms", (mcp.getValueAtPercentile(50) - inProcess.getValueAtPercentile(50)) / 1e3);
        return m;
    }

    /** serve's own cost on a call that does no I/O: p50 over in-process, and calls per second pipelined. */
    Map<String, Object> serveOverhead(int runs, int pipelined) throws Exception {
        String request = "{\"id\": 1, \"command\": \"tools.list\", \"params\": {}}";
        ToolProtocol protocol = new ToolProtocol(tools);
        Histogram inProcess = histogram(runs * 5, () -> protocol.answer(request));
        Map<String, Object> m = new LinkedHashMap<>();
        // Room for the whole pipelined burst: this measures serve's own throughput, not its admission limits (past
        // them a request is answered overloaded at once).
        try (Serve serve = Serve.start(command("serve", "--stdio", "--max-queued", Integer.toString(pipelined)), env())) {
            for (int i = 0; i < 2_000; i++) {
                serve.roundTrip(request); // JIT warm-up of both sides
            }
            Histogram served = histogram(runs * 5, () -> serve.roundTrip(request));
            long start = System.nanoTime();
            double perSecond = serve.pipeline(request, pipelined) / ((System.nanoTime() - start) / 1e9);
            m.put("what", "tools.list, no I/O: serve --stdio round trip against an in-process call");
            m.put("in_process_p50_ms", inProcess.getValueAtPercentile(50) / 1e3);
            m.put("serve_p50_ms", served.getValueAtPercentile(50) / 1e3);
            m.put("serve_added_p50_ms", (served.getValueAtPercentile(50) - inProcess.getValueAtPercentile(50)) / 1e3);
            m.put("serve_pipelined_calls_per_second", Math.round(perSecond));
            m.put("pipelined_calls", pipelined);
        }
        return m;
    }

    /** The time to answer tools.list from a fresh `call` JVM, without and with the AOT cache. */
    Map<String, Object> startup(int runs, Path aotCache) throws Exception {
        String request = "{\"command\": \"tools.list\", \"params\": {}}";
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("what", "one-shot call: process start to answer of tools.list");
        m.put("plain_p50_ms", histogram(runs, () -> callOnce(command("call"), request, Map.of())).getValueAtPercentile(50) / 1e3);
        if (aotCache != null) {
            List<String> withCache = new ArrayList<>(command("call"));
            withCache.add(1, "-XX:AOTCache=" + aotCache);
            m.put("aot_cache_p50_ms", histogram(runs, () -> callOnce(withCache, request, Map.of())).getValueAtPercentile(50) / 1e3);
        }
        Path launcher = launcher();
        if (launcher != null) {
            // tools.list through the launcher's resident server: already running after the get_email rows' own, or started now
            Path runtime = Files.createTempDirectory("agent-tools-bench-run-");
            try {
                Map<String, String> env = Map.of("XDG_RUNTIME_DIR", runtime.toString());
                callOnce(List.of(launcher.toString(), "call"), request, env);
                m.put("launcher_p50_ms", histogram(runs, () -> callOnce(List.of(launcher.toString(), "call"), request, env))
                        .getValueAtPercentile(50) / 1e3);
            } finally {
                stopServer(runtime);
                Files.deleteIfExists(runtime);
            }
        }
        return m;
    }

    private interface Run {
        Object run(int i) throws Exception;
    }

    private interface Step {
        Object run() throws Exception;
    }

    private Row measure(String model, int warmup, int runs, Run run, Meter meter) throws Exception {
        return measure(model, warmup, runs, run, meter, null);
    }

    private Row measure(String model, int warmup, int runs, Run run, Meter meter, Counter serverRssKb) throws Exception {
        Scenario s = new Scenario("get_email", model, 1);
        progress.scenario(s, warmup + runs);
        for (int i = 0; i < warmup; i++) {
            run.run(i);
            progress.call();
        }
        Long callerBefore = read(meter.callerCpu());
        Long serverBefore = read(meter.serverCpu());
        Histogram h = new Histogram(3_600_000_000L, 3);
        int errors = 0;
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            Object answer = run.run(warmup + i);
            long micros = (System.nanoTime() - start) / 1_000;
            if (answer instanceof String line && line.contains("\"status\":\"ok\"")) {
                h.recordValue(micros);
            } else {
                errors++;
            }
            progress.call();
        }
        Map<String, Object> cost = new LinkedHashMap<>();
        cost.put("model", model);
        cost.put("caller_cpu_ms_per_call", perCall(callerBefore, read(meter.callerCpu()), runs));
        cost.put("server_cpu_ms_per_call", perCall(serverBefore, read(meter.serverCpu()), runs));
        Long peak = read(meter.peakKb());
        cost.put("peak_rss_mb", peak == null ? null : Math.round(peak / 102.4) / 10.0);
        Long serverRss = read(serverRssKb);
        cost.put("server_rss_mb", serverRss == null ? null : Math.round(serverRss / 102.4) / 10.0);
        costs.add(cost);
        boolean any = h.getTotalCount() > 0;
        Row row = new Row("get_email", model, 1, runs, warmup, any ? h.getMean() / 1e3 : Double.NaN,
                any ? h.getMinValue() / 1e3 : Double.NaN, any ? h.getMaxValue() / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(50) / 1e3 : Double.NaN, any ? h.getValueAtPercentile(90) / 1e3 : Double.NaN,
                any ? h.getValueAtPercentile(99) / 1e3 : Double.NaN, errors, 1, -1, 0, bounds.latencyMs(), null);
        progress.finished(row);
        return row;
    }

    private static Long read(Counter c) {
        return c == null ? null : c.read();
    }

    private static Double perCall(Long before, Long after, int runs) {
        return before == null || after == null || runs == 0 ? null : Math.round((after - before) / 1e5 / runs) / 10.0;
    }

    private static Histogram histogram(int runs, Step step) throws Exception {
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            step.run();
            h.recordValue((System.nanoTime() - start) / 1_000);
        }
        return h;
    }

    private static String getEmail(List<String> ids, int run) {
        return "{\"id\": " + run + ", \"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + ids.get(run % ids.size())
                + "\", \"agent_name\": \"bench\"}}";
    }

    /** The child processes track their calls as users' do, into a store of the benchmark's own. */
    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>(Map.of("AGENT_TOOLS_GMAIL_ROOT_URL", rootUrl,
                "AGENT_TOOLS_ACCESS_TOKEN", token, "AGENT_TOOLS_TRACKING_DB", TRACKING_DB.toString()));
        if (certificate != null) {
            env.put("AGENT_TOOLS_CA_CERT", certificate.toString());
        }
        return env;
    }

    /** In a folder of its own (made owner-only by the first process): a store is never kept straight in /tmp. */
    private static final Path TRACKING_DB = Path.of(System.getProperty("java.io.tmpdir"),
            "agent-tools-bench-" + ProcessHandle.current().pid(), "calls.db");

    /** Runs one one-shot process to its exit; its peak RSS, sampled while it runs, goes to {@link #oneShotPeakKb}. */
    private String callOnce(List<String> command, String request, Map<String, String> extraEnv) throws IOException, InterruptedException {
        ProcessBuilder b = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        b.environment().putAll(env());
        b.environment().putAll(extraEnv);
        Process p = b.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(request.getBytes(StandardCharsets.UTF_8));
        }
        String[] out = new String[1];
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                out[0] = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                out[0] = e.toString();
            }
        });
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!p.waitFor(5, TimeUnit.MILLISECONDS) && System.nanoTime() < until) {
            Long kb = ProcStat.peakRssKb(p.pid());
            if (kb != null) {
                oneShotPeakKb.accumulateAndGet(kb, Math::max);
            }
        }
        reader.join(TimeUnit.SECONDS.toMillis(60));
        return out[0];
    }

    /** How to start agent-tools in a new JVM: from its jar when running from one, else from this class path. */
    static List<String> command(String... args) {
        List<String> c = new ArrayList<>();
        c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path jar = ownJar();
        if (jar != null) {
            c.addAll(List.of("-jar", jar.toString()));
        } else {
            c.addAll(List.of("-cp", System.getProperty("java.class.path"), MAIN));
        }
        c.addAll(List.of(args));
        return c;
    }

    static Path ownJar() {
        try {
            Path p = Path.of(ProcessModelBench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return p.toString().endsWith(".jar") && Files.isRegularFile(p) ? p : null;
        } catch (URISyntaxException | SecurityException e) {
            return null;
        }
    }

    /** A running `serve --stdio` with one request in flight at a time (or a pipelined burst). */
    private static final class Serve implements AutoCloseable {
        private final Process process;
        private final OutputStream in;
        private final BufferedReader out;

        private Serve(Process process) {
            this.process = process;
            this.in = process.getOutputStream();
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Serve start(List<String> command, Map<String, String> env) throws IOException {
            ProcessBuilder b = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
            b.environment().putAll(env);
            return new Serve(b.start());
        }

        String roundTrip(String request) throws IOException {
            in.write((request + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            String line = out.readLine();
            if (line == null) {
                throw new IOException("serve --stdio ended early");
            }
            return line;
        }

        /** Sends n requests without waiting, then reads n answers; returns n. */
        int pipeline(String request, int n) throws Exception {
            byte[] line = (request + "\n").getBytes(StandardCharsets.UTF_8);
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        in.write(line);
                    }
                    in.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try {
                for (int i = 0; i < n; i++) {
                    JsonNode answer = Json.MAPPER.readTree(out.readLine());
                    if (!answer.path("status").asText().equals("ok")) {
                        throw new IllegalStateException("serve answered an error: " + answer);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // Nobody reads its answers any more: serve would stop reading, and the writer would block for good.
                process.destroyForcibly();
                throw e;
            }
            writer.join();
            return n;
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException ignored) {
                // already gone
            }
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@code agent-tools server} in a process of its own, with a service key made for the run, called over one
     * keep-alive HTTP/1.1 connection as a backend would.
     */
    private static final class HttpServerProcess implements AutoCloseable {
        private static final Pattern SERVING = Pattern.compile("serving on http://127\\.0\\.0\\.1:(\\d+)/");
        private final Process process;
        private final URI base;
        private final String key;
        private final String token;
        private final HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1).build();

        private HttpServerProcess(Process process, int port, String key, String token) {
            this.process = process;
            this.base = URI.create("http://127.0.0.1:" + port);
            this.key = key;
            this.token = token;
        }

        static HttpServerProcess start(List<String> command, Map<String, String> env, String token) throws Exception {
            byte[] secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            String key = HexFormat.of().formatHex(secret);
            String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
            ProcessBuilder b = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            b.environment().putAll(env);
            b.environment().put("AGENT_TOOLS_SERVICE_KEY_HASHES", hash);
            Process p = b.start();
            BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
            int port = -1;
            for (String line; port < 0 && (line = err.readLine()) != null; ) {
                Matcher m = SERVING.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                }
            }
            if (port < 0) {
                p.destroyForcibly();
                throw new IOException("agent-tools server did not start (it ended with status " + p.waitFor() + ")");
            }
            HttpServerProcess server = new HttpServerProcess(p, port, key, token);
            Thread.ofVirtual().start(() -> err.lines().forEach(server::logged)); // its stderr drained, its last lines kept
            return server;
        }

        private String post(String path, String body, String... headers) throws IOException, InterruptedException {
            HttpRequest.Builder r = HttpRequest.newBuilder(base.resolve(path))
                    .header("Authorization", "Bearer " + key).header("X-Google-Access-Token", token)
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (headers.length > 0) {
                r.headers(headers);
            }
            try {
                return http.send(r.build(), HttpResponse.BodyHandlers.ofString()).body();
            } catch (IOException e) {
                throw new IOException("POST " + path + " to agent-tools server" + (process.isAlive() ? "" : " (it ended with status "
                        + process.exitValue() + ")") + ": " + e.getMessage() + "; its stderr's last lines: " + lastLines()
                        + "; its connections closed: " + connectionsClosed(), e);
            }
        }

        /** What /metrics says of the connections it closed (header deadline, caps), for an error that needs it. */
        private String connectionsClosed() {
            try {
                String metrics = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                return String.join(" ", metrics.lines().filter(l -> l.startsWith("agent_tools_connections_closed_total")).toList());
            } catch (IOException | InterruptedException e) {
                return "(/metrics did not answer: " + e.getMessage() + ")";
            }
        }

        /** The server's stderr's last {@link #KEPT_LINES} lines, for an error that needs them. */
        private final ArrayDeque<String> lines = new ArrayDeque<>();
        private static final int KEPT_LINES = 20;

        private synchronized void logged(String line) {
            if (lines.size() == KEPT_LINES) {
                lines.removeFirst();
            }
            lines.addLast(line.length() > 500 ? line.substring(0, 500) + "..." : line);
        }

        private synchronized String lastLines() {
            return lines.isEmpty() ? "(none)" : String.join(" | ", lines);
        }

        String call(String request) throws IOException, InterruptedException {
            return post("/v1/call", request);
        }

        /** An MCP tools/list (no I/O). */
        String mcpList(int id) throws IOException, InterruptedException {
            return post("/mcp", "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}",
                    "Accept", "application/json, text/event-stream", "Content-Type", "application/json",
                    "MCP-Protocol-Version", "2025-06-18");
        }

        /** An MCP tools/call of get_email; answers {@code "status":"ok"} when the tool answered without error. */
        String mcp(String messageId, int id) throws IOException, InterruptedException {
            String body = post("/mcp", "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":"
                            + "\"get_email\",\"arguments\":{\"message_id\":\"" + messageId + "\",\"agent_name\":\"bench\"}}}",
                    "Accept", "application/json, text/event-stream", "Content-Type", "application/json",
                    "MCP-Protocol-Version", "2025-06-18");
            JsonNode answer = Json.MAPPER.readTree(body);
            return answer.path("result").path("isError").asBoolean(true) ? body : "{\"status\":\"ok\"}";
        }

        @Override
        public void close() {
            process.destroy(); // SIGTERM: it drains, then exits
            try {
                if (!process.waitFor(35, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
