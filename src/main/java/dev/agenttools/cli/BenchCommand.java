package dev.agenttools.cli;

import dev.agenttools.bench.Benchmark;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code agent-tools bench}: the article's benchmark, against the embedded emulator by default. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Benchmark list_emails, search_emails and get_email with each fetch strategy (1 warm-up + 50 runs",
                "by default) against the embedded Gmail emulator at 150 ms per call, print a comparison table and write",
                "the results as JSON (and a chart with --sweep)."})
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--target", description = "emulator (default, no account needed) or gmail (stored credentials, read-only).",
            defaultValue = "emulator")
    String target;
    @Option(names = "--runs", description = "Measured runs per row (default: ${DEFAULT-VALUE}).", defaultValue = "50")
    int runs;
    @Option(names = "--warmup", description = "Warm-up runs per row (default: ${DEFAULT-VALUE}).", defaultValue = "1")
    int warmup;
    @Option(names = "--n", description = "Emails per list/search call (default: ${DEFAULT-VALUE}).", defaultValue = "10")
    int n;
    @Option(names = "--tools", split = ",", description = "Tools to run (default: list_emails,search_emails,get_email).")
    List<String> tools = List.of("list_emails", "search_emails", "get_email");
    @Option(names = "--strategies", split = ",", description = "Strategies to run (default: sequential,concurrent,batch).")
    List<String> strategies = List.of("sequential", "concurrent", "batch");
    @Option(names = "--latency", description = "Emulator latency per call (default: ${DEFAULT-VALUE}).", defaultValue = "150ms")
    Duration latency;
    @Option(names = "--sweep", split = ",", description = "Also sweep list_emails over these sizes and chart it, e.g. 1,5,10,25,50,100.")
    List<Integer> sweep = List.of();
    @Option(names = "--sweep-runs", description = "Measured runs per sweep point (default: ${DEFAULT-VALUE}).", defaultValue = "5")
    int sweepRuns;
    @Option(names = "--out", description = "Folder for the results (default: ${DEFAULT-VALUE}).", defaultValue = "results")
    Path out;
    @Option(names = "--pause", description = "Idle time before each measured run, not measured (default: ${DEFAULT-VALUE}); "
            + "1s or more lets the quota bucket refill, as between an agent's occasional calls.", defaultValue = "0ms")
    Duration pause;
    // A plain flag: picocli's negatable booleans that default to true read the two forms the other way round.
    @Option(names = "--no-process-model",
            description = "Skip timing get_email in-process, through serve --stdio and through a JVM per call (done by default).")
    boolean noProcessModel;
    @Option(names = "--quick", description = "A short run for smoke tests: 1 warm-up + 5 runs, sweep points 1 run.")
    boolean quick;

    @Override
    public Integer call() throws Exception {
        Benchmark.Options options;
        try {
            options = new Benchmark.Options(target, quick ? Math.min(runs, 5) : runs, quick ? Math.min(warmup, 1) : warmup, n,
                    tools, strategies, latency, sweep, quick ? 1 : sweepRuns, out, pause, !noProcessModel);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("agent-tools bench: " + e.getMessage());
            return 2;
        }
        return Benchmark.run(options, spec.commandLine().getOut(), System.err);
    }
}
