package dev.agenttools.cli;

import dev.agenttools.Tools;
import dev.agenttools.mcp.McpStdioServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Spec;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code agent-tools mcp}: the tools as an MCP server over stdio. */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = "Serve the tools over the Model Context Protocol on stdin/stdout.")
final class McpCommand implements Callable<Integer> {
    /**
     * The help's description, its tool list made from the registry's commands (the MCP tool names), so that it names
     * every tool served: a written list once named 7 of 14.
     */
    static void describe(UsageMessageSpec usage) {
        String tools = Tools.commands().stream().map(Tools.SHORT_NAMES::get).collect(Collectors.joining(", "));
        usage.description(usage.description()[0],
                "For Claude Desktop, IDEs and agent frameworks: every tool of the registry (" + tools + "). Every bad "
                        + "line gets a JSON-RPC error; end of input finishes the calls in flight, then exits. Logs go to stderr.");
    }

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ToolSession opened;
        try {
            opened = ToolSession.open(spec.commandLine().getErr());
        } catch (IllegalArgumentException e) {
            // before any MCP traffic: a bad setting is a start-up failure, not an error on every tool call
            throw new ConfigurationException("configuration: " + e.getMessage(), e);
        }
        try (ToolSession session = opened) {
            McpStdioServer.serve(session.registry, Tools.SHORT_NAMES, "0.1.0", System.in, new FileOutputStream(FileDescriptor.out),
                    spec.commandLine().getErr()::println);
        }
        return 0;
    }
}
