package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.bench.Benchmark;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code agent-tools bench}: the article's benchmark, against the embedded emulator by default. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Benchmark the tools' fetch strategies: by default, the article's experiment side by side.",
                "By default (about three minutes): list_emails(10) sequential, concurrent and batch, the article's Go design "
                        + "(built by scripts/bench/go-peer) and get_email, 1 warm-up + 50 runs each, against an emulator process of its "
                        + "own at 150 ms a call, as users meet it; prints the table as it finishes, writes the results as JSON and "
                        + "a chart (PNG) beside the article's figures. --all adds every other part (about 18 minutes): every tool "
                        + "with every strategy, the mail index, the bare-client floors, the process models and first calls, and "
                        + "the extras (tracking, token check, Habit, the Python client, decoding); --parts names some. --sweep adds "
                        + "a chart of p50 against the list size, whatever the parts."})
final class BenchCommand implements Callable<Integer> {
    // The constants are named as users type them: picocli matches them, lists them in help and names them in errors.

    /** The tools the benchmark times. */
    enum BenchTool { list_emails, search_emails, get_email, list_events, get_event }

    /** The fetch strategies (the tools' {@code strategy} parameter). */
    enum Strategy { sequential, concurrent, batch }

    @Spec
    CommandSpec spec;

    @Option(names = "--target", paramLabel = "emulator|gmail|URL", description = "Where the calls go: emulator (the embedded "
            + "one, no account needed), gmail (the stored sign-in, read-only), or a root URL such as http://127.0.0.1:8080/ "
            + "(an ./agent-tools emulator running on its own, timed as users meet it; its counters are read; the token is "
            + "AGENT_TOOLS_ACCESS_TOKEN's, else bench-token; --latency names its latency for the bound) "
            + "(default: ${DEFAULT-VALUE}).", defaultValue = "emulator")
    String target;
    @Option(names = "--runs", description = "Measured runs per row (default: ${DEFAULT-VALUE}).", defaultValue = "50")
    int runs;
    @Option(names = "--warmup", description = "Warm-up runs per row (default: ${DEFAULT-VALUE}).", defaultValue = "1")
    int warmup;
    @Option(names = "--n", description = "Emails per list/search call (default: ${DEFAULT-VALUE}).", defaultValue = "10")
    int n;
    @Option(names = "--tools", split = ",", description = "Tools to run, among ${COMPLETION-CANDIDATES} (default: all).")
    List<BenchTool> tools = List.of(BenchTool.values());
    @Option(names = "--strategies", split = ",", description = "Strategies to run, among ${COMPLETION-CANDIDATES} (default: all).")
    List<Strategy> strategies = List.of(Strategy.values());
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
    @Option(names = "--no-process-model", description = "Leave out the process part even with --all (get_email in-process, "
            + "through serve, the server, a JVM per call and the launcher).")
    boolean noProcessModel;
    @Option(names = "--no-external", description = "With the embedded emulator, run every row against the emulator in "
            + "the benchmark's JVM, the article's included, instead of against an emulator process of its own (then no Go "
            + "peer rows, no bare floors and no first-call rows).")
    boolean noExternal;
    @Option(names = "--cleartext", description = "The emulator process of its own serves plain HTTP (h2c) instead of "
            + "HTTPS with HTTP/2 by ALPN, the way every real Gmail call travels (the default).")
    boolean cleartext;
    @Option(names = "--parts", split = ",", paramLabel = "PART", description = "The parts to run, among ${COMPLETION-CANDIDATES} "
            + "(default: article).")
    List<Benchmark.Part> parts = List.of(Benchmark.Part.article);
    @Option(names = "--all", description = "Run every part: " + "article, tools, index, floors, process, extras.")
    boolean all;
    @Option(names = "--quick", description = "A short run for smoke tests: 1 warm-up + 5 runs, sweep points 1 run.")
    boolean quick;

    /** --all, else --parts; --no-process-model takes the process part out of either. */
    Set<Benchmark.Part> chosenParts() {
        Set<Benchmark.Part> chosen = EnumSet.noneOf(Benchmark.Part.class);
        chosen.addAll(all ? Benchmark.Part.all() : parts);
        if (noProcessModel) {
            chosen.remove(Benchmark.Part.process);
        }
        return chosen;
    }

    @Override
    public Integer call() throws Exception {
        Benchmark.Options options;
        try {
            options = new Benchmark.Options(target, quick ? Math.min(runs, 5) : runs, quick ? Math.min(warmup, 1) : warmup, n,
                    tools.stream().map(Enum::name).toList(), strategies.stream().map(Enum::name).toList(), latency, sweep,
                    quick ? 1 : sweepRuns, out, pause, !noExternal, !cleartext, chosenParts());
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
        // with AGENT_TOOLS_WARMUP=on, measured as a process that warms up at start (serve, mcp, server, the launcher's)
        boolean warmUp;
        try {
            warmUp = JitWarmUp.enabled(Settings.load());
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
        if (warmUp && !quick) {
            System.err.printf(Locale.ROOT, "bench: warmed up as an agent-tools process with %s=on does at start: %d rounds in %.1f s%n", JitWarmUp.SETTING, JitWarmUp.ROUNDS,
                    JitWarmUp.run(JitWarmUp.ROUNDS).toMillis() / 1e3);
        }
        return Benchmark.run(options, spec.commandLine().getOut(), System.err);
    }
}
