package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.tool.Json;
import dev.agenttools.tracking.CallSink;
import dev.agenttools.tracking.StatsRow;
import dev.agenttools.tracking.Tracking;
import dev.agenttools.tracking.TrackingSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code agent-tools stats}: what the call records say, per tool and backend. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Calls, error rate, fallback rate and p50/p90/p99 duration per tool and backend.",
                "From the call records (SQLite by default; AGENT_TOOLS_TRACKING=dynamodb reads DynamoDB)."})
final class StatsCommand implements Callable<Integer> {
    /** The output formats, named as users type them. */
    enum Format { table, json }

    /** The tool names {@code --tool} accepts, for help and shell completion. */
    static final class ToolNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Tools.commands().iterator();
        }
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--since", description = "How far back: 30m, 24h, 7d, 4w (default: ${DEFAULT-VALUE}).", defaultValue = "7d")
    Duration since;
    @Option(names = "--tool", completionCandidates = ToolNames.class,
            description = "Only this tool, one of ${COMPLETION-CANDIDATES}.")
    String tool;
    @Option(names = "--format", description = "Output: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).", defaultValue = "table")
    Format format;

    @Override
    public Integer call() throws Exception {
        if (tool != null && !Tools.commands().contains(tool)) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--tool': expected one of "
                    + Tools.commands() + " but was '" + tool + "'");
        }
        TrackingSettings settings;
        try {
            settings = Settings.load().tracking();
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("configuration: " + e.getMessage(), e);
        }
        if (settings.sink() == TrackingSettings.Sink.NONE) {
            throw new ConfigurationException("call tracking is off (AGENT_TOOLS_TRACKING=none): there are no records");
        }
        // Read-only: a store that does not exist yet means no call was recorded; stats creates no file, folder or table.
        Optional<CallSink> reader = Tracking.openReader(settings, Tools.commands());
        List<StatsRow> rows = List.of();
        if (reader.isPresent()) {
            try (CallSink sink = reader.get()) {
                rows = Tracking.stats(sink, Instant.now().minus(since), tool);
            }
        }
        var out = spec.commandLine().getOut();
        if (format == Format.json) {
            var root = Json.object();
            root.put("since", DurationConverter.text(since));
            root.put("store", settings.sink().wireName());
            root.set("rows", Json.tree(rows));
            out.println(Json.write(root));
        } else if (reader.isEmpty()) {
            out.println("no calls recorded yet (" + (settings.sink() == TrackingSettings.Sink.SQLITE ? "no call store at " + settings.sqliteFile()
                    : "no DynamoDB table " + settings.dynamoTable()) + ")");
        } else if (rows.isEmpty()) {
            out.println("no calls recorded in the last " + DurationConverter.text(since) + " (" + settings.sink() + ")");
        } else {
            // the columns as wide as the longest name shown (calendar.list-calendars is 23), so that rows stay aligned
            int tool = Math.max(22, rows.stream().mapToInt(r -> r.tool().length()).max().orElse(0));
            int backend = Math.max(11, rows.stream().mapToInt(r -> r.backend().length()).max().orElse(0));
            out.printf(Locale.ROOT, "%-" + tool + "s %-" + backend + "s %7s %7s %9s %9s %9s %9s%n", "tool", "backend",
                    "calls", "errors", "fallback", "p50 ms", "p90 ms", "p99 ms");
            for (StatsRow r : rows) {
                out.printf(Locale.ROOT, "%-" + tool + "s %-" + backend + "s %7d %6.1f%% %8.1f%% %9.1f %9.1f %9.1f%n", r.tool(),
                        r.backend(), r.calls(), 100 * r.errorRate(), 100 * r.fallbackRate(), r.p50Ms(), r.p90Ms(), r.p99Ms());
            }
        }
        out.flush();
        return 0;
    }
}
