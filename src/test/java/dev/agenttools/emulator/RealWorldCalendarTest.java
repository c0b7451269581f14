package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.api.services.calendar.Calendar;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.Events;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real-world calendars nobody here wrote, each imported on its own ({@code --calendars FILE.ics}) and read back with
 * the official Java Calendar client: python3-icalendar's test calendars (Debian) and the test calendars of the npm
 * package {@code ical} (exports of Google Calendar, Apple iCal, Exchange 2010, Zimbra, ownCloud, Meetup, Lanyrd...).
 * Every occurrence the emulator lists in a file's window (series expanded) must equal what Python's icalendar and
 * recurring_ical_events read from the same file (start instant, all-day date, summary), or differ in a way documented
 * and reviewed in {@code src/test/resources/realworld/calendar-differences.json}; a documented difference that no
 * longer occurs fails too, so the list cannot go stale. The reference is {@code src/test/python/calendar_reference.py}.
 */
@Tag("process")
class RealWorldCalendarTest {
    private static final Path PYTHON_CORPUS = Path.of("target", "test-corpora", "icalendar");
    private static final Path NODE_CORPUS = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"), "node_modules", "ical", "test");
    private static final Path DIFFERENCES = Path.of("src", "test", "resources", "realworld", "calendar-differences.json");
    private static final Path WORK = Path.of("target", "realworld-calendar");
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @Test
    void everyOccurrenceIsServedAsPythonReadsIt() throws Exception {
        assertThat(PYTHON_CORPUS).as("a corpus the build fetches (scripts/build/fetch-test-corpora)").isDirectoryContaining("glob:**.ics");
        assertThat(NODE_CORPUS).as("the npm package ical (the build runs 'npm install' in src/test/node)").isDirectoryContaining("glob:**.ics");
        Path corpus = WORK.resolve("ics");
        reset(corpus);
        copy(PYTHON_CORPUS, "icalendar-", corpus);
        copy(NODE_CORPUS, "ical-", corpus);
        Path referenceFile = WORK.resolve("reference.json");
        CalendarReference.expand(corpus, referenceFile);
        JsonNode reference = JSON.readTree(referenceFile.toFile());

        Map<String, String> found = new TreeMap<>(); // file -> what differs ("" when nothing)
        int occurrences = 0;
        for (Map.Entry<String, JsonNode> file : reference.properties()) {
            String difference = compare(corpus.resolve(file.getKey()), file.getValue());
            found.put(file.getKey(), difference);
            occurrences += file.getValue().path("events").size();
        }
        Map<String, String> documented = documented();
        List<String> problems = new ArrayList<>();
        found.forEach((file, difference) -> {
            String why = documented.get(file);
            if (!difference.isEmpty() && why == null) {
                problems.add(file + ": " + difference);
            } else if (difference.isEmpty() && why != null) {
                problems.add(file + ": documented as differing (" + why + "), but no longer does: remove it from " + DIFFERENCES);
            }
        });
        documented.keySet().stream().filter(f -> !found.containsKey(f)).forEach(f -> problems.add(f + ": documented, but not in the corpus"));
        Files.writeString(WORK.resolve("report.txt"), String.join("\n", found.entrySet().stream()
                .map(e -> e.getKey() + ": " + (e.getValue().isEmpty() ? "same" : e.getValue())).toList()) + "\n");
        assertThat(problems).as("undocumented differences (report: %s)", WORK.resolve("report.txt")).isEmpty();
        assertThat(found).as("files compared").hasSizeGreaterThanOrEqualTo(25);
        assertThat(occurrences).as("occurrences compared").isGreaterThan(300);
    }

    /** What differs between the emulator's answer and Python's reading of one file; empty when nothing does. */
    private String compare(Path file, JsonNode expected) throws Exception {
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        Emulator emulator;
        PrintStream stderr = System.err;
        try {
            System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
            emulator = emulators.start(JavaGmailClient.fastConfig().seedMessages(1).calendars(file.toString()).build());
        } catch (Exception e) {
            return expected.has("error") ? "" : "the emulator cannot import it: " + e.getMessage();
        } finally {
            System.setErr(stderr);
        }
        try (emulator) {
            if (expected.has("error")) {
                return "Python cannot read it (" + expected.get("error").asText() + "), the emulator can";
            }
            List<String> served = served(JavaCalendarClient.connect(emulator, "any"), expected);
            List<String> wanted = new ArrayList<>();
            expected.get("events").forEach(e -> wanted.add(line(e.get("start").asText(), e.get("all_day").asBoolean(),
                    e.path("summary").isNull() ? null : e.path("summary").asText())));
            if (served.equals(wanted)) {
                return "";
            }
            List<String> missing = new ArrayList<>(wanted);
            served.forEach(missing::remove);
            List<String> extra = new ArrayList<>(served);
            wanted.forEach(extra::remove);
            String skipped = warnings.toString(StandardCharsets.UTF_8).strip();
            return "served " + served.size() + " occurrences, Python reads " + wanted.size() + "; missing " + CalendarReference.head(missing)
                    + ", extra " + CalendarReference.head(extra) + (skipped.isEmpty() ? "" : "; the emulator said: " + skipped.replace('\n', ' '));
        }
    }

    /** The occurrences the emulator lists in the reference's window, series expanded, in start order. */
    private static List<String> served(Calendar calendar, JsonNode expected) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Events events : CalendarReference.pages(calendar, expected)) {
            assertThat(events.getTimeZone()).as("the calendar's zone, by its IANA name").isIn(ZoneId.getAvailableZoneIds());
            for (Event e : events.getItems()) {
                boolean allDay = e.getStart().getDate() != null;
                if (e.getStart().getTimeZone() != null) {
                    // Outlook's "(UTC+07:00) Bangkok, Hanoi, Jakarta" has no IANA name: the offset says it, not ical4j's own id
                    assertThat(e.getStart().getTimeZone()).as(e.getSummary()).isIn(ZoneId.getAvailableZoneIds());
                }
                lines.add(line(allDay ? e.getStart().getDate().toStringRfc3339() : e.getStart().getDateTime().toStringRfc3339(), allDay,
                        e.getSummary()));
            }
        }
        lines.sort(null);
        return lines;
    }

    /** One occurrence as compared: the start's instant (or date), and the summary, blank as none. */
    private static String line(String start, boolean allDay, String summary) {
        String when = allDay ? start.substring(0, 10) : OffsetDateTime.parse(start).toInstant().toString();
        return when + " " + (summary == null || summary.isBlank() ? "(none)" : summary.strip());
    }

    private static Map<String, String> documented() throws IOException {
        Map<String, String> out = new TreeMap<>();
        for (JsonNode d : JSON.readTree(DIFFERENCES.toFile())) {
            out.put(d.get("file").asText(), d.get("why").asText());
        }
        return out;
    }

    private static void copy(Path from, String prefix, Path to) throws IOException {
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".ics")).toList()) {
                Files.copy(f, to.resolve(prefix + f.getFileName()));
            }
        }
    }

    private static void reset(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
        Files.createDirectories(dir);
    }
}
