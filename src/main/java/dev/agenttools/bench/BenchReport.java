package dev.agenttools.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

    static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        String header = String.format(Locale.ROOT, "%-16s %-11s %4s %5s %8s %8s %8s %8s %8s %8s %8s %8s %6s %6s %5s %5s%n",
                "tool", "strategy", "n", "runs", "avg ms", "min ms", "max ms", "p50 ms", "p90 ms", "p99 ms", "speedup",
                "bound", "calls", "conns", "429s", "errs");
        b.append(header);
        b.append("-".repeat(header.length() - 1)).append('\n');
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%-16s %-11s %4d %5d %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8s %8.0f %6s %6s %5d %5d%n",
                    r.tool(), r.strategy(), r.n(), r.runs(), r.avgMs(), r.minMs(), r.maxMs(), r.p50Ms(), r.p90Ms(), r.p99Ms(),
                    r.speedup() == null ? "-" : String.format(Locale.ROOT, "%.1fx", r.speedup()), r.boundMs(),
                    r.requests() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", r.requests()),
                    r.connections() < 0 ? "-" : Long.toString(r.connections()), r.rateLimited(), r.errors()));
        }
        return b.toString();
    }

    static Path writeJson(Path dir, String stamp, Map<String, Object> environment, List<Row> rows, List<Row> sweep,
                          Map<String, Object> decoding) {
        ObjectNode root = Json.object();
        root.set("environment", Json.tree(environment));
        if (decoding != null) {
            root.set("decoding", Json.tree(decoding));
        }
        ArrayNode rowArray = root.putArray("rows");
        rows.forEach(r -> rowArray.add(Json.tree(r)));
        if (!sweep.isEmpty()) {
            ArrayNode sweepArray = root.putArray("sweep");
            sweep.forEach(r -> sweepArray.add(Json.tree(r)));
        }
        Path file = dir.resolve("bench-" + stamp + ".json");
        try {
            Files.createDirectories(dir);
            Files.writeString(file, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
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
                                  double latencyMs) {
        headless();
        Path file = outDir.resolve("bench-" + stamp + ".png");
        try {
            Files.createDirectories(outDir);
            if (!ImageIO.write(SummaryChart.draw(rows, externalRows, externalLabel, latencyMs), "png", file.toFile())) {
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

    private static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file) {
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
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
        Map<String, List<Row>> byStrategy = new LinkedHashMap<>();
        sweep.forEach(r -> byStrategy.computeIfAbsent(r.strategy(), k -> new ArrayList<>()).add(r));
        byStrategy.forEach((strategy, rows) -> {
            double[] x = rows.stream().mapToDouble(Row::n).toArray();
            chart.addSeries(strategy, x, rows.stream().mapToDouble(Row::p50Ms).toArray()).setMarker(SeriesMarkers.CIRCLE);
            var bound = chart.addSeries(strategy + " bound", x, rows.stream().mapToDouble(Row::boundMs).toArray());
            bound.setMarker(SeriesMarkers.NONE);
            bound.setLineStyle(new java.awt.BasicStroke(1f, java.awt.BasicStroke.CAP_BUTT, java.awt.BasicStroke.JOIN_MITER,
                    10f, new float[] {6f, 4f}, 0f));
        });
        headless();
        return save(chart, dir.resolve("bench-" + stamp + "-sweep.png"));
    }
}
