package dev.agenttools.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An {@code agent-tools emulator} in a process of its own, as users run one: the benchmark's outside view, since an
 * emulator inside the benchmark's JVM shares its CPU, its JIT and its scheduler with the client it serves and has
 * flattered it before (2 % over the bound in-process, 13 % from outside).
 */
final class ExternalEmulator implements AutoCloseable {
    private static final String LISTENING = "emulator listening on ";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private final Process process;
    private final String rootUrl;

    private ExternalEmulator(Process process, String rootUrl) {
        this.process = process;
        this.rootUrl = rootUrl;
    }

    /**
     * Starts one on a free port with this latency, no jitter and no handshake delay (the set-up the project's
     * speed targets are stated for), and the embedded emulator's other defaults.
     */
    static ExternalEmulator start(Duration latency) throws IOException, InterruptedException {
        List<String> command = ProcessModelBench.command("emulator", "--latency", latency.toMillis() + "ms",
                "--jitter", "0ms", "--handshake", "0ms", "--port", "0");
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
        return new ExternalEmulator(p, url[0]);
    }

    String rootUrl() {
        return rootUrl;
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
    }
}
