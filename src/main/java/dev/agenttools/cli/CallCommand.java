package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.daemon.LauncherRequest;
import dev.agenttools.serve.StdioServer;
import dev.agenttools.tool.CallTimeouts;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** {@code agent-tools call}: the article's protocol, one JSON request on stdin, one JSON answer on stdout. */
@Command(name = "call", mixinStandardHelpOptions = true,
        description = {"Answer one JSON request from stdin with one JSON answer on stdout.",
                "The request is {\"command\": \"gmail.list-emails\", \"params\": {...}}. Exit status 0 on ok; on error the "
                        + "status names the kind (2 invalid_argument, 3 not_found, 4 unauthenticated, 5 rate_limited, "
                        + "6 upstream, 7 deadline, 9 permission_denied, 1 internal)."})
final class CallCommand implements Callable<Integer> {
    /** Whether the launcher forwards one-shot calls to the resident server. */
    static final String DAEMON = "AGENT_TOOLS_DAEMON";
    /**
     * Set by the launcher on the call it runs in-process: its own start ({@code $EPOCHREALTIME}), which the call's
     * {@code timeout_ms} counts from, as the agent that started the launcher counts (the launcher may have spent
     * part of the time on a resident server that died mid-call, or waiting for a build).
     */
    static final String STARTED_AT = "AGENT_TOOLS_CALL_STARTED_AT";
    /** What a call without a valid timeout_ms gets (the registry's default). */
    private static final long DEFAULT_TIMEOUT_MS = CallTimeouts.DEFAULT_TIMEOUT.toMillis();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        ToolSession[] session = new ToolSession[1];
        ToolProtocol.Answer answer = answer(readRequest(System.in), startNanos(System.getenv(STARTED_AT)), () -> {
            Map<String, String> settings = Settings.read(System.getenv());
            checkDaemonSetting(settings);
            session[0] = ToolSession.openOneShot(spec.commandLine().getErr(), Settings.from(settings));
            return session[0];
        });
        // Raw UTF-8 bytes on stdout, as serve writes them: JSON is UTF-8 whatever the locale says, and the
        // resident server (see the launcher) sends these same bytes.
        try {
            FileOutputStream out = new FileOutputStream(FileDescriptor.out);
            out.write(outputOf(answer));
            out.flush();
        } catch (IOException e) {
            spec.commandLine().getErr().println("agent-tools: cannot write the answer to stdout: " + e.getMessage());
        }
        if (session[0] != null) {
            session[0].close(); // after the answer is out: flushing the call record must not delay the caller
        }
        return answer.exitStatus();
    }

    /** The bytes a one-shot call writes on stdout for an answer: its line and a newline. */
    static byte[] outputOf(ToolProtocol.Answer answer) {
        return (answer.line() + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@value #DAEMON} (on, the default, or off) and the server's idle time: the launcher and the server read them;
     * the in-process call checks them, so that a bad value gets the usual configuration error.
     */
    static void checkDaemonSetting(Map<String, String> settings) {
        String v = settings.get(DAEMON);
        if (v != null && !v.isBlank() && !v.equals("on") && !v.equals("off")) {
            throw new IllegalArgumentException(DAEMON + " must be on or off, got \"" + v + "\"");
        }
        DaemonCommand.idle(settings);
    }

    /**
     * When this process started, on the {@link System#nanoTime()} clock: a one-shot call's {@code timeout_ms} counts
     * from there, as the agent that spawned it counts, so the JVM's start and the tools' set-up are inside it. Read
     * from Linux's /proc (the process's start and the time since boot, both in 10 ms ticks of the same clock), not
     * from {@link ProcessHandle.Info#startInstant()}, whose boot time has whole-second precision (it put the start
     * 0.6 s too early here). Now, where /proc cannot tell.
     */
    static long processStartNanos() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String uptime = Files.readString(Path.of("/proc/uptime"));
            // "now" is the moment uptime was read, not before the reads: a process descheduled while reading /proc (on
            // a loaded machine, 46 ms seen) would otherwise put its own start that much too early
            long now = System.nanoTime();
            // the command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double startedSeconds = Long.parseLong(fields[19]) / 100.0; // field 22, in USER_HZ ticks (100 on Linux)
            double upSeconds = Double.parseDouble(uptime.split(" ")[0]);
            long age = (long) ((upSeconds - startedSeconds) * 1e9);
            return age >= 0 && age < Duration.ofMinutes(1).toNanos() ? now - age : now;
        } catch (IOException | RuntimeException e) {
            return System.nanoTime();
        }
    }

    /**
     * When the call started: the launcher's start, {@value #STARTED_AT}, when it is set and believable (not in the
     * future, at most {@link LauncherRequest#MAX_START_AGE} old), else this process's start.
     */
    static long startNanos(String launcherStart) {
        if (launcherStart != null && !launcherStart.isBlank()) {
            try {
                return LauncherRequest.startNanos(LauncherRequest.parseEpochMicros(launcherStart.strip()), CallCommand::processStartNanos);
            } catch (IllegalArgumentException e) {
                // not a launcher's value: counted from this process's start, as without it
            }
        }
        return processStartNanos();
    }

    /**
     * The request's {@code timeout_ms} as the call will read it (the resident server tells the launcher, so that it
     * knows its deadline if the server dies mid-call): its value when valid, else the default (a request without a
     * valid one is answered at once anyway).
     */
    static long timeoutMillis(byte[] request) {
        try {
            JsonNode v = Json.MAPPER.readTree(request).path("params")
                    .path(CallTimeouts.PARAM);
            if (v.isIntegralNumber() && v.canConvertToLong() && v.asLong() >= CallTimeouts.MIN.toMillis()
                    && v.asLong() <= CallTimeouts.MAX.toMillis()) {
                return v.asLong();
            }
        } catch (IOException | RuntimeException e) {
            // not JSON: answered at once
        }
        return DEFAULT_TIMEOUT_MS;
    }

    /** The request as read from stdin: its bytes, at most one past the 1 MiB limit, or the error answer for it. */
    record Request(byte[] bytes, ToolProtocol.Answer error) {
    }

    static Request readRequest(InputStream in) {
        try {
            return new Request(in.readNBytes(StdioServer.MAX_LINE_BYTES + 1), null);
        } catch (IOException e) {
            return new Request(null, ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT, "cannot read the request from stdin: " + e.getMessage()));
        }
    }

    /**
     * Answers a request received at {@code startNanos}, with the session {@code session} opens (only when the
     * request is worth a session). The in-process call and the resident server both answer through here, so that
     * their answers are the same bytes.
     */
    static ToolProtocol.Answer answer(Request read, long startNanos, Supplier<ToolSession> session) {
        if (read.error() != null) {
            return read.error();
        }
        byte[] request = read.bytes();
        if (request.length > StdioServer.MAX_LINE_BYTES) {
            return ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT, "request over 1 MB");
        }
        String text = new String(request, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT,
                    "no request on stdin; send one JSON object such as {\"command\": \"tools.list\", \"params\": {}}");
        }
        try {
            return new ToolProtocol(session.get().registry, Tools.SHORT_NAMES).answer(text, startNanos);
        } catch (IllegalArgumentException e) {
            return ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT, "configuration: " + e.getMessage());
        }
    }
}
