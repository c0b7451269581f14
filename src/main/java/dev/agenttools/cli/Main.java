package dev.agenttools.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code agent-tools} command line. The only place that calls System.exit. */
@Command(name = "agent-tools", mixinStandardHelpOptions = true, version = "agent-tools 0.1.0",
        description = "Fast, dependable Gmail tools for AI agents, with a Gmail API emulator.",
        subcommands = {CallCommand.class, ServeCommand.class, McpCommand.class, AuthCommand.class, StatsCommand.class, EmulatorCommand.class, TrainAotCommand.class,
                BenchCommand.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line (tests run commands through it and capture their output). */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        cli.registerConverter(java.time.Duration.class, new DurationConverter());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("agent-tools " + cmd.getCommandName() + ": " + e.getMessage());
            return 1;
        });
        return cli;
    }
}
