package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code agent-tools emulator}: serves the Gmail API emulator until stopped. */
@Command(name = "emulator", mixinStandardHelpOptions = true,
        description = {"Serve a local Gmail API v1 and Calendar API v3 with latency, handshake, quota, concurrency and fault models.",
                "The real REST surface over a seeded or loaded mailbox. Prints 'emulator listening on URL' on stdout; give "
                        + "that URL to a client as its root URL."})
final class EmulatorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    EmulatorOptions options;

    @Override
    public Integer call() throws InterruptedException {
        EmulatorConfig config = options.config();
        Emulator emulator = Emulator.start(config); // a mailbox it cannot load or a port it cannot bind: 1
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            emulator.close();
            stopped.countDown();
        }, "emulator-shutdown"));
        var err = spec.commandLine().getErr();
        err.println("emulator: " + emulator.mailboxSummary() + "; latency " + options.latency.toMillis() + "ms ±"
                + options.jitter.toMillis() + "ms, quota " + options.quota + " units/min, max " + options.maxConcurrent
                + " concurrent" + (config.tls() ? "; certificate " + emulator.certificate() : ""));
        if (options.users > 1) {
            // the tokens are the emulator's own stand-ins, documented in docs/emulator.md: no secret is printed
            err.println("emulator: user n's token is emulator-user-n"
                    + (options.token != null ? " (user 1's is --token)" : "")
                    + "; an OAuth sign-in signs in the user its login_hint names");
        }
        err.println("emulator: counters at " + emulator.rootUri() + "emulator/v1/counters; Ctrl-C stops");
        err.flush();
        var out = spec.commandLine().getOut();
        out.println("emulator listening on " + emulator.rootUri());
        out.flush();
        stopped.await();
        return 0;
    }
}
