package dev.agenttools.cli;

import dev.agenttools.Tools;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.daemon.DaemonDirectory;
import dev.agenttools.daemon.DaemonServer;
import dev.agenttools.daemon.LauncherRequest;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.google.RootUrl;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tracking.CallRecorder;
import dev.agenttools.tracking.Tracking;
import dev.agenttools.tracking.TrackingSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The AOT cache's training run (hidden; the launcher runs it after each build under -XX:AOTCacheOutput): it makes
 * the calls a one-shot `call` makes, against an in-process emulator, so that the cache holds the Gmail client,
 * HTTP/2 and JSON classes a real call loads, not only the start-up path.
 */
@Command(name = "train-aot", hidden = true, description = "Exercise the call paths for the JDK AOT cache's training run.")
final class TrainAotCommand implements Callable<Integer> {
    /** Rounds of list_emails(10) and get_email: about 2 s against the in-process emulator at no latency. */
    static final int TRAINING_ROUNDS = Integer.getInteger("agenttools.trainingRounds", 300);

    @Option(names = "--target", paramLabel = "URL", description = "Train against the emulator at URL (one the caller "
            + "started) instead of one in this process, so that the cache holds none of the emulator's own classes.")
    String target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (target != null) {
            String flaw = RootUrl.flaw(target, GmailSettings.GOOGLE_ROOT_URL);
            if (flaw != null) {
                throw new ParameterException(spec.commandLine(), "--target " + flaw);
            }
            train(target, null);
            return 0;
        }
        // no latency and no quota to wait for: the training is about code paths, not pacing; over TLS, as Gmail is
        // reached, so that the cache holds the TLS handshake's classes too (a one-shot call's first over TLS took
        // ~300 ms more than in cleartext without them)
        try (Emulator emulator = Emulator.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(100_000_000).calendarQuotaPerMinute(100_000_000).maxConcurrent(1_000)
                .seedMessages(60).tls(true).build())) {
            try {
                train(emulator.rootUri().toString(), emulator.certificate());
            } finally {
                Files.deleteIfExists(emulator.certificate());
            }
        }
        return 0;
    }

    /** The calls against the emulator at {@code rootUrl}. */
    private static void train(String rootUrl, Path certificate) throws IOException {
        // in an owner-only folder of its own: a store is never kept where others may make files (straight in /tmp)
        Path db = Files.createTempDirectory("agent-tools-aot-training").resolve("calls.db");
        CallRecorder recorder = CallRecorder.sqlite(db, 100);
        ToolProtocol protocol = new ToolProtocol(trusting(Tools.builder(), certificate)
                .gmail(GmailSettings.forRoot(rootUrl).withPacing(100_000_000, 10_000_000, 1_000))
                .defaultAccessToken("training")
                .calendar(CalendarSettings.forRoot(rootUrl)
                        .withPacing(100_000_000, 10_000_000, 1_000))
                .recorder(recorder).build());
        protocol.answer("{\"command\": \"tools.list\", \"params\": {}}");
        // the Calendar paths: the list, then a day across every calendar by each strategy
        protocol.answer("{\"command\": \"calendar.list-calendars\", \"params\": {}}");
        for (int i = 0; i < 10; i++) {
            for (String strategy : new String[] {"sequential", "concurrent", "batch"}) {
                protocol.answer("{\"command\": \"calendar.list-events\", \"params\": {\"time_min\": \"2026-06-02\", "
                        + "\"strategy\": \"" + strategy + "\"}}");
            }
        }
        String list = protocol.answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 3}}").line();
        for (String strategy : new String[] {"sequential", "concurrent", "batch"}) {
            protocol.answer("{\"command\": \"gmail.search-emails\", \"params\": {\"query\": \"has:attachment\", "
                    + "\"max_results\": 2, \"strategy\": \"" + strategy + "\"}}");
        }
        String id = list.replaceAll("(?s).*?\"id\":\"([0-9a-f]+)\".*", "$1");
        protocol.answer("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}");
        protocol.answer("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}");
        protocol.answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 0}}");
        protocol.answer("not json");
        // The cache also keeps the methods' profiles (JEP 515): calls repeated until the hot paths (the Google
        // client's request building and parsing, decoding, the protocol) have real profiles, so a process that
        // starts with the cache compiles them early instead of running its first calls interpreted.
        for (int i = 0; i < TRAINING_ROUNDS; i++) {
            protocol.answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 10}}");
            protocol.answer("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}");
        }
        trainResidentServer(rootUrl, certificate, id);
        trainOneShotSpool(rootUrl, certificate, id, db.resolveSibling(db.getFileName() + "-oneshot.db"));
        recorder.close();
        try (var files = Files.list(db.getParent())) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(db.getParent());
    }

    /** The builder, trusting {@code certificate} (the training emulator's) when there is one. */
    private static Tools.Builder trusting(Tools.Builder b, Path certificate) {
        return certificate == null ? b : b.trustCertificate(certificate);
    }

    /** A one-shot call's tracking: its record spooled as a JSON line, not written to SQLite. */
    private static void trainOneShotSpool(String rootUrl, Path certificate, String id, Path db)
            throws IOException {
        CallRecorder spool = Tracking.openOneShotRecorder(TrackingSettings.fromEnvironment(
                Map.of("AGENT_TOOLS_TRACKING_DB", db.toString())), Tools.commands());
        ToolProtocol protocol = new ToolProtocol(trusting(Tools.builder(), certificate).gmail(GmailSettings.forRoot(rootUrl)
                .withPacing(100_000_000, 10_000_000, 1_000)).defaultAccessToken("training").recorder(spool).build());
        protocol.answer("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}");
        spool.close();
        try (var files = Files.list(db.getParent())) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(db.getFileName().toString())).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /**
     * The resident server's own path (its folder, its socket, the launcher's wire format, a session per caller's
     * settings), so that the server, which starts from the same cache, finds those classes in it too.
     */
    private static void trainResidentServer(String rootUrl, Path certificate, String id) throws IOException {
        Path home = Files.createTempDirectory("agent-tools-aot-daemon"); // owner-only
        Path dir = home.resolve("server");
        try (DaemonDirectory directory = DaemonDirectory.lock(dir, Duration.ZERO); SessionCache sessions = new SessionCache()) {
            DaemonServer server = DaemonServer.start(DaemonCommand.handler(sessions),
                    new PrintWriter(Writer.nullWriter()), Duration.ofMinutes(1), () -> false, directory::unpublish);
            directory.publish(server.port(), server.clientSecret());
            // a config file that does not exist: the user's own (tracking to DynamoDB, say) stays out of the training
            Map<String, String> settings = new HashMap<>(Map.of("AGENT_TOOLS_GMAIL_ROOT_URL", rootUrl,
                    "AGENT_TOOLS_ACCESS_TOKEN", "training", "AGENT_TOOLS_TRACKING", "none", "AGENT_TOOLS_GMAIL_QUOTA", "100000000",
                    "AGENT_TOOLS_GMAIL_MAX_IN_FLIGHT", "1000", "AGENT_TOOLS_CONFIG", home.resolve("none.properties").toString(),
                    // the training's own sessions never start the JIT warm-up: it would outlive the training run
                    "AGENT_TOOLS_WARMUP", "off"));
            if (certificate != null) {
                settings.put("AGENT_TOOLS_CA_CERT", certificate.toString());
            }
            if (System.getenv(CallerZone.TZ) != null) {
                // as the launcher sends its caller's: a server told no TZ while it has one of its own answers nothing
                settings.put(CallerZone.TZ, System.getenv(CallerZone.TZ));
            }
            for (int i = 0; i < 50; i++) {
                String request = i % 2 == 0 ? "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}"
                        : "{\"command\": \"tools.list\"}";
                Instant now = Instant.now();
                byte[] message = new LauncherRequest(settings, home.toString(), now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000,
                        request.getBytes(StandardCharsets.UTF_8)).encode(server.clientSecret());
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                    InputStream in = socket.getInputStream();
                    while (in.read() != '\n') {
                        // the greeting
                    }
                    socket.getOutputStream().write(message);
                    in.readAllBytes(); // the timeout line, then the answer
                }
            }
            server.stop();
            try {
                server.awaitStop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } finally {
            try (var files = Files.walk(home)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
