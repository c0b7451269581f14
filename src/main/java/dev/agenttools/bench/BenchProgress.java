package dev.agenttools.bench;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressState;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The benchmark's progress on stderr: a bar on a terminal, a line per finished row otherwise.
 *
 * <p>It counts expected milliseconds, not calls: a sequential list (1.7 s) and a get (0.15 s) are one call each, and a
 * bar of calls ran fast through the gets and then sat still. The whole run's plan is known before it starts (each
 * part's rows, each row's runs times the time its bound says a call takes, and a fixed estimate for what is not a
 * call: a JVM's start, the Python client's runs), so the total never grows; each part's share is reached when the part
 * ends, whatever its calls took, so that one part's misestimate does not move the next part's progress. The time left
 * is elapsed × (what is left) / (what is done), labelled as such.
 *
 * <p>The tables are printed to stdout between two draws of the bar, through {@link #print}: both go to the terminal,
 * and a bar drawn in the middle of a table would cut its lines (both hold the lock of stderr's stream).
 */
final class BenchProgress implements BenchRunner.Progress, AutoCloseable {
    private final ProgressBar bar;
    private final PrintStream err;
    private final Map<String, Long> plan;
    private final ToDoubleFunction<Scenario> msPerCall;
    private long partStart;
    private long partEnd;
    private double perCallUnits;
    private double doneInPart;
    private String part = "";

    private BenchProgress(ProgressBar bar, PrintStream err, Map<String, Long> plan, ToDoubleFunction<Scenario> msPerCall) {
        this.bar = bar;
        this.err = err;
        this.plan = plan;
        this.msPerCall = msPerCall;
    }

    /**
     * @param plan      each part's expected milliseconds, in the order they run
     * @param msPerCall the time a call of a scenario is expected to take
     */
    static BenchProgress open(PrintStream err, Map<String, Double> plan, ToDoubleFunction<Scenario> msPerCall) {
        Map<String, Long> units = new LinkedHashMap<>();
        plan.forEach((name, ms) -> units.put(name, Math.max(1, Math.round(ms))));
        long total = units.values().stream().mapToLong(Long::longValue).sum();
        boolean onTerminal = System.console() != null && System.console().isTerminal();
        BenchProgress p = new BenchProgress(null, err, units, msPerCall);
        if (!onTerminal) {
            return p;
        }
        ProgressBar bar = new ProgressBarBuilder().setTaskName("bench").setInitialMax(total).setUpdateIntervalMillis(250)
                .setRenderer(BenchProgress::render).setConsumer(p.new Line()).build();
        return new BenchProgress(bar, err, units, msPerCall);
    }

    /** Starts part {@code name} of the plan: the bar jumps to where the parts before it end. */
    void part(String name) {
        Long planned = plan.get(name);
        if (planned == null) {
            throw new IllegalArgumentException("no part " + name + " in the plan " + plan.keySet());
        }
        endPart();
        part = name;
        partStart = partEnd;
        partEnd = partStart + planned;
        doneInPart = 0;
        if (bar == null) {
            err.println("bench: " + name + " ...");
        } else {
            bar.setExtraMessage(name);
        }
    }

    /** Something that is not a row (a process's start, the Python client's runs) is running: it is named on the bar. */
    void phase(String what) {
        if (bar != null) {
            bar.setExtraMessage(part + ": " + what);
        }
    }

    private void endPart() {
        if (bar != null && partEnd > 0) {
            bar.stepTo(partEnd);
        }
    }

    @Override
    public void scenario(Scenario s, int calls) {
        perCallUnits = Math.max(1, msPerCall.applyAsDouble(s));
        if (bar != null) {
            bar.setExtraMessage(part + ": " + s.label());
        }
    }

    @Override
    public void call() {
        doneInPart += perCallUnits;
        if (bar != null) {
            // never past the part's end: a part slower than planned waits there, and the time left grows instead
            bar.stepTo(Math.min(partEnd - 1, partStart + Math.round(doneInPart)));
        }
    }

    @Override
    public void finished(Row r) {
        if (bar == null) {
            err.printf(Locale.ROOT, "bench: %-16s %-11s n=%-3d p50 %7.1f ms  p90 %7.1f ms  errors %d%n",
                    r.tool(), r.strategy(), r.n(), r.p50Ms(), r.p90Ms(), r.errors());
        }
    }

    /** Prints {@code text} to {@code out} between two draws of the bar, which is first wiped from its line. */
    void print(PrintWriter out, String text) {
        synchronized (err) {
            if (bar != null) {
                err.print("\r\033[K");
                err.flush();
            }
            out.print(text);
            out.flush();
        }
    }

    /** Ends the bar (idempotent): its last line says 100 % and the whole time taken. */
    void finish() {
        if (bar != null) {
            bar.setExtraMessage("done");
            bar.stepTo(bar.getMax());
            bar.close();
        }
    }

    @Override
    public void close() {
        finish();
    }

    /** One line: "bench  37% [#####......] article: list_emails(10) sequential · 1:02 elapsed · about 1:45 left". */
    static String render(ProgressState s, int width) {
        double done = s.getMax() == 0 ? 1 : Math.min(1, s.getCurrent() / (double) s.getMax());
        Duration elapsed = s.getTotalElapsed();
        String left;
        if (done >= 1) {
            left = "finished";
        } else if (done < 0.02 || elapsed.toSeconds() < 3) {
            left = "time left: estimating";
        } else {
            left = "about " + clock(Duration.ofMillis(Math.round(elapsed.toMillis() * (1 - done) / done))) + " left";
        }
        String tail = " " + s.getExtraMessage() + " · " + clock(elapsed) + " elapsed · " + left;
        String head = String.format(Locale.ROOT, "%s %3d%% ", s.getTaskName(), (int) Math.floor(done * 100));
        int barWidth = Math.clamp(Math.min(30, width - head.length() - tail.length() - 2), 0, 30);
        String line = head;
        if (barWidth >= 5) {
            int filled = (int) Math.floor(done * barWidth);
            line += "[" + "#".repeat(filled) + ".".repeat(barWidth - filled) + "]";
        }
        line += tail;
        return width > 0 && line.length() > width ? line.substring(0, width) : line;
    }

    private static String clock(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    /** The bar's line on stderr, drawn under the same lock as {@link #print}. */
    private final class Line implements ProgressBarConsumer {
        @Override
        public int getMaxRenderedLength() {
            return Math.min(120, terminalWidth());
        }

        @Override
        public void accept(String rendered) {
            synchronized (err) {
                err.print("\r" + rendered + "\033[K");
                err.flush();
            }
        }

        @Override
        public void close() {
            synchronized (err) {
                err.println();
                err.flush();
            }
        }
    }

    /** The terminal's width from COLUMNS when the shell exports it, else 100. */
    private static int terminalWidth() {
        try {
            String columns = System.getenv("COLUMNS");
            return columns == null ? 100 : Math.clamp(Integer.parseInt(columns.strip()), 40, 400);
        } catch (NumberFormatException e) {
            return 100;
        }
    }
}
