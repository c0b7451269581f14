package dev.agenttools.bench;

import dev.agenttools.emulator.EmulatorCounters;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
    private final java.time.Duration pause;
    private final List<Row> finished = Collections.synchronizedList(new ArrayList<>());

    BenchRunner(ToolRegistry tools, Supplier<EmulatorCounters> counters, Bounds bounds, Progress progress,
                java.time.Duration pause) {
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

    Row run(Scenario s, int warmup, int runs, List<String> ids) throws InterruptedException {
        return run(s, warmup, runs, run -> call(s, run, ids));
    }

    /**
     * Times {@code call} (given the run's number, answering whether it succeeded) as a row of scenario {@code s}:
     * the tools' own rows, or a measuring instrument's such as {@link BareClient}'s.
     */
    Row run(Scenario s, int warmup, int runs, java.util.function.IntPredicate call) throws InterruptedException {
        progress.scenario(s, warmup + runs);
        for (int i = 0; i < warmup; i++) {
            call.test(i);
            progress.call();
        }
        EmulatorCounters before = counters == null ? null : counters.get();
        Histogram h = new Histogram(MAX_TRACKABLE_MICROS, 3);
        int errors = 0;
        for (int i = 0; i < runs; i++) {
            if (Thread.interrupted()) {
                throw new InterruptedException("benchmark interrupted");
            }
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
        double requests = before == null ? -1 : (after.apiCalls() - before.apiCalls()) / (double) runs;
        long connections = before == null ? -1 : after.connectionsOpened() - before.connectionsOpened();
        long limited = before == null ? 0 : (after.quotaRejections() - before.quotaRejections())
                + (after.concurrencyRejections() - before.concurrencyRejections());
        boolean any = h.getTotalCount() > 0;
        Row row = new Row(s.tool(), s.strategy(), s.n(), runs, warmup, any ? h.getMean() / 1e3 : Double.NaN,
                any ? h.getMinValue() / 1e3 : Double.NaN, any ? h.getMaxValue() / 1e3 : Double.NaN,
                ms(h, 50), ms(h, 90), ms(h, 99), errors, requests, connections, limited, bounds.of(s, warmup, runs), null);
        finished.add(row);
        progress.finished(row);
        return row;
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e3;
    }

    private boolean call(Scenario s, int run, List<String> ids) {
        try {
            tools.call(new ToolCall(s.command(), s.params(run, ids), "bench", null));
            return true;
        } catch (ToolException e) {
            System.err.println("bench: " + s.label() + " failed: " + e.getMessage());
            return false;
        }
    }
}
