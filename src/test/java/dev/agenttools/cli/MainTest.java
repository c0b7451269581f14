package dev.agenttools.cli;

import dev.agenttools.Tools;
import dev.agenttools.auth.AuthException;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The command line as a user meets it: help, bad flags and exit statuses. */
class MainTest {

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cli = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static List<CommandLine> visibleCommands(CommandLine cli) {
        List<CommandLine> all = new ArrayList<>();
        for (CommandLine sub : cli.getSubcommands().values()) {
            if (!sub.getCommandSpec().usageMessage().hidden()) {
                all.add(sub);
                all.addAll(visibleCommands(sub));
            }
        }
        return all;
    }

    @Test
    void helpListsEachCommandWithAWholeFirstSentence() {
        Run help = run("--help");
        assertThat(help.exit()).isZero();
        String flat = help.out().replaceAll("\\s+", " ");
        List<CommandLine> top = Main.commandLine().getSubcommands().values().stream()
                .filter(c -> !c.getCommandSpec().usageMessage().hidden()).toList();
        assertThat(top).extracting(CommandLine::getCommandName)
                .containsExactly("call", "serve", "mcp", "server", "auth", "stats", "emulator", "bench", "cache");
        for (CommandLine c : top) {
            String first = c.getCommandSpec().usageMessage().description()[0];
            assertThat(flat).as(c.getCommandName()).contains(" " + c.getCommandName() + " " + first + " ");
        }
    }

    @Test
    void everyDescriptionIsWholeSentencesWithOneSentenceFirst() {
        for (CommandLine c : visibleCommands(Main.commandLine())) {
            String[] description = c.getCommandSpec().usageMessage().description();
            assertThat(description).as(c.getCommandName()).isNotEmpty();
            assertThat(description[0]).as(c.getCommandName()).doesNotContain(". ");
            for (String paragraph : description) {
                assertThat(paragraph).as(c.getCommandName()).matches("[A-Z].*\\.");
            }
            String[] path = c.getCommandSpec().qualifiedName(" ").replaceFirst("^agent-tools ", "").split(" ");
            String[] args = Arrays.copyOf(path, path.length + 1);
            args[path.length] = "--help";
            Run help = run(args);
            assertThat(help.exit()).as(c.getCommandName()).isZero();
            assertThat(help.out().replaceAll("\\s+", " ")).as(c.getCommandName()).contains(String.join(" ", description));
        }
    }

    @Test
    void helpListsTheWordsAnOptionTakes() {
        assertThat(run("bench", "--help").out().replaceAll("\\s+", " "))
                .contains("--target=emulator|gmail|URL Where the calls go: emulator")
                .contains("among list_emails, search_emails, get_email")
                .contains("among sequential, concurrent, batch")
                .contains("among article, tools, index, floors, process, extras (default: article)");
        assertThat(run("stats", "--help").out().replaceAll("\\s+", " ")).contains("Output: table, json (default: table)");
    }

    @Test
    void mcpHelpNamesEveryToolTheServerServes() {
        // made from the registry's commands: a written list once named 7 of the 14 tools served
        assertThat(Tools.SHORT_NAMES.keySet()).containsExactlyInAnyOrderElementsOf(Tools.commands());
        String help = run("mcp", "--help").out().replaceAll("\\s+", " ");
        assertThat(help).contains("every tool of the registry (" + String.join(", ",
                Tools.commands().stream().map(Tools.SHORT_NAMES::get).toList()) + ")");
        assertThat(run("--help").out()).contains("Gmail, Calendar and Habit tools");
    }

    @Test
    void aBadWordIsExitTwoNamingTheAllowedOnes() {
        Run format = run("stats", "--format", "xml");
        assertThat(format.exit()).isEqualTo(2);
        assertThat(format.err()).contains("Invalid value for option '--format': expected one of [table, json] (case-sensitive) but was 'xml'");
        Run tool = run("stats", "--tool", "gmail.send-email");
        assertThat(tool.exit()).isEqualTo(2);
        assertThat(tool.err()).contains("expected one of [gmail.list-emails, gmail.search-emails, gmail.get-email, calendar.list-calendars, calendar.list-events, calendar.get-event, calendar.free-busy, habit.create, habit.update, habit.archive, habit.restore, habit.log, habit.list, habit.history] but was 'gmail.send-email'");
        assertThat(tool.out()).as("nothing on stdout").isEmpty();
    }

    @Test
    void anUnknownCommandOrArgumentIsExitTwoEvenWithHelp() {
        for (String[] args : List.of(new String[] {"sever", "--help"}, new String[] {"sever"}, new String[] {"--help", "sever"},
                new String[] {"cache", "status", "extra", "--help"})) {
            Run r = run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).contains("Unmatched argument").contains(args[0].equals("cache") ? "'extra'" : "'sever'");
            assertThat(r.out()).as(String.join(" ", args)).isEmpty();
        }
        assertThat(run("sever").err()).contains("Did you mean: agent-tools serve");
        Run help = run("serve", "--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).contains("Usage: agent-tools serve");
    }

    @Test
    void aCommandGroupWithoutItsSubcommandIsAUsageError() {
        Run auth = run("auth");
        assertThat(auth.exit()).isEqualTo(2);
        assertThat(auth.err()).contains("auth needs a subcommand: login, status or logout").contains("Usage: agent-tools auth");
    }

    @Test
    void eachFailureHasOneExitStatus() {
        assertThat(Main.exitStatus(new ConfigurationException("AGENT_TOOLS_X must be 1..2, got 3"))).isEqualTo(2);
        assertThat(Main.exitStatus(new CommandLine.ParameterException(Main.commandLine(), "bad flag"))).isEqualTo(2);
        for (ToolException.Kind kind : ToolException.Kind.values()) {
            assertThat(Main.exitStatus(new ToolException(kind, "x"))).as(kind.name()).isEqualTo(kind.exitStatus());
        }
        assertThat(Main.exitStatus(new AuthException("run 'agent-tools auth login'"))).isEqualTo(4);
        assertThat(Main.exitStatus(new IllegalStateException("a bug"))).isEqualTo(1);
    }

    @Test
    void aFailingCommandPrintsItsNameAndMessageOnStderr() {
        Run bench = run("bench", "--n", "0");
        assertThat(bench.exit()).isEqualTo(2);
        assertThat(bench.err()).startsWith("agent-tools bench: runs must be >= 1, warmup >= 0, n 1..500");
    }

    @Test
    void durationsReadInEveryUnitAndPrintBackAsTyped() {
        DurationConverter d = new DurationConverter();
        assertThat(d.convert("150ms")).isEqualTo(Duration.ofMillis(150));
        assertThat(d.convert("1.5s")).isEqualTo(Duration.ofMillis(1_500));
        assertThat(d.convert("24h")).isEqualTo(Duration.ofDays(1));
        assertThat(d.convert("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(d.convert("4w")).isEqualTo(Duration.ofDays(28));
        assertThat(d.convert("0")).isZero();
        assertThatThrownBy(() -> d.convert("7")).hasMessageContaining("'7' has no unit");
        assertThat(DurationConverter.text(Duration.ofDays(7))).isEqualTo("7d");
        assertThat(DurationConverter.text(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(DurationConverter.text(Duration.ofHours(1))).isEqualTo("1h");
        assertThat(DurationConverter.text(Duration.ofMillis(150))).isEqualTo("150ms");
    }
}
