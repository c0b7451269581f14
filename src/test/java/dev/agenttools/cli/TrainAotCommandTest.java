package dev.agenttools.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The AOT cache's training run (which the launcher starts after each build) makes its calls and ends cleanly. */
class TrainAotCommandTest {

    @Test
    void runsTheCallPathsAgainstAnInProcessEmulatorAndExitsZero() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("train-aot")).as(err.toString()).isZero();
        assertThat(out.toString()).isEmpty(); // stdout stays clean even here
    }
}
