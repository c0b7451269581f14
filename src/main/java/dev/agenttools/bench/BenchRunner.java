package dev.agenttools.bench;

import dev.agenttools.emulator.EmulatorCounters;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * Runs scenarios through the tool registry, the same path agents use, and measures each call's wall time.
 * Finished rows stay readable while it runs, so an interrupted benchmark can still report them.
 */
final class BenchRunner {
    /** What the runner reports while it works. */
    interface Progress {
        void scenario(Scenario s, int calls);

        void call();

        void finished(Row row);
    }

    private static final long MAX_TRACKABLE_MICROS = 3_600_000_000L;
    private final ToolRegistry tools;
    private final Supplier<EmulatorCounters> counters;
    private final Bounds bounds;
    private final Progress progress;
    private final Duration pause;
    private final List<Row> finished = Collections.synchronizedList(new ArrayList<>());
    /** Each API's quota bucket as scheduled after its last row, keyed by {@link Scenario#calendar()}. */
    private final Map<Boolean, Level> levels = new HashMap<>();
    private long waitedNanos;

    BenchRunner(ToolRegistry tools, Supplier<EmulatorCounters> counters, Bounds bounds, Progress progress,
                Duration pause) {
        this.tools = tools;
        this.pause = pause;
        this.counters = counters;
        this.bounds = bounds;
        this.progress = progress;
    }

    List<Row> finished() {
        synchronized (finished) {
            return List.copyOf(finished);
        }
    }

    Row run(Scenario s, int warmup, int runs, Fixtures fixtures) throws InterruptedException {
        return run(s, warmup, runs, run -> call(s, run, fixtures));
    }

    /** How long the runner waited between rows for a quota bucket to refill. */
    Duration waitedForQuota() {
        return Duration.ofNanos(waitedNanos);
    }

    /**
     * Times {@code call} (given the run's number, answering whether it succeeded) as a row of scenario {@code s}:
     * the tools' own rows, or a measuring instrument's such as {@link BareClient}'s.
     */
    Row run(Scenario s, int warmup, int runs, IntPredicate call) throws InterruptedException {
        return run(s, warmup, runs, call, run -> 0);
    }

    Row run(Scenario s, int warmup, int runs, Fixtures fixtures, IntUnaryOperator prepare) throws InterruptedException {
        return run(s, warmup, runs, run -> call(s, run, fixtures), prepare);
    }

    /**
     * As above, with {@code prepare} run before each measured run, not timed (new mail arriving, say); it answers the
     * API calls it made, which the row's calls column leaves out.
     */
    Row run(Scenario s, int warmup, int runs, IntPredicate call, IntUnaryOperator prepare)
            throws InterruptedException {
        double startUnits = awaitQuota(s, warmup, runs);
        progress.scenario(s, warmup + runs);
        for (int i = 0; i < warmup; i++) {
            call.test(i);
            progress.call();
        }
        EmulatorCounters before = counters == null ? null : counters.get();
        Histogram h = new Histogram(MAX_TRACKABLE_MICROS, 3);
        int errors = 0;
        long prepared = 0;
        for (int i = 0; i < runs; i++) {
            if (Thread.interrupted()) {
                throw new InterruptedException("benchmark interrupted");
            }
            prepared += prepare.applyAsInt(warmup + i);
            if (!pause.isZero()) {
                Thread.sleep(pause); // not measured: lets the quota bucket refill, as between an agent's occasional calls
            }
            long start = System.nanoTime();
            boolean ok = call.test(warmup + i);
            long micros = (System.nanoTime() - start) / 1_000;
            if (ok) {
                h.recordValue(Math.min(micros, MAX_TRACKABLE_MICROS));
            } else {
                errors++;
            }
            progress.call();
        }
        EmulatorCounters after = counters == null ? null : counters.get();
        double requests = before == null ? -1 : (after.apiCalls() - before.apiCalls() - prepared) / (double) runs;
        long connections = before == null ? -1 : after.connectionsOpened() - before.connectionsOpened();
        long limited = before == null ? 0 : (after.quotaRejections() - before.quotaRejections())
                + (after.concurrencyRejections() - before.concurrencyRejections());
        boolean any = h.getTotalCount() > 0;
        Row row = new Row(s.tool(), s.strategy(), s.n(), runs, warmup, any ? h.getMean() / 1e3 : Double.NaN,
                any ? h.getMinValue() / 1e3 : Double.NaN, any ? h.getMaxValue() / 1e3 : Double.NaN,
                ms(h, 50), ms(h, 90), ms(h, 99), errors, requests, connections, limited, bounds.of(s, warmup, runs), null);
        levels.put(s.calendar(), new Level(Math.max(0, startUnits - bounds.drain(s, warmup, runs).deficitUnits()), System.nanoTime()));
        finished.add(row);
        progress.finished(row);
        return row;
    }

    /** A quota bucket's units at a moment (System.nanoTime). */
    private record Level(double units, long at) {
    }

    /**
     * Waits until the row's API bucket holds what the row needs to run unthrottled, as its bound assumes: Calendar's
     * refills at 10 requests a second, so a fast list_events row just before could otherwise throttle this one. The
     * bucket is as the rows before would have left it, scheduled at their bounds (slower rows spent less). Answers
     * the units at hand when the row starts.
     */
    private double awaitQuota(Scenario s, int warmup, int runs) throws InterruptedException {
        Bounds.Quota q = bounds.quota(s);
        Level last = levels.get(s.calendar());
        if (last == null) {
            return q.burstUnits();
        }
        double now = Math.min(q.burstUnits(), last.units() + (System.nanoTime() - last.at()) / 1e6 * q.unitsPerMs());
        // a tenth of the bucket to spare: calls the schedule does not see (the fixtures' own, the client's pacer
        // counting from its own start) would otherwise stall the row's last runs for a refill
        double needed = Math.min(q.burstUnits(), bounds.drain(s, warmup, runs).neededUnits() + q.burstUnits() / 10.0);
        double missing = needed - now;
        if (missing <= 0) {
            return now;
        }
        long wait = (long) (missing / q.unitsPerMs() * 1e6);
        Thread.sleep(Duration.ofNanos(wait));
        waitedNanos += wait;
        return now + missing;
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e3;
    }

    private boolean call(Scenario s, int run, Fixtures fixtures) {
        try {
            tools.call(new ToolCall(s.command(), s.params(run, fixtures), "bench", null));
            return true;
        } catch (ToolException e) {
            System.err.println("bench: " + s.label() + " failed: " + e.getMessage());
            return false;
        }
    }
}
