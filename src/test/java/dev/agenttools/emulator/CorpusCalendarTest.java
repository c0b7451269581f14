package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.api.services.calendar.Calendar;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.EventDateTime;
import com.google.api.services.calendar.model.Events;
import dev.agenttools.Tools;
import dev.agenttools.calendar.CalendarTools;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 30, items 2 and 3: a further corpus of real-world calendars from other projects' test suites as Debian ships
 * them (evolution-data-server's installed tests, the Go library golang-ical, Horde's iCalendar and Nag, Perl's
 * Tie::iCal; fetched by {@code scripts/build/fetch-test-corpora}, licences in {@code scripts/build/test-corpora-NOTICE.md}), none
 * of them in {@link RealWorldCalendarTest}. Each file is imported on its own ({@code --calendars FILE.ics}) and every
 * occurrence in its year (the reference's window: from its first event's day, at least 366 days) is read twice, through
 * the Calendar API ({@code events.list}, {@code singleEvents=true}, with the official Java client) and through the
 * {@code calendar.list-events} tool, and both must equal what an independent expander reads from the same file,
 * occurrence by occurrence: start and end instants (dates for all-day ones) and summary. The expander is Python's
 * icalendar and recurring_ical_events from Debian ({@code src/test/python/calendar_reference.py}): not our code, and
 * already fetched for RealWorldCalendarTest, so CI installs nothing more for it.
 *
 * <p>A file may differ only if it is in {@link #KNOWN}, with the reason; a known file that no longer differs fails
 * too, so the list shrinks as the import is fixed. A file the expander cannot read either counts as refused by both.
 */
@Tag("process")
class CorpusCalendarTest {
    private static final Path CORPUS = Path.of("target", "test-corpora", "ics-corpus");
    private static final Path WORK = Path.of("target", "corpus-calendar");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Files whose import differs today, each with why; to shrink as CalendarImport is fixed (issue 30, item 2). */
    private static final Map<String, String> KNOWN = known();

    private static Map<String, String> known() {
        Map<String, String> known = new TreeMap<>();
        known.put("eds-event-7.ics", "TZID=/freeassociation.sourceforge.net/America/New_York, a zone the file does not define: "
                + "the emulator reads New York's zone behind Evolution's prefix (13:50 EST is 18:50Z); the expander reads an unknown "
                + "zone as a floating time (13:50Z)");
        known.put("horde-icalendar-exchange.ics", "the expander fails on Exchange's VTIMEZONE \"Eastern Time (US & Canada)\" "
                + "(recurring_ical_events 2.0.1: TypeError), the emulator reads it");
        known.put("golang-ical-timeparsing.ics", "the expander fails on the malformed \"DTSTART:20210527Z\" "
                + "(a date with a UTC mark; recurring_ical_events 2.0.1: AttributeError), the emulator reads the file");
        return known;
    }

    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @Test
    void everyOccurrenceOfEveryCorpusCalendarIsServedAndListedAsAnIndependentExpanderReadsIt() throws Exception {
        assertThat(CORPUS).as("a corpus the build fetches (scripts/build/fetch-test-corpora)").isDirectoryContaining("glob:**.ics");
        Files.createDirectories(WORK);
        Path referenceFile = WORK.resolve("reference.json");
        CalendarReference.expand(CORPUS, referenceFile);
        JsonNode reference = JSON.readTree(referenceFile.toFile());

        Map<String, String> found = new TreeMap<>(); // file -> what differs ("" when nothing)
        int occurrences = 0;
        for (Map.Entry<String, JsonNode> file : reference.properties()) {
            found.put(file.getKey(), compare(CORPUS.resolve(file.getKey()), file.getValue()));
            occurrences += file.getValue().path("events").size();
        }
        List<String> problems = new ArrayList<>();
        found.forEach((file, difference) -> {
            String why = KNOWN.get(file);
            if (!difference.isEmpty() && why == null) {
                problems.add(file + ": " + difference);
            } else if (difference.isEmpty() && why != null) {
                problems.add(file + ": known to differ (" + why + "), but no longer does: remove it from CorpusCalendarTest.KNOWN");
            }
        });
        KNOWN.keySet().stream().filter(f -> !found.containsKey(f)).forEach(f -> problems.add(f + ": known, but not in the corpus"));
        Files.writeString(WORK.resolve("report.txt"), String.join("\n", found.entrySet().stream()
                .map(e -> e.getKey() + ": " + (e.getValue().isEmpty() ? status(reference.get(e.getKey())) : e.getValue())).toList()) + "\n");
        assertThat(problems).as("new differences (report: %s)", WORK.resolve("report.txt")).isEmpty();
        assertThat(found).as("files compared").hasSizeGreaterThanOrEqualTo(40);
        assertThat(occurrences).as("occurrences compared").isGreaterThan(500);
    }

    private static String status(JsonNode expected) {
        return expected.has("error") ? "refused by both" : "same (" + expected.path("events").size() + " occurrences)";
    }

    /** What differs between the emulator's answers and the expander's reading of one file; empty when nothing does. */
    private String compare(Path file, JsonNode expected) throws Exception {
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        Emulator emulator;
        PrintStream stderr = System.err;
        try {
            System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
            emulator = emulators.start(JavaGmailClient.fastConfig().seedMessages(1).calendars(file.toString()).build());
        } catch (Exception e) {
            return expected.has("error") ? "" : "the emulator refuses it (" + e.getMessage() + "), the expander reads it";
        } finally {
            System.setErr(stderr);
        }
        try (emulator) {
            if (expected.has("error")) {
                return "the expander cannot read it (" + expected.get("error").asText() + "), the emulator can";
            }
            List<String> wanted = new ArrayList<>();
            expected.get("events").forEach(e -> wanted.add(line(e.get("start").asText(), e.get("end").asText(),
                    e.get("all_day").asBoolean(), e.path("summary").isNull() ? null : e.path("summary").asText())));
            wanted.sort(null);
            String said = warnings.toString(StandardCharsets.UTF_8).strip().replace('\n', ' ');
            List<String> differences = new ArrayList<>();
            String api = difference("events.list", served(JavaCalendarClient.connect(emulator, "any"), expected), wanted);
            if (!api.isEmpty()) {
                differences.add(api);
            }
            String tool = difference("calendar.list-events", listed(emulator, expected), wanted);
            if (!tool.isEmpty()) {
                differences.add(tool);
            }
            if (differences.isEmpty()) {
                return "";
            }
            return String.join("; ", differences) + (said.isEmpty() ? "" : "; the emulator said: " + said);
        }
    }

    private static String difference(String source, List<String> got, List<String> wanted) {
        if (got.equals(wanted)) {
            return "";
        }
        List<String> missing = new ArrayList<>(wanted);
        got.forEach(missing::remove);
        List<String> extra = new ArrayList<>(got);
        wanted.forEach(extra::remove);
        return source + " gives " + got.size() + " occurrences, the expander " + wanted.size() + "; missing " + CalendarReference.head(missing)
                + ", extra " + CalendarReference.head(extra);
    }

    /** The occurrences events.list gives in the reference's window, series expanded. */
    private static List<String> served(Calendar calendar, JsonNode expected) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Events events : CalendarReference.pages(calendar, expected)) {
            for (Event e : events.getItems()) {
                lines.add(line(text(e.getStart()), text(e.getEnd()), e.getStart().getDate() != null, e.getSummary()));
            }
        }
        lines.sort(null);
        return lines;
    }

    private static String text(EventDateTime t) {
        return t.getDate() != null ? t.getDate().toStringRfc3339() : t.getDateTime().toStringRfc3339();
    }

    /** The occurrences the calendar.list-events tool lists in the reference's window, through every page. */
    private static List<String> listed(Emulator emulator, JsonNode expected) throws Exception {
        List<String> lines = new ArrayList<>();
        if (!expected.has("time_min")) {
            return lines;
        }
        try (ToolRegistry tools = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken("any").build()) {
            String page = null;
            int pages = 0;
            do {
                ObjectNode p = JSON.createObjectNode().put("time_min", expected.get("time_min").asText())
                        .put("time_max", expected.get("time_max").asText()).put("max_results", 2500);
                if (page != null) {
                    p.put("page_token", page);
                }
                JsonNode answer = tools.call(ToolCall.of(CalendarTools.LIST_EVENTS, p)).data();
                for (JsonNode e : answer.path("events")) {
                    lines.add(toolLine(e));
                }
                page = answer.path("next_page_token").isTextual() ? answer.get("next_page_token").asText() : null;
                assertThat(++pages).as("pages of calendar.list-events").isLessThan(100);
            } while (page != null);
        }
        lines.sort(null);
        return lines;
    }

    /** One event of the tool's answer as compared: its start and end (a date for an all-day one), its summary. */
    private static String toolLine(JsonNode e) {
        boolean allDay = e.path("all_day").asBoolean(false) || e.path("start").asText().length() == 10;
        return line(e.path("start").asText(), e.path("end").asText(), allDay,
                e.path("summary").isTextual() ? e.get("summary").asText() : null);
    }

    /** One occurrence as compared: start and end instants (dates when all-day), and the summary, blank as none. */
    private static String line(String start, String end, boolean allDay, String summary) {
        return when(start, allDay) + " .. " + when(end, allDay) + " " + (summary == null || summary.isBlank() ? "(none)" : summary.strip());
    }

    private static String when(String value, boolean allDay) {
        if (value == null || value.isEmpty()) {
            return "(none)";
        }
        return allDay || value.length() == 10 ? value.substring(0, 10) : OffsetDateTime.parse(value).toInstant().toString();
    }
}
