package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.daemon.DaemonDirectory;
import dev.agenttools.daemon.DaemonServer;
import dev.agenttools.daemon.LauncherRequest;
import dev.agenttools.tool.ToolProtocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * The resident server the launcher forwards one-shot calls to (hidden: the launcher starts it, detached, on the
 * first {@code call}). It answers each forwarded call as the in-process {@code call} would, with the caller's
 * settings, on warm code and warm connections. It prints {@code ready} on stdout once the launcher may connect (or
 * {@code busy} when another server holds the folder) and closes stdout, so that the launcher's read returns.
 */
@Command(name = "daemon", hidden = true, description = "Serve the launcher's one-shot calls from a resident process.")
final class DaemonCommand implements Callable<Integer> {
    static final String IDLE = "AGENT_TOOLS_DAEMON_IDLE";
    static final Duration DEFAULT_IDLE = Duration.ofMinutes(10);
    private static final String JAVA_OPTS = "AGENT_TOOLS_JAVA_OPTS";
    /** How long a new server waits for the one it replaces (the jar changed) to finish its calls and let go. */
    private static final Duration LOCK_WAIT = Duration.ofSeconds(2);
    /** How long a SIGTERM waits for the calls in flight (the launcher answers a cut-off call in-process). */
    private static final Duration SHUTDOWN_DRAIN = Duration.ofSeconds(5);
    /**
     * Settings that name files: relative ones are relative to the caller's folder, which the server does not share,
     * so they are resolved against it before use.
     */
    private static final List<String> PATH_SETTINGS = List.of("AGENT_TOOLS_CONFIG", "AGENT_TOOLS_CLIENT_SECRETS",
            "AGENT_TOOLS_CA_CERT", "AGENT_TOOLS_TRACKING_DB", "XDG_CONFIG_HOME", "XDG_DATA_HOME");

    /** This process's AWS_* environment, which the AWS SDK reads: fixed for its life, so read once. */
    private static final Map<String, String> OWN_AWS_SETTINGS = awsSettings(System.getenv());

    @Option(names = "--dir", required = true, description = "The server's private folder (address file, lock).")
    Path dir;

    @Override
    public Integer call() throws Exception {
        Duration idle;
        try {
            idle = idle(Settings.read(System.getenv()));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("configuration: " + e.getMessage(), e);
        }
        PrintWriter log = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        DaemonDirectory directory = DaemonDirectory.lock(dir, LOCK_WAIT);
        if (directory == null) {
            ready("busy");
            return 0;
        }
        // the jar the launcher started (java -jar puts it alone on the class path): a rebuild replaces it
        Path jar = Path.of(System.getProperty("java.class.path").split(File.pathSeparator)[0]);
        FileTime built = modified(jar);
        SourceWatch sources = SourceWatch.of(jar);
        try (directory; SessionCache sessions = new SessionCache()) {
            DaemonServer server = DaemonServer.start(handler(sessions), log, idle,
                    () -> !Objects.equals(built, modified(jar)) || sources.newerThan(built) || directory.lost(), directory::unpublish);
            // SIGTERM, SIGINT, SIGHUP: no launcher may find the address of a server that is gone (another user could
            // take its port); the calls in flight get a few seconds to finish. kill -9 runs no hook: the launcher
            // drops an address file whose pid is dead, and trusts a port only if the kernel says it is its user's.
            Thread hook = Thread.ofPlatform().unstarted(() -> {
                directory.unpublish();
                try {
                    server.stopAndDrain(SHUTDOWN_DRAIN);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Runtime.getRuntime().addShutdownHook(hook);
            directory.publish(server.port(), server.clientSecret());
            log.println(Instant.now() + " serving on 127.0.0.1:" + server.port() + " for " + idle.toSeconds() + " s idle");
            ready("ready");
            server.awaitStop();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down already: the hook runs
            }
        }
        return 0;
    }

    /** The server's handler: {@link #handle}, and the call's timeout for the launcher (package-private for the AOT training run). */
    static DaemonServer.Handler handler(SessionCache sessions) {
        return new DaemonServer.Handler() {
            @Override
            public DaemonServer.Reply handle(LauncherRequest request) {
                return DaemonCommand.handle(request, sessions);
            }

            @Override
            public long timeoutMillis(LauncherRequest request) {
                return CallCommand.timeoutMillis(request.body());
            }
        };
    }

    /** Tells the launcher that waits on this process's stdout, then closes stdout: the server's output goes to its log. */
    private static void ready(String word) {
        System.out.println(word);
        System.out.close();
    }

    /** Answers one forwarded call as the in-process call would (package-private for the AOT training run). */
    static DaemonServer.Reply handle(LauncherRequest request, SessionCache sessions) {
        if (!awsSettings(request.settings()).equals(OWN_AWS_SETTINGS)) {
            // The AWS SDK (DynamoDB tracking) reads credentials from this process's environment, not the caller's.
            return DaemonServer.Reply.FALLBACK;
        }
        // the caller's TZ is no setting of the tools: it picks the zone its session's Habit tools take as the system's
        Map<String, String> callerSettings = new HashMap<>(request.settings());
        Optional<ZoneId> zone = CallerZone.of(callerSettings.remove(CallerZone.TZ), callerSettings.get(JAVA_OPTS),
                System.getenv(CallerZone.TZ), System.getenv(JAVA_OPTS));
        if (zone.isEmpty()) {
            return DaemonServer.Reply.FALLBACK; // a zone only the caller's own JVM can work out
        }
        Map<String, String> settings;
        try {
            settings = settings(callerSettings, request.workingDirectory());
        } catch (RuntimeException e) {
            return DaemonServer.Reply.FALLBACK; // an unreadable config file: the in-process call says so as it always does
        }
        if ("off".equals(settings.get(CallCommand.DAEMON))) {
            return DaemonServer.Reply.FALLBACK; // turned off in the config file, which the launcher does not read
        }
        StringWriter warnings = new StringWriter();
        ToolProtocol.Answer answer = CallCommand.answer(new CallCommand.Request(request.body(), null), request.startNanos(), () -> {
            CallCommand.checkDaemonSetting(settings);
            SessionCache.Entry entry = sessions.get(settings, zone.get());
            warnings.append(entry.warnings());
            return entry.session();
        });
        return new DaemonServer.Reply(answer.exitStatus(), warnings.toString().getBytes(StandardCharsets.UTF_8),
                CallCommand.outputOf(answer));
    }

    /** The caller's settings as the in-process call would read them: its config file overlaid by its environment. */
    private static Map<String, String> settings(Map<String, String> callerSettings, String workingDirectory) {
        Map<String, String> env = resolved(callerSettings, workingDirectory);
        return resolved(Settings.read(env), workingDirectory);
    }

    private static Map<String, String> resolved(Map<String, String> settings, String workingDirectory) {
        Map<String, String> out = new HashMap<>(settings);
        for (String name : PATH_SETTINGS) {
            String v = out.get(name);
            if (v != null && !v.isBlank()) {
                try {
                    Path p = Path.of(v.strip());
                    if (!p.isAbsolute()) {
                        out.put(name, Path.of(workingDirectory).resolve(p).toString());
                    }
                } catch (InvalidPathException e) {
                    // left as given: the setting's own check names it
                }
            }
        }
        return out;
    }

    private static Map<String, String> awsSettings(Map<String, String> env) {
        Map<String, String> aws = new TreeMap<>();
        env.forEach((k, v) -> {
            if (k.startsWith("AWS_")) {
                aws.put(k, v);
            }
        });
        return aws;
    }

    private static FileTime modified(Path jar) {
        try {
            return Files.getLastModifiedTime(jar);
        } catch (IOException e) {
            return null; // gone: a rebuild is under way, and the server stops
        }
    }

    /**
     * {@value #IDLE}: how long the server waits for a call before it exits.
     *
     * @throws IllegalArgumentException naming the variable, for a value that is not a duration of 1s..7d
     */
    static Duration idle(Map<String, String> settings) {
        String v = settings.get(IDLE);
        if (v == null || v.isBlank()) {
            return DEFAULT_IDLE;
        }
        Duration d;
        try {
            d = new DurationConverter().convert(v);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(IDLE + ": " + e.getMessage(), e);
        }
        if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException(IDLE + " must be 1s..7d, got " + v);
        }
        return d;
    }
}
