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
    void processModelRowsAreOnByDefaultAndOffWithTheFlag() {
        assertThat(parse("bench").noProcessModel).isFalse();
        assertThat(parse("bench", "--no-process-model").noProcessModel).isTrue();
    }

    @Test
    void badOptionsAreNamedAndExitTwo() {
        StringWriter err = new StringWriter();
        var cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(new StringWriter()));
        assertThat(cli.execute("bench", "--target", "prod")).isEqualTo(2);
        assertThat(err.toString()).contains("target must be emulator or gmail");
        assertThat(cli.execute("bench", "--tools", "send_email")).isEqualTo(2);
        assertThat(err.toString()).contains("tools must be among");
    }
}
