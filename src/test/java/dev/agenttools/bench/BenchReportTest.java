package dev.agenttools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
        Path file = BenchReport.writeSummaryChart(out.resolve("results"), "20261202-010203", ROWS, EXTERNAL, "external, TLS", 150);

        assertThat(file).isEqualTo(out.resolve("results").resolve("bench-20261202-010203.png"));
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

        Path file = BenchReport.writeSummaryChart(out, "empty", rows, List.of(), "external", Double.NaN);

        assertThat(Files.size(file)).isPositive();
        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image.getHeight()).isEqualTo(SummaryChart.height(SummaryChart.groups(rows, List.of(), "external")));
        assertThat(ImageIO.read(BenchReport.writeSummaryChart(out, "none", List.of(), List.of(), "external", 150).toFile()))
                .as("no rows at all: the frame, the article's lines and the legend").isNotNull();
    }
}
