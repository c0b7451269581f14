package dev.agenttools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

import static org.assertj.core.api.Assertions.assertThat;

/** The default run's picture: written where the run says, one bar per row given, whatever the figures. */
class BenchReportTest {

    private static Row row(String tool, String strategy, int n, double p50, double bound) {
        return new Row(tool, strategy, n, 50, 1, p50, p50, p50, p50, p50, p50, 0, 11, 0, 0, bound, null);
    }

    /** The README's table, in its shape: the main rows, process models, and the external, bare and a peer's rows. */
    private static final List<Row> ROWS = List.of(row("list_emails", "sequential", 10, 1671.2, 1650),
            row("list_emails", "concurrent", 10, 313.3, 300), row("list_emails", "batch", 10, 318.5, 310),
            row("get_email", "sequential", 1, 152.8, 150), row("list_emails", "warm", 10, 159.4, 150),
            row("get_email", "serve", 1, 157.2, 150), row("get_email", "call+aot", 1, 638.0, 150),
            row("get_email", "launcher", 1, 163.3, 150));
    private static final List<Row> EXTERNAL = List.of(row("list_emails", "concurrent", 10, 305.9, 300),
            row("get_email", "sequential", 1, 152.7, 150), row("list_emails", "bare", 10, 305.2, 300),
            row("list_emails", "go", 10, 304.6, 300));

    @Test
    void drawsOneBarPerRowGroupedByToolIntoBenchStampPng(@TempDir Path out) throws Exception {
        Path file = BenchReport.writeSummaryChart(out.resolve("results"), "20261202-010203", ROWS, EXTERNAL, "external, TLS", 150,
                "commit abc · 2026-12-02 01:02 UTC");

        assertThat(file).isEqualTo(out.resolve("results").resolve("bench-20261202-010203-all.png"));
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image).as("a PNG ImageIO reads").isNotNull();
        var groups = SummaryChart.groups(ROWS, EXTERNAL, "external, TLS");
        assertThat(groups.keySet()).as("list_emails' rows together, whichever table they came from").containsExactly("list_emails", "get_email");
        assertThat(groups.get("list_emails")).extracting(SummaryChart.Bar::label).containsExactly("list_emails(10) sequential",
                "list_emails(10) concurrent", "list_emails(10) batch", "list_emails(10) warm",
                "external, TLS: list_emails(10) concurrent", "external, TLS: list_emails(10) bare", "external, TLS: list_emails(10) go");
        assertThat(groups.get("list_emails")).extracting(SummaryChart.Bar::kind).containsExactly(SummaryChart.Kind.EMBEDDED,
                SummaryChart.Kind.EMBEDDED, SummaryChart.Kind.EMBEDDED, SummaryChart.Kind.EMBEDDED, SummaryChart.Kind.EXTERNAL,
                SummaryChart.Kind.BARE, SummaryChart.Kind.PEER);
        assertThat(image.getWidth()).isEqualTo(SummaryChart.WIDTH_PX);
        assertThat(image.getHeight()).isEqualTo(SummaryChart.height(groups));
        assertThat(SummaryChart.height(SummaryChart.groups(ROWS, List.of(), "external")))
                .as("fewer rows, a shorter picture").isLessThan(image.getHeight());
    }

    @Test
    void rowsWithoutAResultKeepTheirPlaceWithoutBreakingThePicture(@TempDir Path out) throws Exception {
        List<Row> rows = List.of(row("list_emails", "concurrent", 10, 0, 300), row("get_email", "sequential", 1, Double.NaN, Double.NaN),
                row("get_email", "call", 1, Double.POSITIVE_INFINITY, 0), row("list_events", "batch", 9, 12.5, 309));

        Path file = BenchReport.writeSummaryChart(out, "empty", rows, List.of(), "external", Double.NaN, "");

        assertThat(Files.size(file)).isPositive();
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image.getHeight()).isEqualTo(SummaryChart.height(SummaryChart.groups(rows, List.of(), "external")));
        assertThat(ImageIO.read(BenchReport.writeSummaryChart(out, "none", List.of(), List.of(), "external", 150, "").toFile()))
                .as("no rows at all: the frame, the article's lines and the legend").isNotNull();
    }

    @Test
    void theArticlesPictureNamesEachBarInWordsBesideTheArticlesOwnFigures(@TempDir Path out) throws Exception {
        List<Row> article = List.of(row("list_emails", "sequential", 10, 1671.2, 1650), row("list_emails", "concurrent", 10, 313.3, 300),
                row("list_emails", "batch", 10, 318.5, 310), row("get_email", "sequential", 1, 152.8, 150),
                row("list_emails", "go", 10, 304.6, 300), row("get_email", "go", 1, 151.0, 150));

        var groups = SummaryChart.articleGroups(article, 10);

        assertThat(groups.keySet()).containsExactly("list_emails(10): one list, then 10 gets", "get_email: one message");
        assertThat(groups.get("list_emails(10): one list, then 10 gets")).extracting(SummaryChart.Bar::label).containsExactly(
                "the article: Python, one call after another", "the article: Go, a goroutine per message",
                "agent-tools, one call after another (sequential)", "agent-tools, the gets at once (concurrent)",
                "agent-tools, the gets in one batch request (batch)", "the Go design here, a goroutine per message (go)");
        assertThat(groups.get("list_emails(10): one list, then 10 gets")).extracting(SummaryChart.Bar::p50Ms)
                .startsWith(SummaryChart.PYTHON_SEQUENTIAL_MS, SummaryChart.GO_GOROUTINES_MS);
        assertThat(groups.get("get_email: one message")).extracting(SummaryChart.Bar::kind).containsExactly(SummaryChart.Kind.ARTICLE,
                SummaryChart.Kind.AGENT_TOOLS, SummaryChart.Kind.GO_HERE);
        assertThat(SummaryChart.articleGroups(article, 25).get("list_emails(25): one list, then 25 gets"))
                .as("the article measured 10: its figures are not set beside another size").hasSize(4);

        Path file = BenchReport.writeArticleChart(out, "20261205-010203", article, 10, 150, "against an emulator process", "commit abc");
        assertThat(file).isEqualTo(out.resolve("bench-20261205-010203.png"));
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image.getHeight()).isEqualTo(SummaryChart.height(groups));
        // linear: the concurrent bar (313 ms) is about a fifth of the sequential one (1671 ms); on the log axis it was half
        int y = barRow(groups, "list_emails(10): one list, then 10 gets", 2);
        int yConcurrent = barRow(groups, "list_emails(10): one list, then 10 gets", 3);
        double ratio = barLength(image, yConcurrent) / (double) barLength(image, y);
        assertThat(ratio).as("concurrent's bar over sequential's").isBetween(313.3 / 1671.2 - 0.03, 313.3 / 1671.2 + 0.03);
    }

    /** The pixel row through the middle of bar {@code index} (0-based) of {@code group}, the picture laid out as drawn. */
    private static int barRow(Map<String, List<SummaryChart.Bar>> groups, String group, int index) {
        int y = SummaryChart.TOP_PX;
        for (var g : groups.entrySet()) {
            y += SummaryChart.ROW_PX;
            if (g.getKey().equals(group)) {
                return y + index * SummaryChart.ROW_PX + SummaryChart.ROW_PX / 2;
            }
            y += g.getValue().size() * SummaryChart.ROW_PX;
        }
        throw new IllegalArgumentException(group);
    }

    /** The pixels of agent-tools' bar colour along pixel row {@code y} (the bound's 3-pixel tick aside). */
    private static int barLength(BufferedImage image, int y) {
        int colour = SummaryChart.Kind.AGENT_TOOLS.color.getRGB() & 0xFFFFFF;
        int pixels = 0;
        for (int x = 0; x < image.getWidth(); x++) {
            if ((image.getRGB(x, y) & 0xFFFFFF) == colour) {
                pixels++;
            }
        }
        return pixels;
    }

    @Test
    void longLinesAreWrappedAtSpacesAndTablesPassUnchanged() {
        String table = BenchReport.table(ROWS);
        assertThat(BenchReport.wrap(table, BenchReport.COLUMNS)).isEqualTo(table);
        assertThat(table.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(BenchReport.COLUMNS));
        String wrapped = BenchReport.wrap("one two three four five six\nseven", 10);
        assertThat(wrapped).isEqualTo("one two\n  three\n  four\n  five six\nseven");
        assertThat(BenchReport.wrap("https://example.org/a-very-long-address x", 10)).as("a word longer than the line stays whole")
                .isEqualTo("https://example.org/a-very-long-address\n  x");
    }
}
