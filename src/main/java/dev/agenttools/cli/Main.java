package dev.agenttools.cli;

import dev.agenttools.auth.AuthException;
import dev.agenttools.tool.ToolException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.time.Duration;

/**
 * The {@code agent-tools} command line. The only place that calls System.exit, and the one place that turns a
 * failure into an exit status ({@link #exitStatus}): commands return 0 (or a result's status) and throw on failure.
 */
@Command(name = "agent-tools", mixinStandardHelpOptions = true, version = "agent-tools 0.1.0",
        description = "Fast, dependable Gmail, Calendar and Habit tools for AI agents, with a Gmail and Calendar API emulator.",
        subcommands = {CallCommand.class, ServeCommand.class, McpCommand.class, ServerCommand.class, AuthCommand.class, StatsCommand.class, EmulatorCommand.class, TrainAotCommand.class, DaemonCommand.class,
                BenchCommand.class, CacheCommand.class})
public final class Main {
    /** A bad flag or setting: picocli's own status for a usage error. */
    static final int CONFIGURATION = CommandLine.ExitCode.USAGE;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line (tests run commands through it and capture their output). */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        McpCommand.describe(cli.getSubcommands().get("mcp").getCommandSpec().usageMessage());
        cli.registerConverter(Duration.class, new DurationConverter());
        cli.setExitCodeExceptionMapper(Main::exitStatus);
        cli.setExecutionStrategy(Main::refuseUnmatched);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": "
                    + (e.getMessage() == null ? e.toString() : e.getMessage()));
            cmd.getErr().flush();
            return cmd.getExitCodeExceptionMapper().getExitCode(e);
        });
        return cli;
    }

    /**
     * Runs the command parsed, unless a word was left unmatched: picocli lets {@code --help} win over an unknown
     * command or argument ({@code agent-tools server --help} printed the top-level usage and exited 0), so a typo in
     * a script or an MCP client's configuration passed for success. The unmatched word is the usual usage error
     * instead ({@code Unmatched argument at index 0: 'server'}, with picocli's suggestion), exit status 2.
     */
    private static int refuseUnmatched(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult level = parsed; level != null; level = level.subcommand()) {
            if (!level.unmatched().isEmpty()) {
                throw new CommandLine.UnmatchedArgumentException(level.commandSpec().commandLine(), level.unmatched());
            }
        }
        return new CommandLine.RunLast().execute(parsed);
    }

    /**
     * The exit status of a failure: 2 for a bad flag or setting, a {@link ToolException}'s kind's status (a sign-in
     * problem is unauthenticated, 4), else 1.
     */
    static int exitStatus(Throwable e) {
        return switch (e) {
            case ConfigurationException c -> CONFIGURATION;
            case CommandLine.ParameterException p -> CONFIGURATION;
            case ToolException t -> t.kind().exitStatus();
            case AuthException a -> ToolException.Kind.UNAUTHENTICATED.exitStatus();
            default -> CommandLine.ExitCode.SOFTWARE;
        };
    }
}
