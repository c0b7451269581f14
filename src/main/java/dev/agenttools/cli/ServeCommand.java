package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.serve.StdioServer;
import dev.agenttools.tool.ToolProtocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** {@code agent-tools serve --stdio}: the persistent JSON-lines mode. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve the tools as JSON lines on stdin/stdout.",
                "One request per line, each with an id that its answer echoes; requests run concurrently, so answers may "
                        + "come out of order. Bad lines get error answers; a request beyond the limits below is answered "
                        + "'overloaded' at once and not run. End of input or SIGTERM finishes the calls admitted, then exits."})
final class ServeCommand implements Callable<Integer> {
    static final String MAX_IN_FLIGHT = "AGENT_TOOLS_SERVE_MAX_IN_FLIGHT";
    static final String MAX_QUEUED = "AGENT_TOOLS_SERVE_MAX_QUEUED";

    @Spec
    CommandSpec spec;

    @Option(names = "--stdio", required = true, description = "Serve on stdin/stdout (the only transport for now).")
    boolean stdio;

    @Option(names = "--max-in-flight", paramLabel = "N", description = "Calls running at once, 1..10000 (default: "
            + MAX_IN_FLIGHT + ", else " + StdioServer.Limits.DEFAULT_MAX_IN_FLIGHT + ").")
    Integer maxInFlight;

    @Option(names = "--max-queued", paramLabel = "N", description = "Calls waiting for a running slot, 0..100000; beyond"
            + " them requests are answered 'overloaded' (default: " + MAX_QUEUED + ", else " + StdioServer.Limits.DEFAULT_MAX_QUEUED + ").")
    Integer maxQueued;

    @Override
    public Integer call() throws Exception {
        ToolSession session;
        StdioServer.Limits limits;
        try {
            Settings settings = Settings.load();
            limits = limits(settings);
            session = ToolSession.open(spec.commandLine().getErr(), settings);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("configuration: " + e.getMessage(), e);
        }
        ToolProtocol protocol = new ToolProtocol(session.registry, Tools.SHORT_NAMES);
        // Raw stdout: answers are written whole, line by line, by the server itself.
        StdioServer server = new StdioServer(protocol, System.in, new FileOutputStream(FileDescriptor.out), limits);
        Thread drain = new Thread(() -> {
            try {
                server.drain(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                session.close(); // flush the call records of what just finished
            }
        }, "serve-drain");
        Runtime.getRuntime().addShutdownHook(drain);
        server.run();
        return 0;
    }

    /** The flags, else the settings (environment over config file), else the defaults. */
    private StdioServer.Limits limits(Settings settings) {
        int inFlight = maxInFlight != null ? maxInFlight : settings.wholeNumber(MAX_IN_FLIGHT, StdioServer.Limits.DEFAULT_MAX_IN_FLIGHT, 1, 10_000);
        int queued = maxQueued != null ? maxQueued : settings.wholeNumber(MAX_QUEUED, StdioServer.Limits.DEFAULT_MAX_QUEUED, 0, 100_000);
        if (inFlight < 1 || inFlight > 10_000) {
            throw new IllegalArgumentException("--max-in-flight must be 1..10000, got " + inFlight);
        }
        if (queued < 0 || queued > 100_000) {
            throw new IllegalArgumentException("--max-queued must be 0..100000, got " + queued);
        }
        return new StdioServer.Limits(inFlight, queued);
    }
}
