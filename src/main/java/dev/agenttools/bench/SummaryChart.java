package dev.agenttools.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The default run's one picture: a horizontal bar of p50 per row, grouped by tool, each with its bound as a black
 * tick and its figure beside it, and the article's figures as dashed lines across, on a log scale (150 ms gets and
 * 1.7 s sequential lists in one picture, a 5 ms difference near 300 ms still visible).
 *
 * <p>Drawn with Java2D rather than XChart, the benchmark's other chart library: XChart 3.8 draws category bars
 * upright only, and bending its XY chart into horizontal bars (rows as y ticks named by a formatter) made its tick
 * calculator loop forever on some label sets (seen while building this). Forty rows' names read only sideways.
 *
 * <p>Stateless; {@link #draw} may be called from any thread (it needs no display: {@code java.awt.headless}).
 */
final class SummaryChart {
    /** The article's figures: Python and Go for the 10-mail list, and a get in either. */
    static final double PYTHON_SEQUENTIAL_MS = 1659;
    static final double GO_GOROUTINES_MS = 310;
    static final double GET_EMAIL_MS = 150;

    static final int WIDTH_PX = 1280;
    static final int ROW_PX = 22;
    private static final int BAR_PX = 14;
    private static final int MARGIN_PX = 16;
    /** Title and the reference lines' names, above the first row. */
    static final int TOP_PX = 110;
    /** The axis, its ticks and title, below the last row. */
    private static final int AXIS_PX = 58;
    private static final int LEGEND_LINE_PX = 20;

    /** Strategies of the process-model rows: how the caller reaches the tools, not how the tools fetch. */
    private static final Set<String> PROCESS_MODELS = Set.of("in-process", "serve", "call", "call+aot", "launcher",
            "server-call", "server-mcp");

    private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 17);
    private static final Font TEXT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    private static final Font GROUP = new Font(Font.SANS_SERIF, Font.BOLD, 13);
    private static final Font SMALL = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private static final Color GRID = new Color(0xE4E4E4);
    private static final Color INK = new Color(0x222222);
    private static final Color MUTED = new Color(0x666666);

    /** What a bar measured; one colour each, in the legend in this order. */
    enum Kind {
        ARTICLE("the article's own measurements (Python and Go on its author's machine against real Gmail)", new Color(0xB8B8B8)),
        AGENT_TOOLS("agent-tools here, %s",
                new Color(0x2A9D8F)),
        GO_HERE("the article's Go design (the official Go client, a goroutine per message) built here, against the same emulator",
                new Color(0xE76F51)),
        EMBEDDED("agent-tools, emulator in the benchmark's own JVM", new Color(0x4C78A8)),
        EXTERNAL("agent-tools, \"%s\" rows: against an emulator process of its own, as users meet it", new Color(0x2A9D8F)),
        PROCESS("agent-tools, process models: how the caller reaches the tools (serve, server, a JVM per call, launcher)",
                new Color(0x9467BD)),
        BARE("bare JDK client, the same HTTP exchanges and nothing else: the floor this machine allowed", new Color(0xA0A0A0)),
        PEER("other clients, \"%s\" rows named by their client (e.g. go: the article's Go design)", new Color(0xE76F51));

        final String legend;
        final Color color;

        Kind(String legend, Color color) {
            this.legend = legend;
            this.color = color;
        }
    }

    /** One bar: its name on the left, its values and its colour. */
    record Bar(String label, String tool, double p50Ms, double boundMs, Kind kind) {
        boolean measured() {
            return Double.isFinite(p50Ms) && p50Ms > 0;
        }

        boolean bounded() {
            return Double.isFinite(boundMs) && boundMs > 0;
        }
    }

    private SummaryChart() {
    }

    /**
     * The bars grouped by tool (tools in the order they first appear, the main rows' first); within a tool the main
     * rows as given, then the external ones as given.
     */
    static Map<String, List<Bar>> groups(List<Row> rows, List<Row> externalRows, String externalLabel) {
        Map<String, List<Bar>> byTool = new LinkedHashMap<>();
        for (Row r : rows) {
            Kind kind = PROCESS_MODELS.contains(r.strategy()) ? Kind.PROCESS : Kind.EMBEDDED;
            byTool.computeIfAbsent(r.tool(), t -> new ArrayList<>()).add(new Bar(name(r), r.tool(), r.p50Ms(), r.boundMs(), kind));
        }
        for (Row r : externalRows) {
            // a first call's row is named "first call: <model>" (Benchmark), coloured as its model's
            String model = r.strategy().startsWith(FIRST_CALL) ? r.strategy().substring(FIRST_CALL.length()) : r.strategy();
            Kind kind = model.equals(BareClient.STRATEGY) ? Kind.BARE
                    : Scenario.STRATEGIES.contains(model) || model.startsWith("warm") ? Kind.EXTERNAL
                    : PROCESS_MODELS.contains(model) || model.startsWith("launcher") ? Kind.PROCESS : Kind.PEER;
            byTool.computeIfAbsent(r.tool(), t -> new ArrayList<>())
                    .add(new Bar(externalLabel + ": " + name(r), r.tool(), r.p50Ms(), r.boundMs(), kind));
        }
        return byTool;
    }

    /**
     * The article's comparison in words: its own figures as grey bars, then the same experiment run here, each named by
     * what it does rather than by the strategy's one word (which follows in brackets).
     */
    static Map<String, List<Bar>> articleGroups(List<Row> rows, int n) {
        Map<String, List<Bar>> groups = new LinkedHashMap<>();
        String list = "list_emails(" + n + "): one list, then " + n + " gets";
        if (rows.stream().anyMatch(r -> r.tool().equals("list_emails"))) {
            List<Bar> bars = groups.computeIfAbsent(list, k -> new ArrayList<>());
            if (n == 10) { // the article measured 10
                bars.add(new Bar("the article: Python, one call after another", "list_emails", PYTHON_SEQUENTIAL_MS, Double.NaN, Kind.ARTICLE));
                bars.add(new Bar("the article: Go, a goroutine per message", "list_emails", GO_GOROUTINES_MS, Double.NaN, Kind.ARTICLE));
            }
        }
        if (rows.stream().anyMatch(r -> r.tool().equals("get_email"))) {
            groups.computeIfAbsent("get_email: one message", k -> new ArrayList<>())
                    .add(new Bar("the article: Python or Go", "get_email", GET_EMAIL_MS, Double.NaN, Kind.ARTICLE));
        }
        for (Row r : rows) {
            String group = r.tool().equals("list_emails") ? list : "get_email: one message";
            String words = switch (r.strategy()) {
                case "sequential" -> r.tool().equals("get_email") ? "agent-tools, one call" : "agent-tools, one call after another";
                case "concurrent" -> "agent-tools, the gets at once";
                case "batch" -> "agent-tools, the gets in one batch request";
                default -> r.strategy().equals(GoPeer.STRATEGY) ? "the Go design here" + (r.tool().equals("list_emails")
                        ? ", a goroutine per message" : "") : "agent-tools";
            };
            Kind kind = r.strategy().equals(GoPeer.STRATEGY) ? Kind.GO_HERE : Kind.AGENT_TOOLS;
            groups.computeIfAbsent(group, k -> new ArrayList<>())
                    .add(new Bar(words + " (" + r.strategy() + ")", r.tool(), r.p50Ms(), r.boundMs(), kind));
        }
        return groups;
    }

    /** How the first-call rows' strategy is prefixed when they are drawn among the external ones. */
    static final String FIRST_CALL = "first call: ";

    private static String name(Row r) {
        return (r.n() > 1 ? r.tool() + "(" + r.n() + ")" : r.tool()) + " " + r.strategy();
    }

    /** The picture's height for these groups: a header line per tool, a line per bar, one per legend entry. */
    static int height(Map<String, List<Bar>> groups) {
        int bars = groups.values().stream().mapToInt(List::size).sum();
        int legend = legendKinds(groups).size() + 2;
        return TOP_PX + (groups.size() + bars) * ROW_PX + AXIS_PX + legend * LEGEND_LINE_PX + MARGIN_PX;
    }

    private static Set<Kind> legendKinds(Map<String, List<Bar>> groups) {
        Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        groups.values().forEach(bars -> bars.forEach(b -> kinds.add(b.kind())));
        return kinds;
    }

    /**
     * What a picture says around its bars.
     *
     * @param logScale      a log axis (the whole run's rows, 5 ms to 2 s) or a linear one (the article's comparison,
     *                      where the ratios are the point and a log axis would shrink them)
     * @param articleLines  the article's figures as dashed lines across (when they are not bars of their own)
     * @param externalLabel what the external rows are called in the legend
     */
    record Layout(String title, String subtitle, boolean logScale, boolean articleLines, String externalLabel, double latencyMs) {
    }

    static BufferedImage draw(List<Row> rows, List<Row> externalRows, String externalLabel, double latencyMs, String subtitle) {
        return draw(groups(rows, externalRows, externalLabel), new Layout("agent-tools bench --all: p50 per tool and strategy "
                + "(server latency " + Math.round(latencyMs) + " ms a call)", subtitle, true, true, externalLabel, latencyMs));
    }

    static BufferedImage draw(Map<String, List<Bar>> groups, Layout layout) {
        int height = height(groups);
        BufferedImage image = new BufferedImage(WIDTH_PX, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH_PX, height);
            new Painter(g, groups, layout).paint();
        } finally {
            g.dispose();
        }
        return image;
    }

    /** One drawing: the layout worked out from the labels' widths, then each part. */
    private static final class Painter {
        private final Graphics2D g;
        private final Map<String, List<Bar>> groups;
        private final Layout layout;
        private final int plotLeft;
        private final int plotRight;
        private final int plotTop;
        private final int plotBottom;
        private final double low;
        private final double high;

        Painter(Graphics2D g, Map<String, List<Bar>> groups, Layout layout) {
            this.g = g;
            this.groups = groups;
            this.layout = layout;
            double latencyMs = layout.latencyMs();
            FontMetrics text = g.getFontMetrics(TEXT);
            int labels = 0;
            double lo = Math.min(GET_EMAIL_MS, latencyMs > 0 ? latencyMs : GET_EMAIL_MS);
            double hi = PYTHON_SEQUENTIAL_MS;
            for (List<Bar> bars : groups.values()) {
                for (Bar b : bars) {
                    labels = Math.max(labels, text.stringWidth(b.label()));
                    if (b.measured()) {
                        lo = Math.min(lo, b.p50Ms());
                        hi = Math.max(hi, b.p50Ms());
                    }
                    if (b.bounded()) {
                        lo = Math.min(lo, b.boundMs());
                        hi = Math.max(hi, b.boundMs());
                    }
                }
            }
            // the axis starts at the 1-2-5 step below the fastest figure, so that the shortest bar still shows
            this.low = layout.logScale() ? niceBelow(lo / 1.15) : 0;
            this.high = hi * 1.12;
            this.plotLeft = MARGIN_PX + Math.min(labels, WIDTH_PX / 2) + 14;
            this.plotRight = WIDTH_PX - MARGIN_PX - text.stringWidth("0000.0 ms");
            this.plotTop = TOP_PX;
            int bars = groups.values().stream().mapToInt(List::size).sum();
            this.plotBottom = TOP_PX + (groups.size() + bars) * ROW_PX;
        }

        double x(double ms) {
            double clamped = Math.max(low, Math.min(high, ms));
            if (!layout.logScale()) {
                return plotLeft + (plotRight - plotLeft) * clamped / high;
            }
            return plotLeft + (plotRight - plotLeft) * Math.log(clamped / low) / Math.log(high / low);
        }

        void paint() {
            title();
            grid();
            rows();
            if (layout.articleLines()) {
                references();
            }
            legend();
        }

        private void title() {
            g.setColor(INK);
            g.setFont(TITLE);
            g.drawString(layout.title(), MARGIN_PX, MARGIN_PX + 16);
            g.setFont(SMALL);
            g.setColor(MUTED);
            g.drawString(layout.subtitle(), MARGIN_PX, MARGIN_PX + 36);
            g.drawString("shorter is faster; " + (layout.logScale() ? "log scale" : "linear scale") + "; the black tick on each "
                    + "bar: its bound, the fastest the server's latency, quota and in-flight limit allow"
                    + (layout.articleLines() ? "; dashed: the article's figures" : ""), MARGIN_PX, MARGIN_PX + 54);
        }

        private void grid() {
            FontMetrics small = g.getFontMetrics(SMALL);
            g.setFont(SMALL);
            for (double tick : ticks()) {
                int tx = (int) Math.round(x(tick));
                g.setColor(GRID);
                g.drawLine(tx, plotTop, tx, plotBottom);
                g.setColor(MUTED);
                g.drawLine(tx, plotBottom, tx, plotBottom + 4);
                String label = String.format(Locale.ROOT, "%,.0f", tick);
                g.drawString(label, tx - small.stringWidth(label) / 2, plotBottom + 18);
            }
            g.setColor(MUTED);
            g.drawLine(plotLeft, plotBottom, plotRight, plotBottom);
            String title = "p50 latency, ms (" + (layout.logScale() ? "log" : "linear") + " scale)";
            g.drawString(title, (plotLeft + plotRight - small.stringWidth(title)) / 2, plotBottom + 38);
        }

        /** 1, 1.5, 2, 3, 5 × 10^k inside the axis: enough lines to read a bar against, few enough to label. */
        private List<Double> ticks() {
            List<Double> ticks = new ArrayList<>();
            if (!layout.logScale()) {
                // a 1-2-5 step that gives 5 to 10 lines
                double step = niceBelow(high / 5);
                for (double t = 0; t <= high; t += step) {
                    ticks.add(t);
                }
                return ticks;
            }
            for (double decade = Math.pow(10, Math.floor(Math.log10(low))); decade <= high; decade *= 10) {
                for (double m : new double[] {1, 1.5, 2, 3, 5, 7}) {
                    double t = decade * m;
                    if (t >= low && t <= high && (m != 7 || decade < 100)) {
                        ticks.add(t);
                    }
                }
            }
            return ticks;
        }

        private void rows() {
            FontMetrics text = g.getFontMetrics(TEXT);
            int y = plotTop;
            for (var group : groups.entrySet()) {
                g.setColor(new Color(0xF4F4F4));
                g.fillRect(MARGIN_PX, y + 2, plotRight - MARGIN_PX, ROW_PX - 4);
                g.setColor(INK);
                g.setFont(GROUP);
                g.drawString(group.getKey(), MARGIN_PX + 4, y + ROW_PX - 6);
                y += ROW_PX;
                for (Bar b : group.getValue()) {
                    int mid = y + ROW_PX / 2;
                    g.setFont(TEXT);
                    g.setColor(INK);
                    g.drawString(b.label(), plotLeft - 10 - text.stringWidth(b.label()), mid + 5);
                    if (b.measured()) {
                        double end = x(b.p50Ms());
                        g.setColor(b.kind().color);
                        g.fill(new Rectangle2D.Double(plotLeft, mid - BAR_PX / 2.0, Math.max(1, end - plotLeft), BAR_PX));
                        g.setColor(INK);
                        String value = String.format(Locale.ROOT, "%.1f", b.p50Ms());
                        double after = Math.max(end, b.bounded() ? x(b.boundMs()) : end) + 5;
                        g.drawString(value, (float) after, mid + 5);
                    } else {
                        g.setColor(MUTED);
                        g.drawString("no result", plotLeft + 4, mid + 5);
                    }
                    if (b.bounded()) {
                        double bx = x(b.boundMs());
                        g.setColor(Color.BLACK);
                        g.setStroke(new BasicStroke(3f));
                        g.draw(new Line2D.Double(bx, mid - BAR_PX / 2.0 - 3, bx, mid + BAR_PX / 2.0 + 3));
                        g.setStroke(new BasicStroke(1f));
                    }
                    y += ROW_PX;
                }
            }
        }

        private void references() {
            reference(GET_EMAIL_MS, "~150: a get", new Color(0x2CA02C), 0);
            reference(GO_GOROUTINES_MS, "310: Go, a goroutine per message", new Color(0xE07B00), 1);
            reference(PYTHON_SEQUENTIAL_MS, "1659: Python, sequential", new Color(0xD62728), 0);
        }

        /** A dashed line at {@code ms} across every row, named above the rows ({@code tier} 1 one line higher). */
        private void reference(double ms, String name, Color color, int tier) {
            double rx = x(ms);
            Stroke dashed = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {7f, 5f}, 0f);
            g.setColor(color);
            g.setStroke(dashed);
            g.draw(new Line2D.Double(rx, plotTop - 6 - tier * 16, rx, plotBottom));
            g.setStroke(new BasicStroke(1f));
            g.setFont(SMALL);
            FontMetrics small = g.getFontMetrics(SMALL);
            int w = small.stringWidth(name);
            // centred on the line, kept inside the picture
            float left = (float) Math.min(WIDTH_PX - MARGIN_PX - w, Math.max(MARGIN_PX, rx - w / 2.0));
            g.drawString(name, left, plotTop - 10 - tier * 16);
        }

        private void legend() {
            g.setFont(SMALL);
            int y = plotBottom + AXIS_PX;
            int lx = plotLeft;
            for (Kind k : legendKinds(groups)) {
                g.setColor(k.color);
                g.fillRect(lx, y - 10, 26, 12);
                g.setColor(INK);
                g.drawString(String.format(Locale.ROOT, k.legend, layout.externalLabel()), lx + 34, y);
                y += LEGEND_LINE_PX;
            }
            g.setColor(Color.BLACK);
            g.setStroke(new BasicStroke(3f));
            g.drawLine(lx + 13, y - 12, lx + 13, y + 2);
            g.setStroke(new BasicStroke(1f));
            g.setColor(INK);
            g.drawString("bound: round trips × latency, or what the quota and the in-flight limit allow, runs back to back as run",
                    lx + 34, y);
            y += LEGEND_LINE_PX;
            if (!layout.articleLines()) {
                return;
            }
            g.setColor(MUTED);
            g.setStroke(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {7f, 5f}, 0f));
            g.drawLine(lx, y - 4, lx + 26, y - 4);
            g.setStroke(new BasicStroke(1f));
            g.setColor(INK);
            g.drawString("the article's figures: Python sequential 1659 ms and Go with a goroutine per message 310 ms for "
                    + "list_emails(10); ~150 ms for get_email in both", lx + 34, y);
        }
    }

    /** The largest 1, 2 or 5 × 10^k at or below {@code v} (v > 0). */
    static double niceBelow(double v) {
        double decade = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {5, 2, 1}) {
            if (decade * m <= v) {
                return decade * m;
            }
        }
        return decade;
    }
}
