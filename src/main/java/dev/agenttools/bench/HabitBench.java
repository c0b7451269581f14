package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.habit.HabitSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The Habit targets: {@code habit.list} for a user with {@value #HABITS} habits and {@value #DAYS} days of
 * logs at most {@value #LIST_TARGET_P50_MS} ms p50, and {@code habit.log} at most {@value #LOG_TARGET_P50_MS} ms p50,
 * in-process through the registry (as {@code call}, {@code serve} and {@code mcp} reach the tools) on a SQLite file in
 * a temporary folder of its own, removed after. Seeding the user is not timed (see {@link #seed} for how it is quick).
 */
final class HabitBench {
    static final double LIST_TARGET_P50_MS = 10;
    static final double LOG_TARGET_P50_MS = 5;
    static final int HABITS = 50;
    /** Two years of days, today's excluded (today is left to the measured logs of a day not yet logged). */
    static final int DAYS = 730;
    /** Timed runs per row at the least, so that p99 is a run's and not the slowest of a handful. */
    static final int MIN_RUNS = 200;
    /** Timed runs per row at the most: the seeded user has some 2,600 days not logged, one for each run of the log row. */
    static final int MAX_RUNS = 1_000;
    private static final int WARMUP = 20;
    private static final ZoneId ZONE = ZoneId.of("Europe/Paris");

    private HabitBench() {
    }

    /** A (habit, day) never logged while seeding: a measured log of it writes a new record. */
    private record Gap(String habitId, LocalDate day) {
    }

    /**
     * Seeds the user, then times {@code runs} (1..{@value #MAX_RUNS}) lists, {@code runs} logs of distinct days not logged yet, and {@code runs}
     * retries of one identical log; prints a line per row and answers them for the results JSON.
     */
    static Map<String, Object> run(PrintWriter out, int runs) throws Exception {
        if (runs < 1 || runs > MAX_RUNS) {
            throw new IllegalArgumentException("habit rows: runs must be 1.." + MAX_RUNS + ", got " + runs);
        }
        Path dir = Files.createTempDirectory("agent-tools-bench-habit"); // owner-only: the store refuses a folder others write
        Path file = dir.resolve("habits.db");
        HabitSettings settings = HabitSettings.at(file);
        try (ToolRegistry tools = Tools.builder().habit(settings).build()) {
            long t0 = System.nanoTime();
            LocalDate today = LocalDate.now(ZONE);
            List<Gap> gaps = new ArrayList<>();
            int logged = seed(tools, file, settings.defaultUser(), today, gaps);
            double seedSeconds = (System.nanoTime() - t0) / 1e9;
            if (gaps.size() < WARMUP + runs + 2) {
                throw new IllegalStateException("the seeded user has " + gaps.size() + " days not logged, fewer than the "
                        + (WARMUP + runs + 2) + " logs to time and warm up with");
            }
            out.printf(Locale.ROOT, "habit: one user, %d habits (habit.create) and %d logs over %d days (one SQLite transaction),"
                    + " seeded in %.1f s, not timed; then in-process through the registry, on SQLite:%n", HABITS, logged, DAYS, seedSeconds);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("what", "in-process through the registry, SQLite in a temporary folder: one user with " + HABITS
                    + " habits (daily, Mon/Wed/Fri, 3 times a week) and " + DAYS + " days of logs");
            m.put("habits", HABITS);
            m.put("days", DAYS);
            m.put("logs_seeded", logged);
            m.put("seed_seconds", Math.round(seedSeconds * 10) / 10.0);

            ObjectNode listParams = Json.object();
            Histogram list = time(WARMUP, runs, i -> {
                JsonNode habits = tools.call(ToolCall.of("habit.list", listParams)).data().get("habits");
                if (habits.size() != HABITS) {
                    throw new IllegalStateException("habit.list answered " + habits.size() + " habits, not " + HABITS);
                }
            });
            m.put("list", row(out, "habit.list", "the " + HABITS + " habits with streaks and rates", list, runs, LIST_TARGET_P50_MS));
            // after a log here: the logged habit's progress is counted again from its own logs, the others' reused
            Gap touched = gaps.get(gaps.size() - 2); // neither the log rows' days nor the retried one
            Histogram afterLog = time(WARMUP, runs, i -> tools.call(ToolCall.of("habit.log", Json.object()
                    .put("habit", touched.habitId()).put("date", touched.day().toString()).put("done", i % 2 == 0))), i -> {
                tools.call(ToolCall.of("habit.list", listParams));
            });
            m.put("list_after_log", row(out, "habit.list", "after a log of one habit here", afterLog, runs, LIST_TARGET_P50_MS));
            // after another process's write: every habit counted again from every log (the first list of a process too)
            try (ToolRegistry another = Tools.builder().habit(settings).build()) {
                Histogram cold = time(WARMUP, Math.min(runs, 200), i -> another.call(ToolCall.of("habit.log", Json.object()
                        .put("habit", touched.habitId()).put("date", touched.day().toString()).put("done", i % 2 != 0))), i -> {
                    tools.call(ToolCall.of("habit.list", listParams));
                });
                m.put("list_every_log", row(out, "habit.list", "after another process's write: every log read",
                        cold, Math.min(runs, 200), LIST_TARGET_P50_MS));
            }

            // each run logs a (habit, day) the seeding left out, so that each writes a record of its own; the warm-up too
            List<ToolCall> fresh = gaps.subList(0, Math.min(gaps.size(), WARMUP + runs)).stream().map(g -> ToolCall.of("habit.log",
                    Json.object().put("habit", g.habitId()).put("date", g.day().toString()).put("amount", 30))).toList();
            Histogram log = time(fresh.size() - runs, runs, i -> tools.call(fresh.get(i)));
            m.put("log", row(out, "habit.log", "a day not logged yet, each run another", log, runs, LOG_TARGET_P50_MS));

            Gap again = gaps.getLast();
            ObjectNode retried = Json.object().put("habit", again.habitId()).put("date", again.day().toString()).put("amount", 30);
            Histogram retry = time(WARMUP, runs, i -> tools.call(ToolCall.of("habit.log", retried)));
            m.put("log_retried", row(out, "habit.log", "the same log again (a retry: one record kept)", retry, runs, LOG_TARGET_P50_MS));
            JsonNode history = tools.call(ToolCall.of("habit.history", Json.object().put("habit", again.habitId())
                    .put("from", again.day().toString()).put("to", again.day().toString()))).data();
            if (history.get("done").asInt() != 1) {
                throw new IllegalStateException("the retried log did not leave one day done: " + history);
            }
            return m;
        } finally {
            TempFolder.delete(dir);
        }
    }

    /**
     * Creates the habits through the tools (habit.create), a third each daily, Mon/Wed/Fri and 3 times a week, and
     * writes their past days as a user would have logged them (seeded, so each run has the same user): on a due day 80%
     * done, 5% logged not done, 15% not logged (a times-a-week habit: 45% of days done). Answers the logs written;
     * collects the due days not logged into {@code gaps}.
     *
     * <p>The logs are not written by habit.log: some 20,000 calls, each its own transaction waiting for the disk and
     * reading its habit's logs back for the streak it answers, took 65 s on a shared 2-core machine (3 ms a call). They
     * are inserted instead in one transaction into the store's {@code logs} table, as habit.log's upsert writes them;
     * {@link #checkSeeded} then reads them back through habit.history, so a change of the store's tables fails loudly
     * here rather than timing an empty user.
     */
    private static int seed(ToolRegistry tools, Path file, String user, LocalDate today, List<Gap> gaps) throws SQLException {
        SplittableRandom random = new SplittableRandom(32);
        List<String> ids = new ArrayList<>();
        for (int h = 0; h < HABITS; h++) {
            ObjectNode create = Json.object().put("name", "Habit " + (h + 1)).put("time_zone", ZONE.getId())
                    .put("target_amount", 30).put("target_unit", "minutes");
            int kind = h % 3;
            if (kind == 1) {
                create.put("schedule", "weekdays").putArray("days").add("mon").add("wed").add("fri");
            } else if (kind == 2) {
                create.put("schedule", "times_per_week").put("times_per_week", 3);
            }
            ids.add(tools.call(ToolCall.of("habit.create", create)).data().get("id").asText());
        }
        int logged = 0;
        long now = System.currentTimeMillis();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO logs (user, habit_id, day, done, amount, note, updated_ms)"
                    + " VALUES (?, ?, ?, ?, NULL, NULL, ?)")) {
                for (int h = 0; h < HABITS; h++) {
                    int kind = h % 3;
                    for (LocalDate d = today.minusDays(DAYS); d.isBefore(today); d = d.plusDays(1)) {
                        boolean due = kind != 1 || d.getDayOfWeek() == DayOfWeek.MONDAY || d.getDayOfWeek() == DayOfWeek.WEDNESDAY
                                || d.getDayOfWeek() == DayOfWeek.FRIDAY;
                        double r = random.nextDouble();
                        if (!due || kind == 2 && r >= 0.45) {
                            continue;
                        }
                        if (kind != 2 && r >= 0.85) {
                            gaps.add(new Gap(ids.get(h), d));
                            continue;
                        }
                        p.setString(1, user);
                        p.setString(2, ids.get(h));
                        p.setString(3, d.toString());
                        p.setInt(4, kind == 2 || r < 0.8 ? 1 : 0);
                        p.setLong(5, now);
                        p.addBatch();
                        logged++;
                    }
                }
                p.executeBatch();
            }
            c.commit();
        }
        checkSeeded(tools, ids.getFirst(), today);
        // spread the measured logs over the habits and the two years rather than all on the first habit
        Collections.shuffle(gaps, new Random(32));
        return logged;
    }

    /** The first habit (daily: 80% of its days done) as habit.history reads its last year back. */
    private static void checkSeeded(ToolRegistry tools, String habitId, LocalDate today) {
        JsonNode history = tools.call(ToolCall.of("habit.history", Json.object().put("habit", habitId)
                .put("from", today.minusDays(366).toString()).put("to", today.minusDays(1).toString()))).data();
        int done = history.get("done").asInt();
        if (done < 200) {
            throw new IllegalStateException("habit.history reads " + done + " days done of the 366 seeded for " + habitId
                    + " (about 290 were written): the habit store's tables are not what HabitBench writes; " + history.get("done"));
        }
    }

    private interface Run {
        void run(int i) throws Exception;
    }

    /** {@code warmup} untimed runs, then {@code runs} timed ones; {@code i} counts across both. */
    private static Histogram time(int warmup, int runs, Run r) throws Exception {
        return time(warmup, runs, i -> { }, r);
    }

    /** The same, with {@code before} run untimed ahead of each run (a write that the timed call then meets). */
    private static Histogram time(int warmup, int runs, Run before, Run r) throws Exception {
        for (int i = 0; i < warmup; i++) {
            before.run(i);
            r.run(i);
        }
        Histogram h = new Histogram(60_000_000_000L, 3);
        for (int i = warmup; i < warmup + runs; i++) {
            before.run(i);
            long t0 = System.nanoTime();
            r.run(i);
            h.recordValue(System.nanoTime() - t0);
        }
        return h;
    }

    private static Map<String, Object> row(PrintWriter out, String tool, String what, Histogram h, int runs, double targetMs) {
        double p50 = h.getValueAtPercentile(50) / 1e6;
        boolean met = p50 <= targetMs;
        out.printf(Locale.ROOT, "%-10s %-48s p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms  (%d runs; target ≤ %.0f ms p50: %s)%n",
                tool, what, p50, h.getValueAtPercentile(90) / 1e6, h.getValueAtPercentile(99) / 1e6, runs, targetMs,
                met ? "met" : "not met");
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", tool);
        m.put("what", what);
        m.put("runs", runs);
        m.put("p50_ms", round(p50));
        m.put("p90_ms", round(h.getValueAtPercentile(90) / 1e6));
        m.put("p99_ms", round(h.getValueAtPercentile(99) / 1e6));
        m.put("target_p50_ms", targetMs);
        m.put("met", met);
        return m;
    }

    private static double round(double ms) {
        return Math.round(ms * 1000) / 1000.0;
    }
}
