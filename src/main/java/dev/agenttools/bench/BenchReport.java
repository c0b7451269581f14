package dev.agenttools.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/** The benchmark's outputs: the comparison table, the results JSON, the summary chart and the sweep chart. */
final class BenchReport {
    private BenchReport() {
    }

    /** Speedup of each row against the sequential row of the same tool and size. */
    static List<Row> withSpeedups(List<Row> rows) {
        List<Row> out = new ArrayList<>();
        for (Row r : rows) {
            Double speedup = rows.stream().filter(x -> x.strategy().equals("sequential") && x.tool().equals(r.tool()) && x.n() == r.n())
                    .findFirst().map(seq -> seq.p50Ms() / r.p50Ms()).orElse(null);
            out.add(r.withSpeedup(speedup));
        }
        return out;
    }

    /** The terminal width the printed report keeps to. */
    static final int COLUMNS = 120;

    /**
     * {@code text} with each line longer than {@code columns} broken at spaces (a word longer than the line stays
     * whole); the tables fit already and pass unchanged.
     */
    static String wrap(String text, int columns) {
        StringBuilder b = new StringBuilder();
        String[] lines = text.split("\n", -1);
        for (int l = 0; l < lines.length; l++) {
            String line = lines[l];
            while (line.length() > columns) {
                int cut = line.lastIndexOf(' ', columns);
                if (cut <= 0) {
                    cut = line.indexOf(' ', columns);
                    if (cut < 0) {
                        break;
                    }
                }
                b.append(line, 0, cut).append('\n');
                line = "  " + line.substring(cut + 1);
            }
            b.append(line);
            if (l < lines.length - 1) {
                b.append('\n');
            }
        }
        return b.toString();
    }

    /** The rows as a table of at most 120 columns: the figures in ms, one decimal; speedup, bound, calls, conns, 429s, errors. */
    static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        String header = String.format(Locale.ROOT, "%-13s %-12s %3s %4s %7s %7s %7s %7s %7s %7s %7s %6s %5s %5s %4s %4s%n",
                "tool", "strategy", "n", "runs", "avg ms", "min ms", "max ms", "p50 ms", "p90 ms", "p99 ms", "speedup", "bound",
                "calls", "conns", "429s", "errs");
        b.append(header);
        b.append("-".repeat(header.length() - 1)).append('\n');
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%-13s %-12s %3d %4d %7s %7s %7s %7s %7s %7s %7s %6.0f %5s %5s %4d %4d%n",
                    r.tool(), r.strategy(), r.n(), r.runs(), ms(r.avgMs()), ms(r.minMs()), ms(r.maxMs()), ms(r.p50Ms()), ms(r.p90Ms()),
                    ms(r.p99Ms()), r.speedup() == null ? "-" : String.format(Locale.ROOT, "%.1fx", r.speedup()), r.boundMs(),
                    r.requests() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", r.requests()),
                    r.connections() < 0 ? "-" : Long.toString(r.connections()), r.rateLimited(), r.errors()));
        }
        return b.toString();
    }

    /** One decimal below 10 s, whole milliseconds above, so that a slow row keeps its column. */
    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : v < 10_000 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.0f", v);
    }

    /**
     * The results JSON, {@code bench-<stamp>.json}: {@code results} as given (the environment first, then what was
     * measured, each part's rows under its own name).
     */
    static Path writeJson(Path dir, String stamp, Map<String, Object> results) {
        ObjectNode root = (ObjectNode) Json.tree(results);
        Path file = dir.resolve("bench-" + stamp + ".json");
        try {
            Files.createDirectories(dir);
            Files.writeString(file, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The article's comparison, {@code bench-<stamp>.png}, on a linear axis ({@link SummaryChart#article}). */
    static Path writeArticleChart(Path outDir, String stamp, List<Row> rows, int n, double latencyMs, String agentToolsLegend,
                                  String subtitle) {
        headless(); // before anything is drawn
        return writePicture(outDir.resolve("bench-" + stamp + ".png"), SummaryChart.draw(SummaryChart.articleGroups(rows, n),
                new SummaryChart.Layout("list_emails(" + n + ") and get_email: the article's experiment, run here side by side "
                        + "(server latency " + Math.round(latencyMs) + " ms a call)", subtitle, false, false, agentToolsLegend, latencyMs)));
    }

    /**
     * The default run's picture, {@code bench-<stamp>.png}: p50 per row as a horizontal bar, grouped by tool, each
     * beside its bound, with the article's 1659 / 310 / ~150 ms as dashed lines across ({@link SummaryChart}). Rows without
     * a result (p50 of 0 or NaN) keep their place and say so.
     *
     * @param externalLabel what the external rows are called on the chart ("external", "external, TLS", ...)
     * @return the file written
     */
    static Path writeSummaryChart(Path outDir, String stamp, List<Row> rows, List<Row> externalRows, String externalLabel,
                                  double latencyMs, String subtitle) {
        headless(); // before anything is drawn
        return writePicture(outDir.resolve("bench-" + stamp + "-all.png"),
                SummaryChart.draw(rows, externalRows, externalLabel, latencyMs, subtitle));
    }

    private static Path writePicture(Path file, BufferedImage picture) {
        try {
            Files.createDirectories(file.getParent());
            if (!ImageIO.write(picture, "png", file.toFile())) {
                throw new IOException("this JDK has no PNG writer");
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The charts are drawn into an image, never a window: without this, a JVM started where DISPLAY is set would try
     * to reach that display. Set only when nobody chose (the container's jvm.options does; a user may say otherwise).
     */
    private static void headless() {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private static Path save(Chart<?, ?> chart, Path file) {
        try {
            Files.createDirectories(file.getParent());
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** p50 latency against N, one line per strategy, with the physical bound of each as a dashed line. */
    static Path writeChart(Path dir, String stamp, List<Row> sweep, double latencyMs) {
        XYChart chart = new XYChartBuilder().width(900).height(560)
                .title("list_emails: p50 latency vs emails per call (server latency " + Math.round(latencyMs) + " ms)")
                .xAxisTitle("emails per call (N)").yAxisTitle("p50 latency (ms)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        Map<String, List<Row>> byStrategy = new LinkedHashMap<>();
        sweep.forEach(r -> byStrategy.computeIfAbsent(r.strategy(), k -> new ArrayList<>()).add(r));
        byStrategy.forEach((strategy, rows) -> {
            double[] x = rows.stream().mapToDouble(Row::n).toArray();
            chart.addSeries(strategy, x, rows.stream().mapToDouble(Row::p50Ms).toArray()).setMarker(SeriesMarkers.CIRCLE);
            var bound = chart.addSeries(strategy + " bound", x, rows.stream().mapToDouble(Row::boundMs).toArray());
            bound.setMarker(SeriesMarkers.NONE);
            bound.setLineStyle(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
                    10f, new float[] {6f, 4f}, 0f));
        });
        headless();
        return save(chart, dir.resolve("bench-" + stamp + "-sweep.png"));
    }
}
