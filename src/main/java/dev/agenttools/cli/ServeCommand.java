package dev.agenttools.cli;

import dev.agenttools.tool.StdioServer;
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
        description = {"Serve the tools as JSON lines on stdin/stdout: one request per line, each with an id that its",
                "answer echoes; requests run concurrently, so answers may come out of order. Bad lines get error",
                "answers; end of input or SIGTERM finishes the calls in flight, then exits."})
final class ServeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--stdio", required = true, description = "Serve on stdin/stdout (the only transport for now).")
    boolean stdio;

    @Override
    public Integer call() throws Exception {
        ToolSession session;
        try {
            session = ToolSession.open(spec.commandLine().getErr());
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("agent-tools serve: configuration: " + e.getMessage());
            return 2;
        }
        ToolProtocol protocol = new ToolProtocol(session.registry);
        // Raw stdout: answers are written whole, line by line, by the server itself.
        StdioServer server = new StdioServer(protocol, System.in, new FileOutputStream(FileDescriptor.out));
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
}
