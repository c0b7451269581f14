package dev.agenttools.bench;

import dev.agenttools.Tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * An {@code agent-tools emulator} in a process of its own, as users run one: the benchmark's outside view, since an
 * emulator inside the benchmark's JVM shares its CPU, its JIT and its scheduler with the client it serves and has
 * flattered it before (2 % over the bound in-process, 13 % from outside).
 */
final class ExternalEmulator implements AutoCloseable {
    private static final String LISTENING = "emulator listening on ";
    /**
     * A JVM that seeds 1,200 messages and listens over TLS: 2-3 s alone, but more than 60 s was seen at the start of
     * the test suite, beside an image build, a Python venv and three servers starting on the same two cores.
     */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    private final Process process;
    private final String rootUrl;
    private final Path certificate;
    private final SSLContext trust;

    private ExternalEmulator(Process process, String rootUrl, Path certificate) {
        this.process = process;
        this.rootUrl = rootUrl;
        this.certificate = certificate;
        // one context for every instrument: the PEM read once, and TLS sessions shared
        this.trust = certificate == null ? null : Tools.trusting(certificate);
    }

    /**
     * Starts one on a free port with this latency, no jitter and no handshake delay (the set-up the project's
     * speed targets are stated for), and the embedded emulator's other defaults; over TLS (HTTP/2 by ALPN, as Gmail
     * is reached) when {@code tls}, its certificate in a file of its own.
     */
    static ExternalEmulator start(Duration latency, boolean tls) throws IOException, InterruptedException {
        return start(latency, tls, Duration.ZERO);
    }

    /**
     * As above, with {@code handshake} added to each new connection's first request (the emulator's model of a TCP
     * and TLS handshake across a real network: a fresh process's first call pays it).
     */
    static ExternalEmulator start(Duration latency, boolean tls, Duration handshake) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(ProcessModelBench.command("emulator", "--latency", latency.toMillis() + "ms",
                "--jitter", "0ms", "--handshake", handshake.toMillis() + "ms", "--port", "0"));
        Path certificate = null;
        if (tls) {
            certificate = Files.createTempDirectory("agent-tools-bench-tls").resolve("emulator.pem");
            command.addAll(List.of("--tls", "--cert-file", certificate.toString()));
        }
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String[] url = new String[1];
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith(LISTENING)) {
                        url[0] = line.substring(LISTENING.length()).strip();
                        return;
                    }
                }
            } catch (IOException e) {
                // no URL: reported below
            }
        });
        reader.join(START_TIMEOUT.toMillis());
        if (url[0] == null) {
            p.destroyForcibly();
            throw new IOException("the emulator process did not say where it listens within " + START_TIMEOUT.toSeconds()
                    + " s (" + String.join(" ", command) + ")");
        }
        return new ExternalEmulator(p, url[0], certificate);
    }

    String rootUrl() {
        return rootUrl;
    }

    /** The certificate (PEM) to trust, or null in cleartext. */
    Path certificate() {
        return certificate;
    }

    /** A TLS context trusting its certificate, or null in cleartext. */
    SSLContext trust() {
        return trust;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        if (certificate != null) {
            try {
                Files.deleteIfExists(certificate);
                Files.deleteIfExists(certificate.getParent());
            } catch (IOException e) {
                // a temporary file: left for the system to clean
            }
        }
    }
}
