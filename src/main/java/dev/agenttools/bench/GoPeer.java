package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The benchmark's Go peer: the article's design (the official Go Gmail client, {@code google.golang.org/api/gmail/v1};
 * messages.list, then a goroutine per message for its messages.get), built from Debian's packages by
 * {@code scripts/bench/go-peer} into {@code target/go-peer/gmail-peer} (source: {@code src/bench/go/gmail-peer/main.go}).
 * Each call runs the binary once and reads the one JSON line it prints; the Go process times its own runs with
 * Go's monotonic clock, so a row compares the two clients' calls, not process starts, except in
 * {@link #firstCallNanos}, which times a whole fresh process as the article's one-shot binary was used.
 *
 * <p>The token goes to the process in its environment ({@value #TOKEN_ENV}), not its arguments, which any user of the
 * machine can read in {@code /proc}; no message here carries it. Every process is waited for with a bound and killed
 * past it. Thread-safe (no state but the binary's path).
 */
final class GoPeer {
    /** Its rows' strategy column. */
    static final String STRATEGY = "go";
    /** Where the binary is when it is not in the project's {@code target/go-peer}. */
    static final String PATH_ENV = "AGENT_TOOLS_GO_PEER";
    /** How gmail-peer is given its token. */
    static final String TOKEN_ENV = "GMAIL_PEER_TOKEN";
    static final Path BUILT = Path.of("target", "go-peer", "gmail-peer");
    /** The most one run may take in the Go process (its --timeout), and so a bound on a process of r runs. */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(30);
    /** Time for the process itself to start and exit, on top of its runs. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    /** The most of stderr quoted in an error, and of stdout read (a 500-run result is ~6 KB). */
    private static final int MAX_QUOTED = 500;
    private static final Duration PIPE_TIMEOUT = Duration.ofSeconds(5);
    private static final int MAX_OUTPUT = 1 << 20;

    private final Path binary;
    private final Duration runTimeout;
    private final Duration startTimeout;

    GoPeer(Path binary) {
        this(binary, RUN_TIMEOUT, START_TIMEOUT);
    }

    /** With other bounds: the most a run may take, and the time a process has to start and exit besides its runs. */
    GoPeer(Path binary, Duration runTimeout, Duration startTimeout) {
        this.binary = binary;
        this.runTimeout = runTimeout;
        this.startTimeout = startTimeout;
    }

    /**
     * The peer if it is built: {@value #PATH_ENV} when set (then it must be an executable file), else
     * {@code target/go-peer/gmail-peer} in the project this class was loaded from (from {@code target/classes}, the
     * jar in {@code target/} or the launcher's {@code target/launcher/}).
     */
    static Optional<GoPeer> find() throws IOException {
        return find(System.getenv(PATH_ENV), ProjectFolders.ownLocation());
    }

    static Optional<GoPeer> find(String configured, Path from) throws IOException {
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured);
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new IOException(PATH_ENV + " must name the gmail-peer binary (scripts/bench/go-peer builds it), got " + configured
                        + (Files.exists(p) ? " (not an executable file)" : " (no such file)"));
            }
            return Optional.of(new GoPeer(p));
        }
        return ProjectFolders.upFrom(from).map(p -> p.resolve(BUILT))
                .filter(candidate -> Files.isRegularFile(candidate) && Files.isExecutable(candidate)).findFirst().map(GoPeer::new);
    }

    /** How long building the peer may take, Debian's packages installed first when missing (a minute here). */
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);

    /**
     * The peer, built first by the project's {@code scripts/bench/go-peer} when it is not (that script installs Debian's Go
     * and Google API sources as root or through {@code sudo -n}, else says what to install): so that a newcomer's
     * first {@code bench} compares against Go without a step of its own. Empty, with the reason on {@code err},
     * when it cannot be built; the benchmark then runs without the Go rows.
     */
    static Optional<GoPeer> findOrBuild(PrintStream err) {
        try {
            Optional<GoPeer> found = find();
            if (found.isPresent() || System.getenv(PATH_ENV) != null) {
                return found;
            }
            for (Path p : ProjectFolders.candidates().toList()) {
                Path script = p.resolve("scripts").resolve("bench").resolve("go-peer");
                if (Files.isExecutable(script) && Files.isRegularFile(p.resolve("pom.xml"))) {
                    err.println("bench: building the Go peer (scripts/bench/go-peer; the first time it installs Debian's golang-go and "
                            + "golang-google-api-dev, about a minute)...");
                    Process build = new ProcessBuilder(script.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .redirectError(ProcessBuilder.Redirect.INHERIT).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
                    if (!build.waitFor(BUILD_TIMEOUT.toMinutes(), TimeUnit.MINUTES)) {
                        build.destroyForcibly();
                        err.println("bench: scripts/bench/go-peer took more than " + BUILD_TIMEOUT.toMinutes() + " minutes: no Go rows");
                        return Optional.empty();
                    }
                    if (build.exitValue() != 0) {
                        err.println("bench: scripts/bench/go-peer failed (exit " + build.exitValue() + ", above): no Go rows");
                        return Optional.empty();
                    }
                    return find();
                }
            }
            err.println("bench: no Go peer (" + BUILT + " is not built and no scripts/bench/go-peer is here to build it): no Go rows");
            return Optional.empty();
        } catch (IOException e) {
            err.println("bench: no Go rows: " + e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    Path binary() {
        return binary;
    }

    /**
     * What one gmail-peer process measured: its successful runs' times in ms (Go's monotonic clock), the runs that
     * failed (a list fails when its list or any of its gets does) with the first failure's message, and how many
     * messages the last list returned (0 for gets).
     */
    record Samples(String mode, int n, List<Double> runsMs, int errors, String firstError, int messages) {
        Samples {
            runsMs = List.copyOf(runsMs);
        }
    }

    /** list_emails(n) the article's way, {@code warmup} untimed and {@code runs} timed, in one process. */
    Samples list(String rootUrl, String token, Path caCert, int n, int warmup, int runs) throws IOException, InterruptedException {
        return samples(rootUrl, token, caCert, warmup, runs, List.of("--mode", "list", "--n", Integer.toString(n)));
    }

    /** get_email of {@code ids} round-robin, {@code warmup} untimed and {@code runs} timed, in one process. */
    Samples get(String rootUrl, String token, Path caCert, List<String> ids, int warmup, int runs) throws IOException, InterruptedException {
        if (ids.isEmpty() || ids.stream().anyMatch(id -> id.isBlank() || id.contains(","))) {
            throw new IllegalArgumentException("ids must be message ids without commas, at least one, got " + ids);
        }
        return samples(rootUrl, token, caCert, warmup, runs, List.of("--mode", "get", "--ids", String.join(",", ids)));
    }

    /**
     * One get_email in a fresh process, timed from before its spawn to its exit: the first call of the article's
     * one-shot binary, its start, a new connection (and TLS handshake) and the call. Fails unless the call succeeded.
     */
    long firstCallNanos(String rootUrl, String token, Path caCert, String id) throws IOException, InterruptedException {
        List<String> command = command(rootUrl, caCert, 0, 1, List.of("--mode", "get", "--ids", id));
        long start = System.nanoTime();
        Finished f = run(command, token, 1);
        long elapsed = f.exitedAt - start;
        if (f.status != 0) {
            throw failure(command, f, token);
        }
        return elapsed;
    }

    private Samples samples(String rootUrl, String token, Path caCert, int warmup, int runs, List<String> mode)
            throws IOException, InterruptedException {
        List<String> command = command(rootUrl, caCert, warmup, runs, mode);
        Finished f = run(command, token, warmup + runs);
        // 1: some runs failed, and the line says which; anything else is a set-up failure with no line
        if (f.status != 0 && f.status != 1 || f.stdout.isBlank()) {
            throw failure(command, f, token);
        }
        JsonNode line = Json.MAPPER.readTree(f.stdout);
        List<Double> ms = new ArrayList<>();
        line.path("runs_ms").forEach(v -> ms.add(v.asDouble()));
        return new Samples(line.path("mode").asText(), line.path("n").asInt(), ms, line.path("errors").asInt(),
                redact(line.path("first_error").asText(), token), line.path("messages").asInt());
    }

    private List<String> command(String rootUrl, Path caCert, int warmup, int runs, List<String> mode) {
        List<String> c = new ArrayList<>(List.of(binary.toString(), "--root", rootUrl, "--warmup", Integer.toString(warmup),
                "--runs", Integer.toString(runs), "--timeout", runTimeout.toMillis() + "ms"));
        if (caCert != null) {
            c.addAll(List.of("--ca-cert", caCert.toString()));
        }
        c.addAll(mode);
        return c;
    }

    private record Finished(int status, String stdout, String stderr, long exitedAt) {
    }

    /** Runs the binary, reading its stdout and stderr (bounded) while it runs; kills it past the bound. */
    private Finished run(List<String> command, String token, int calls) throws IOException, InterruptedException {
        ProcessBuilder b = new ProcessBuilder(command);
        b.environment().put(TOKEN_ENV, token);
        Process p = b.start();
        p.getOutputStream().close(); // it reads nothing
        // both pipes read while it runs (a full pipe would stop it), on threads of their own so the bound holds
        AtomicReference<String> stdout = new AtomicReference<>("");
        AtomicReference<String> stderr = new AtomicReference<>("");
        Thread output = Thread.ofVirtual().start(() -> stdout.set(read(p.getInputStream())));
        Thread errors = Thread.ofVirtual().start(() -> stderr.set(read(p.getErrorStream())));
        Duration bound = startTimeout.plus(runTimeout.multipliedBy(calls));
        boolean exited = p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
        long exitedAt = System.nanoTime();
        if (!exited) {
            p.destroyForcibly();
        }
        // a child it left behind could hold the pipes open: the readers get a bound too
        output.join(PIPE_TIMEOUT);
        errors.join(PIPE_TIMEOUT);
        if (!exited) {
            throw new IOException("gmail-peer did not finish within " + bound.toMillis() + " ms; killed ("
                    + String.join(" ", command) + ")" + quoted(stderr.get(), token));
        }
        return new Finished(p.exitValue(), stdout.get(), stderr.get(), exitedAt);
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int r = in.read(buffer); r >= 0; r = in.read(buffer)) {
                if (out.size() < MAX_OUTPUT) {
                    out.write(buffer, 0, Math.min(r, MAX_OUTPUT - out.size()));
                } // past the bound: read on and drop, so the process never blocks on a full pipe
            }
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static IOException failure(List<String> command, Finished f, String token) {
        return new IOException("gmail-peer exited with status " + f.status + " (" + String.join(" ", command) + ")"
                + quoted(f.stderr, token));
    }

    private static String quoted(String stderr, String token) {
        if (stderr == null || stderr.isBlank()) {
            return "";
        }
        String s = redact(stderr.strip(), token);
        return ": " + (s.length() > MAX_QUOTED ? s.substring(0, MAX_QUOTED) + "…" : s);
    }

    /** As gmail-peer's: a token shorter than 8 characters (a test's "t") is no real one and would garble every word. */
    private static String redact(String s, String token) {
        return token == null || token.length() < 8 ? s : s.replace(token, "<token>");
    }
}
