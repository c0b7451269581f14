package dev.agenttools.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench command's flags as a user types them. */
class BenchCommandTest {

    private static BenchCommand parse(String... args) {
        var cli = Main.commandLine();
        var parsed = cli.parseArgs(args);
        return parsed.subcommand().commandSpec().commandLine().getCommand();
    }

    @Test
    void toolsAndStrategiesDefaultToAllAndReadAsTyped() {
        assertThat(parse("bench").tools).containsExactly(BenchCommand.BenchTool.values());
        assertThat(parse("bench", "--strategies", "batch,sequential").strategies)
                .containsExactly(BenchCommand.Strategy.batch, BenchCommand.Strategy.sequential);
        assertThat(parse("bench").target).isEqualTo("emulator");
        assertThat(parse("bench", "--target", "http://127.0.0.1:8080/").target).isEqualTo("http://127.0.0.1:8080/");
    }

    @Test
    void theDefaultIsTheArticlesPartAndAllIsEveryPart() {
        // by name: naming the benchmark's class here would make this a test that starts processes (ProcessTagTest)
        assertThat(parse("bench").chosenParts()).extracting(Enum::name).containsExactly("article");
        assertThat(parse("bench", "--all").chosenParts()).extracting(Enum::name)
                .containsExactly("article", "tools", "index", "floors", "process", "extras");
        assertThat(parse("bench", "--parts", "process,tools").chosenParts()).extracting(Enum::name).containsExactly("tools", "process");
        assertThat(parse("bench", "--all", "--no-process-model").chosenParts()).extracting(Enum::name).doesNotContain("process").hasSize(5);
    }

    @Test
    void badOptionsNameTheAllowedWordsAndExitTwo() {
        StringWriter err = new StringWriter();
        var cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(new StringWriter()));
        assertThat(cli.execute("bench", "--target", "prod")).isEqualTo(2);
        assertThat(err.toString()).contains("agent-tools bench: target must be emulator, gmail or an http(s) root URL such as "
                + "http://127.0.0.1:8080/ (an emulator's), got prod");
        assertThat(cli.execute("bench", "--tools", "list_emails,send_email")).isEqualTo(2);
        assertThat(err.toString()).contains("expected one of [list_emails, search_emails, get_email, list_events, get_event] (case-sensitive) but was 'send_email'");
        assertThat(cli.execute("bench", "--strategies", "fast")).isEqualTo(2);
        assertThat(err.toString()).contains("expected one of [sequential, concurrent, batch] (case-sensitive) but was 'fast'");
        assertThat(cli.execute("bench", "--parts", "everything")).isEqualTo(2);
        assertThat(err.toString()).contains("expected one of [article, tools, index, floors, process, extras] (case-sensitive) but was 'everything'");
        assertThat(cli.execute("bench", "--runs", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("agent-tools bench: runs must be >= 1");
    }
}
