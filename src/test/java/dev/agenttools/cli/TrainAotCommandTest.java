package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The AOT cache's training run (which the launcher starts after each build) makes its calls and ends cleanly. */
class TrainAotCommandTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

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

    @Test
    void trainsAgainstAnEmulatorTheCallerStartedAndNamesABadTarget() {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(100_000_000).calendarQuotaPerMinute(100_000_000)
                .maxConcurrent(1_000).build());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        long before = emulator.counters().apiCalls();
        assertThat(cli.execute("train-aot", "--target", emulator.rootUri().toString())).as(err.toString()).isZero();
        assertThat(emulator.counters().apiCalls() - before).as("the calls went to the emulator named").isGreaterThan(600);
        assertThat(out.toString()).isEmpty();
        assertThat(cli.execute("train-aot", "--target", "ftp://nowhere/")).isEqualTo(2);
        assertThat(err.toString()).contains("--target").contains("ftp://nowhere/");
    }
}
