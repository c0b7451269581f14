package dev.agenttools.cli;

import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/** {@code agent-tools call}: the article's protocol, one JSON request on stdin, one JSON answer on stdout. */
@Command(name = "call", mixinStandardHelpOptions = true,
        description = {"Answer one JSON request from stdin with one JSON answer on stdout.",
                "The request is {\"command\": \"gmail.list-emails\", \"params\": {...}}. Exit status 0 on ok; on error the "
                        + "status names the kind (2 invalid_argument, 3 not_found, 4 unauthenticated, 5 rate_limited, "
                        + "6 upstream, 7 deadline, 1 internal)."})
final class CallCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        var out = spec.commandLine().getOut();
        ToolSession[] session = new ToolSession[1];
        ToolProtocol.Answer answer = answer(System.in, spec.commandLine().getErr(), session);
        out.println(answer.line());
        out.flush();
        if (session[0] != null) {
            session[0].close(); // after the answer is out: flushing the call record must not delay the caller
        }
        return answer.exitStatus();
    }

    /**
     * When this process started, on the {@link System#nanoTime()} clock: a one-shot call's {@code timeout_ms} counts
     * from there, as the agent that spawned it counts, so the JVM's start and the tools' set-up are inside it. Read
     * from Linux's /proc (the process's start and the time since boot, both in 10 ms ticks of the same clock), not
     * from {@link ProcessHandle.Info#startInstant()}, whose boot time has whole-second precision (it put the start
     * 0.6 s too early here). Now, where /proc cannot tell.
     */
    static long processStartNanos() {
        long now = System.nanoTime();
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            // the command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double startedSeconds = Long.parseLong(fields[19]) / 100.0; // field 22, in USER_HZ ticks (100 on Linux)
            double upSeconds = Double.parseDouble(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/uptime"))
                    .split(" ")[0]);
            long age = (long) ((upSeconds - startedSeconds) * 1e9);
            return age >= 0 && age < java.time.Duration.ofMinutes(1).toNanos() ? now - age : now;
        } catch (java.io.IOException | RuntimeException e) {
            return now;
        }
    }

    /** Reads and answers the request; the session it opened (if any) is left in {@code opened} for the caller to close. */
    static ToolProtocol.Answer answer(InputStream in, java.io.PrintWriter err, ToolSession[] opened) {
        byte[] request;
        try {
            request = in.readNBytes(dev.agenttools.tool.StdioServer.MAX_LINE_BYTES + 1);
        } catch (IOException e) {
            return ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT, "cannot read the request from stdin: " + e.getMessage());
        }
        if (request.length > dev.agenttools.tool.StdioServer.MAX_LINE_BYTES) {
            return ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT, "request over 1 MB");
        }
        String text = new String(request, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT,
                    "no request on stdin; send one JSON object such as {\"command\": \"tools.list\", \"params\": {}}");
        }
        try {
            opened[0] = ToolSession.open(err);
            return new ToolProtocol(opened[0].registry).answer(text, processStartNanos());
        } catch (IllegalArgumentException e) {
            return ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT, "configuration: " + e.getMessage());
        }
    }
}
