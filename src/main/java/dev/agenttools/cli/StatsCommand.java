package dev.agenttools.cli;

import dev.agenttools.Tools;
import dev.agenttools.tool.Json;
import dev.agenttools.tracking.CallSink;
import dev.agenttools.tracking.StatsRow;
import dev.agenttools.tracking.Tracking;
import dev.agenttools.tracking.TrackingSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code agent-tools stats}: what the call records say, per tool and backend. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Per tool and backend: calls, error rate, fallback rate and p50/p90/p99 duration, from the",
                "call records (SQLite by default; AGENT_TOOLS_TRACKING=dynamodb reads DynamoDB)."})
final class StatsCommand implements Callable<Integer> {
    private static final Pattern SINCE = Pattern.compile("(\\d+)([mhdw])");

    @Spec
    CommandSpec spec;

    @Option(names = "--since", description = "How far back: 30m, 24h, 7d, 4w (default: ${DEFAULT-VALUE}).", defaultValue = "7d")
    String since;
    @Option(names = "--tool", description = "Only this tool, e.g. gmail.list-emails.")
    String tool;
    @Option(names = "--format", description = "table or json (default: ${DEFAULT-VALUE}).", defaultValue = "table")
    String format;

    @Override
    public Integer call() throws Exception {
        var err = spec.commandLine().getErr();
        Matcher m = SINCE.matcher(since.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            err.println("agent-tools stats: --since must be a number with m, h, d or w (30m, 24h, 7d, 4w), got " + since);
            return 2;
        }
        if (!format.equals("table") && !format.equals("json")) {
            err.println("agent-tools stats: --format must be table or json, got " + format);
            return 2;
        }
        if (tool != null && !Tools.commands().contains(tool)) {
            err.println("agent-tools stats: --tool must be one of " + String.join(", ", Tools.commands()) + ", got " + tool);
            return 2;
        }
        long n = Long.parseLong(m.group(1));
        Duration span = switch (m.group(2)) {
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofDays(7 * n);
        };
        TrackingSettings settings;
        try {
            settings = TrackingSettings.fromEnvironment(dev.agenttools.Config.load());
        } catch (IllegalArgumentException e) {
            err.println("agent-tools stats: configuration: " + e.getMessage());
            return 2;
        }
        if (settings.sink().equals("none")) {
            err.println("agent-tools stats: call tracking is off (AGENT_TOOLS_TRACKING=none): there are no records");
            return 2;
        }
        // Read-only: a store that does not exist yet means no call was recorded; stats creates no file, folder or table.
        Optional<CallSink> reader = Tracking.openReader(settings, Tools.commands());
        List<StatsRow> rows = List.of();
        if (reader.isPresent()) {
            try (CallSink sink = reader.get()) {
                rows = Tracking.stats(sink, Instant.now().minus(span), tool);
            }
        }
        var out = spec.commandLine().getOut();
        if (format.equals("json")) {
            var root = Json.object();
            root.put("since", since);
            root.put("store", settings.sink());
            root.set("rows", Json.tree(rows));
            out.println(Json.write(root));
        } else if (reader.isEmpty()) {
            out.println("no calls recorded yet (" + (settings.sink().equals("sqlite") ? "no call store at " + settings.sqliteFile()
                    : "no DynamoDB table " + settings.dynamoTable()) + ")");
        } else if (rows.isEmpty()) {
            out.println("no calls recorded in the last " + since + " (" + settings.sink() + ")");
        } else {
            out.printf(Locale.ROOT, "%-22s %-11s %7s %7s %9s %9s %9s %9s%n", "tool", "backend", "calls", "errors", "fallback",
                    "p50 ms", "p90 ms", "p99 ms");
            for (StatsRow r : rows) {
                out.printf(Locale.ROOT, "%-22s %-11s %7d %6.1f%% %8.1f%% %9.1f %9.1f %9.1f%n", r.tool(), r.backend(), r.calls(),
                        100 * r.errorRate(), 100 * r.fallbackRate(), r.p50Ms(), r.p90Ms(), r.p99Ms());
            }
        }
        out.flush();
        return 0;
    }
}
