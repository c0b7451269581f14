package dev.agenttools.tracking;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The same statistics as {@link SqliteSink#stats}, computed in Java from records read back (for stores without
 * SQL, such as DynamoDB): nearest-rank percentiles, an "all" row per tool, rows in the same order.
 */
final class StatsCalculator {
    private StatsCalculator() {
    }

    static List<StatsRow> of(List<CallRecord> records) {
        Map<String, Map<String, List<CallRecord>>> byTool = new TreeMap<>();
        for (CallRecord r : records) {
            Map<String, List<CallRecord>> byBackend = byTool.computeIfAbsent(r.toolName(), k -> new LinkedHashMap<>());
            byBackend.computeIfAbsent("all", k -> new ArrayList<>()).add(r);
            byBackend.computeIfAbsent(r.backend() == null ? r.strategy() : r.backend(), k -> new ArrayList<>()).add(r);
        }
        List<StatsRow> rows = new ArrayList<>();
        byTool.forEach((tool, byBackend) -> {
            List<StatsRow> tail = new ArrayList<>();
            byBackend.forEach((backend, list) -> {
                double[] durations = list.stream().mapToDouble(CallRecord::durationMs).sorted().toArray();
                long errors = list.stream().filter(r -> !r.ok()).count();
                long fallbacks = list.stream().filter(StatsCalculator::fellBack).count();
                StatsRow row = new StatsRow(tool, backend, list.size(), errors / (double) list.size(),
                        fallbacks / (double) list.size(), rank(durations, 50), rank(durations, 90), rank(durations, 99));
                if (backend.equals("all")) {
                    rows.add(row);
                } else {
                    tail.add(row);
                }
            });
            tail.sort(Comparator.comparingLong(StatsRow::calls).reversed().thenComparing(StatsRow::backend));
            rows.addAll(tail);
        });
        return rows;
    }

    /**
     * Whether a fallback answered the call: the registry's own (backend {@code fallback}) or the Python client's
     * (backend {@code python}, its answers only: agent_tools.tracking also writes the Python path's failures).
     */
    private static boolean fellBack(CallRecord r) {
        return "fallback".equals(r.backend()) || ("python".equals(r.backend()) && r.ok());
    }

    /** Nearest rank: the smallest value with at least p% of the values at or below it. */
    private static double rank(double[] sorted, int percent) {
        int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, index)];
    }
}
