package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.Calendar;
import com.google.api.services.calendar.model.Events;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the real-world calendar tests share: the independent expansion of a folder of {@code .ics} files (Python's
 * {@code icalendar} and {@code recurring_ical_events}, Debian's, by {@code src/test/python/calendar_reference.py}),
 * the emulator's pages over the same window, and how a difference is shown.
 */
final class CalendarReference {
    private static final Path PYTHON_LIBRARIES = Path.of("target", "test-corpora", "python", "usr", "lib", "python3", "dist-packages");

    private CalendarReference() {
    }

    /** Expands every calendar of {@code corpus} into {@code out} (JSON, by file: window, occurrences or why refused). */
    static void expand(Path corpus, Path out) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("python3", "src/test/python/calendar_reference.py", corpus.toString(), out.toString())
                .redirectErrorStream(true);
        pb.environment().put("PYTHONPATH", PYTHON_LIBRARIES.toAbsolutePath().toString());
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("python finished").isTrue();
        assertThat(p.exitValue()).as("calendar_reference.py: %s", output).isZero();
    }

    /** events.list of the primary calendar over the reference's window, series expanded, every page (none without a window). */
    static List<Events> pages(Calendar calendar, JsonNode expected) throws IOException {
        List<Events> pages = new ArrayList<>();
        if (!expected.has("time_min")) {
            return pages;
        }
        String page = null;
        do {
            Events events = calendar.events().list("primary").setSingleEvents(true).setMaxResults(2500)
                    .setTimeMin(new DateTime(expected.get("time_min").asText())).setTimeMax(new DateTime(expected.get("time_max").asText()))
                    .setPageToken(page).execute();
            pages.add(events);
            page = events.getNextPageToken();
        } while (page != null);
        return pages;
    }

    /** How many lines, and the first three. */
    static String head(List<String> lines) {
        return lines.isEmpty() ? "none" : lines.size() + " " + lines.subList(0, Math.min(3, lines.size()));
    }
}
