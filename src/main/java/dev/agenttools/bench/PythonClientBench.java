package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Python client's rows: what {@code AgentToolsClient} and {@code AsyncAgentToolsClient} add to a call over
 * {@code serve --stdio} (issue 33's target: at most {@value #TARGET_MS} ms p50), measured by the project's
 * {@code scripts/bench/python-client-bench} (Python times Python: a JVM timing a Python process would time the process).
 * Run by {@code bench} where {@code python3} and the script are found; else the reason is printed and recorded.
 */
final class PythonClientBench {
    static final double TARGET_MS = 0.3;
    private static final Path SCRIPT = Path.of("scripts", "bench", "python-client-bench");
    private static final long TIMEOUT_MINUTES = 10;

    private PythonClientBench() {
    }

    /**
     * Runs the script with {@code calls} calls a path after a fifth as many to warm up, prints its rows and the target,
     * and answers its report (or why there is none) for the results JSON.
     */
    static Map<String, Object> run(PrintWriter out, int calls) throws InterruptedException {
        Map<String, Object> m = new LinkedHashMap<>();
        Path script = ProjectFolders.find(SCRIPT).orElse(null);
        if (script == null) {
            return skipped(out, m, "no " + SCRIPT + " here (run bench from the project)");
        }
        Path log = null;
        try {
            log = Files.createTempFile("agent-tools-python-bench", ".log");
            // agent-tools as the process-model rows start it (this JVM's jar or class path), never through the
            // launcher, which may rebuild the jar first
            String agentTools = String.join(" ", ProcessModelBench.command().stream().map(PythonClientBench::shellQuoted).toList());
            Process p = new ProcessBuilder("python3", script.toString(), "--calls", Integer.toString(calls),
                    "--warmup", Integer.toString(Math.max(50, calls / 5)), "--agent-tools", agentTools).directory(script.getParent().getParent().toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return skipped(out, m, "scripts/bench/python-client-bench took more than " + TIMEOUT_MINUTES + " minutes");
            }
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            if (p.exitValue() != 0 || lines.isEmpty() || !lines.getLast().startsWith("{")) {
                return skipped(out, m, "scripts/bench/python-client-bench failed (exit " + p.exitValue() + "): "
                        + (lines.isEmpty() ? "no output" : lines.getLast()));
            }
            JsonNode report = Json.MAPPER.readTree(lines.getLast());
            out.println("python client (scripts/bench/python-client-bench; client ms = its p50 beyond the server's own time, over a bare"
                    + " line round trip's):");
            List<String> verdicts = new ArrayList<>();
            for (JsonNode row : report.path("rows")) {
                String path = row.path("path").asText();
                double client = row.path("client_overhead_ms").asDouble();
                out.printf(Locale.ROOT, "  %-16s %-6s p50 %7.3f ms  p90 %7.3f ms  client %+.3f ms%s%n", row.path("command").asText(),
                        path, row.path("p50_ms").asDouble(), row.path("p90_ms").asDouble(), client,
                        path.equals("raw") ? "" : client <= TARGET_MS ? " (target ≤ " + TARGET_MS + " ms: met)"
                                : " (target ≤ " + TARGET_MS + " ms: not met)");
                if (!path.equals("raw")) {
                    verdicts.add(client <= TARGET_MS ? "met" : "not met");
                }
            }
            out.printf(Locale.ROOT, "  %d calls a path; load average %s%n", report.path("calls").asInt(), report.path("load"));
            m.put("report", Json.MAPPER.convertValue(report, Map.class));
            m.put("target_ms", TARGET_MS);
            m.put("target", verdicts.contains("not met") ? "not met" : "met");
            return m;
        } catch (IOException e) {
            return skipped(out, m, "python3 cannot run scripts/bench/python-client-bench: " + e.getMessage());
        } finally {
            if (log != null) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException e) {
                    // a temporary file: the system's to clean
                }
            }
        }
    }

    /** One word for a POSIX shell (the script splits it with Python's shlex): single-quoted. */
    static String shellQuoted(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    private static Map<String, Object> skipped(PrintWriter out, Map<String, Object> m, String why) {
        out.println("python client: skipped (" + why + ")");
        m.put("skipped", why);
        return m;
    }
}
