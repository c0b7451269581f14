package dev.agenttools.emulator.calendar;

import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.Calendar;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.Events;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.emulator.JavaCalendarClient;
import dev.agenttools.emulator.JavaGmailClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The kinds of calendar that real exports and other programs write and that the import once got wrong (issue 30), each
 * from a small file of its own under {@code src/test/resources/dev/agenttools/emulator/calendar/}: every occurrence in
 * 2026 read back with the official Java client (start instant or date, summary), and what was not imported as the
 * file says named on stderr with the file and the UID.
 */
class CalendarImportKindsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @TempDir
    Path dir;

    @Test
    void aZoneTheFileDoesNotDefineIsReadByItsIanaNameBehindAVendorPrefixOrItsWindowsName() throws Exception {
        Imported got = load("unknown-zones.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-01-16T14:00:00Z Evolution's prefix",
                "2026-01-17T14:00:00Z Mozilla's prefix",
                "2026-01-18T14:00:00Z Windows zone name",
                "2026-01-19T09:00:00Z No such zone",
                // New York's own rules, not a fixed offset: 9:00 before and after the change to summer time
                "2026-03-02T14:00:00Z IANA zone, weekly across DST",
                "2026-03-09T13:00:00Z IANA zone, weekly across DST",
                "2026-03-16T13:00:00Z IANA zone, weekly across DST");
        // Outlook quotes a TZID with commas, and escapes them in the VTIMEZONE that defines it
        Imported outlook = load("quoted-tzid.ics");
        assertThat(outlook.occurrences()).containsExactly("2026-07-15T08:00:00Z Quoted zone");
        assertThat(outlook.stderr()).isEmpty();
        // the one zone nobody knows is read as a floating time (in the calendar's zone), and said so
        assertThat(got.stderr()).hasLineCount(1).contains("unknown-zones.ics", "UID atlantis@example.com", "Atlantis/Lost_City");
    }

    @Test
    void rdatesAddOccurrencesAsTimesZonedTimesDatesAndPeriods() throws Exception {
        Imported got = load("rdates.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-01-05T10:00:00Z Weekly and extra times",
                "2026-01-12T10:00:00Z Weekly and extra times",
                "2026-01-20T15:00:00Z Weekly and extra times",
                "2026-01-22T15:00:00Z Weekly and extra times",
                "2026-01-28T09:00:00Z Weekly and extra times",
                "2026-02-01T09:00:00Z Periods",
                "2026-02-03T12:00:00Z Periods",
                "2026-02-05T12:00:00Z Periods",
                "2026-03-01 Extra days",
                "2026-03-05 Extra days",
                "2026-03-10 Extra days");
        assertThat(got.stderr()).isEmpty();
    }

    @Test
    void aTimeZoneWhoseChangesAreListedAsRdatesGivesItsOffsets() throws Exception {
        Imported got = load("rdate-vtimezone.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-01-15T09:00:00Z Winter",
                "2026-03-22T09:00:00Z Across the change",
                "2026-03-29T08:00:00Z Across the change",
                "2026-07-15T08:00:00Z Summer");
        assertThat(got.stderr()).isEmpty();
        // each change given by its DTSTART alone (a single onset): summer time from 29 March to 25 October
        assertThat(load("onset-only-vtimezone.ics").occurrences()).containsExactly(
                "2026-01-15T09:00:00Z Winter",
                "2026-07-15T08:00:00Z Summer",
                "2026-12-15T09:00:00Z December");
    }

    @Test
    void anUnreadableFileIsOneLineNamingItNoStackTrace() throws Exception {
        Path file = dir.resolve("garbage.ics");
        Files.write(file, new byte[]{'B', 'E', 'G', 'I', 'N', ':', 'V', 'C', 'A', 'L', (byte) 0xff, 0, 0x13, '\n', 'x'});
        assertThatThrownBy(() -> CalendarImport.load(file, "me@example.com", System.err))
                .isInstanceOf(IOException.class).hasMessageStartingWith("cannot read " + file + " as iCalendar: ");
    }

    @Test
    void aPropertyIcal4jCannotBuildIsLeftOutAndSaidWithTheEvent() throws Exception {
        Imported got = load("invalid-property.ics");
        assertThat(got.occurrences()).containsExactly("2026-01-15T10:00:00Z Its end is no date");
        assertThat(got.stderr()).hasLineCount(1).contains("invalid-property.ics", "UID bad-end@example.com", "DTEND");
    }

    @Test
    void aDateOnlyExdateRemovesThatDayFromATimedSeries() throws Exception {
        Imported got = load("exdate-date.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-01-05T09:00:00Z Daily",
                "2026-01-06T09:00:00Z Daily",
                "2026-01-08T09:00:00Z Daily",
                "2026-01-09T09:00:00Z Daily");
    }

    @Test
    void aSecondRruleAddsItsOccurrences() throws Exception {
        Imported got = load("two-rrules.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-01-05T10:00:00Z Mondays and Thursdays",
                "2026-01-08T10:00:00Z Mondays and Thursdays",
                "2026-01-12T10:00:00Z Mondays and Thursdays",
                "2026-01-19T10:00:00Z Mondays and Thursdays"); // 15 January is an EXDATE
        assertThat(got.stderr()).isEmpty();
    }

    @Test
    void aChangedInstanceWhoseSeriesIsNotInTheFileIsImportedAsAnEventOfItsOwn() throws Exception {
        Imported got = load("orphan-exception.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-02-10T10:00:00Z Moved, series elsewhere",
                "2026-02-11T10:00:00Z Single");
    }

    @Test
    void aChangedInstanceOfNoOccurrenceIsImportedAsAnEventOfItsOwnAndSaid() throws Exception {
        Imported got = load("exception-of-no-occurrence.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-01-05T10:00:00Z Weekly",
                "2026-01-07T15:00:00Z Changed Wednesday",
                "2026-01-12T10:00:00Z Weekly");
        assertThat(got.stderr()).hasLineCount(1).contains("exception-of-no-occurrence.ics", "UID weekly@example.com", "RECURRENCE-ID");
    }

    @Test
    void anAllDaySeriesChangedByADateTimeRecurrenceIdChangesThatDay() throws Exception {
        Imported got = load("allday-datetime-recurrence-id.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-03-02 Holiday",
                "2026-03-03 Holiday (changed)",
                "2026-03-04 Holiday");
    }

    @Test
    void aTimeZoneWithoutTzidIsSkippedAndSaidSoTheRestImported() throws Exception {
        Imported got = load("vtimezone-without-tzid.ics");
        assertThat(got.occurrences()).containsExactly("2026-01-15T09:00:00Z Kept");
        assertThat(got.stderr()).hasLineCount(1).contains("vtimezone-without-tzid.ics", "VTIMEZONE", "TZID");
    }

    @Test
    void aFileThatIsOneBareEventOrTaskWithNoVcalendarAroundItIsImported() throws Exception {
        Imported event = load("bare-event.ics");
        assertThat(event.occurrences()).containsExactly(
                "2026-01-05T10:00:00Z No VCALENDAR around it",
                "2026-01-12T10:00:00Z No VCALENDAR around it",
                "2026-01-19T10:00:00Z No VCALENDAR around it");
        assertThat(event.stderr()).isEmpty();
        // a to-do is no event: a calendar with nothing in it, not a refused file
        Imported task = load("bare-todo.ics");
        assertThat(task.occurrences()).isEmpty();
        assertThat(task.stderr()).isEmpty();
    }

    @Test
    void everyVcalendarOfAFileHoldingSeveralOneAfterAnotherIsImported() throws Exception {
        // as Mozilla Calendar exported (Perl Tie::iCal's demo): ical4j hands each VCALENDAR on, only the last was kept
        Imported got = load("several-vcalendars.ics");
        assertThat(got.occurrences()).containsExactly(
                "2026-01-05T10:00:00Z In the first",
                "2026-01-12T10:00:00Z In the first",
                "2026-04-06 In the second",
                "2026-07-01T09:00:00Z In the last");
        assertThat(got.stderr()).isEmpty();
    }

    /** The file's occurrences in 2026 as the official client lists them, and what importing it said on stderr. */
    private record Imported(List<String> occurrences, String stderr) {
    }

    private Imported load(String resource) throws Exception {
        Path file = dir.resolve(resource);
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.write(file, in.readAllBytes());
        }
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        CalendarImport.load(file, "me@example.com", new PrintStream(warnings, true, StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().calendars(file.toString()).build())) {
            Calendar calendar = JavaCalendarClient.connect(emulator, "any");
            String page = null;
            do {
                Events events = calendar.events().list("primary").setSingleEvents(true).setOrderBy("startTime")
                        .setTimeMin(new DateTime("2026-01-01T00:00:00Z")).setTimeMax(new DateTime("2027-01-01T00:00:00Z"))
                        .setMaxResults(2500).setPageToken(page).execute();
                for (Event e : events.getItems()) {
                    lines.add((e.getStart().getDate() != null ? e.getStart().getDate().toStringRfc3339()
                            : OffsetDateTime.parse(e.getStart().getDateTime().toStringRfc3339()).toInstant().toString())
                            + " " + e.getSummary());
                }
                page = events.getNextPageToken();
            } while (page != null);
        }
        lines.sort(null);
        return new Imported(lines, warnings.toString(StandardCharsets.UTF_8).strip());
    }
}
