package dev.agenttools.emulator.calendar;

import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.Calendar;
import com.google.api.services.calendar.model.CalendarListEntry;
import com.google.api.services.calendar.model.Event;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.emulator.JavaCalendarClient;
import dev.agenttools.emulator.JavaGmailClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A user's own Google Calendar export (.ics files) served as their calendars, read back with the official client. */
class ImportedCalendarTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    /** As Google Calendar exports a calendar: CRLF lines, TZID times, a series with an EXDATE and a moved instance. */
    private static final String PRIMARY = String.join("\r\n",
            "BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:Anna Schmidt", "X-WR-TIMEZONE:Europe/Berlin",
            "BEGIN:VEVENT", "DTSTART;TZID=Europe/Berlin:20260302T100000", "DTEND;TZID=Europe/Berlin:20260302T103000",
            "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6", "EXDATE;TZID=Europe/Berlin:20260316T100000", "DTSTAMP:20261130T120000Z",
            "UID:weekly-sync@example.com", "ORGANIZER;CN=Anna Schmidt:mailto:anna@example.com",
            "ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:bob@example.com",
            "ATTENDEE;PARTSTAT=NEEDS-ACTION;ROLE=OPT-PARTICIPANT:mailto:carol@example.com",
            "X-GOOGLE-CONFERENCE:https://meet.google.com/aaa-bbbb-ccc", "CREATED:20260201T090000Z",
            "LAST-MODIFIED:20260210T090000Z", "SUMMARY:Weekly sync", "END:VEVENT",
            "BEGIN:VEVENT", "DTSTART;TZID=Europe/Berlin:20260323T110000", "DTEND;TZID=Europe/Berlin:20260323T113000",
            "RECURRENCE-ID;TZID=Europe/Berlin:20260323T100000", "DTSTAMP:20261130T120000Z", "UID:weekly-sync@example.com",
            "SUMMARY:Weekly sync (moved)", "END:VEVENT",
            "BEGIN:VEVENT", "DTSTART;VALUE=DATE:20260406", "DTEND;VALUE=DATE:20260408", "DTSTAMP:20261130T120000Z",
            "UID:easter@example.com", "SUMMARY:Ostern", "TRANSP:TRANSPARENT", "END:VEVENT",
            "BEGIN:VEVENT", "DTSTART:20260310T150000Z", "DURATION:PT45M", "DTSTAMP:20261130T120000Z", "UID:utc@example.com",
            "SUMMARY:Call with NYC", "END:VEVENT",
            "BEGIN:VEVENT", "DTSTAMP:20261130T120000Z", "UID:broken@example.com", "SUMMARY:No start", "END:VEVENT",
            "END:VCALENDAR", "");
    private static final String TEAM = String.join("\r\n",
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "X-WR-CALNAME:チーム",
            "X-WR-TIMEZONE:Asia/Tokyo",
            "BEGIN:VEVENT", "DTSTART;VALUE=DATE:20260310", "DTEND;VALUE=DATE:20260311", "DTSTAMP:20261130T120000Z",
            "UID:release@example.com", "SUMMARY:リリース日", "END:VEVENT", "END:VCALENDAR", "");

    @Test
    void servesAnExportAsTheUsersCalendars(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("me@example.com.ics"), PRIMARY, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("team@group.calendar.google.com.ics"), TEAM, StandardCharsets.UTF_8);
        Emulator emulator = emulators.start(JavaGmailClient.fastConfig().calendars(dir.toString()).build());
        Calendar calendar = JavaCalendarClient.connect(emulator, "any");

        List<CalendarListEntry> calendars = calendar.calendarList().list().execute().getItems();
        assertThat(calendars).extracting(CalendarListEntry::getId).containsExactly("me@example.com", "team@group.calendar.google.com");
        assertThat(calendars.getFirst().getSummary()).isEqualTo("Anna Schmidt");
        assertThat(calendars.get(1).getTimeZone()).isEqualTo("Asia/Tokyo");

        List<Event> march = calendar.events().list("primary").setSingleEvents(true).setOrderBy("startTime")
                .setTimeMin(new DateTime("2026-03-01T00:00:00Z")).setTimeMax(new DateTime("2026-04-01T00:00:00Z")).execute().getItems();
        assertThat(march).extracting(e -> e.getStart().getDateTime().toStringRfc3339() + " " + e.getSummary()).containsExactly(
                "2026-03-02T10:00:00.000+01:00 Weekly sync",
                "2026-03-09T10:00:00.000+01:00 Weekly sync",
                "2026-03-10T16:00:00.000+01:00 Call with NYC",
                "2026-03-23T11:00:00.000+01:00 Weekly sync (moved)",
                "2026-03-30T10:00:00.000+02:00 Weekly sync");
        Event sync = march.getFirst();
        assertThat(sync.getHangoutLink()).isEqualTo("https://meet.google.com/aaa-bbbb-ccc");
        assertThat(sync.getAttendees()).extracting(a -> a.getEmail() + ":" + a.getResponseStatus() + ":" + Boolean.TRUE.equals(a.getOptional()))
                .containsExactly("bob@example.com:accepted:false", "carol@example.com:needsAction:true");
        assertThat(sync.getOrganizer().getEmail()).isEqualTo("anna@example.com");
        // Google keeps an imported event's UID as its iCalUID, for the series, its instances and its exceptions
        assertThat(march).extracting(Event::getICalUID).containsExactly("weekly-sync@example.com", "weekly-sync@example.com",
                "utc@example.com", "weekly-sync@example.com", "weekly-sync@example.com");
        assertThat(calendar.events().get("primary", sync.getRecurringEventId()).execute().getRecurrence())
                .containsExactly("RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=MO", "EXDATE;TZID=Europe/Berlin:20260316T100000"); // as ical4j writes the rule
        assertThat(sync.getStart().getTimeZone()).isEqualTo("Europe/Berlin");
        // COUNT=6 counts the excluded 16 March: the series ends on 6 April
        assertThat(calendar.events().instances("primary", sync.getRecurringEventId()).execute().getItems())
                .extracting(e -> e.getStart().getDateTime().toStringRfc3339().substring(0, 10))
                .containsExactly("2026-03-02", "2026-03-09", "2026-03-23", "2026-03-30", "2026-04-06");
        Event easter = calendar.events().list("primary").setQ("ostern").execute().getItems().getFirst();
        assertThat(easter.getStart().getDate().toStringRfc3339()).isEqualTo("2026-04-06");
        assertThat(easter.getEnd().getDate().toStringRfc3339()).isEqualTo("2026-04-08");
        assertThat(easter.getTransparency()).isEqualTo("transparent");
        assertThat(calendar.events().list("team@group.calendar.google.com").execute().getItems())
                .extracting(Event::getSummary).containsExactly("リリース日");
    }

    @Test
    void skipsAnEventItCannotReadAndSaysWhich(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("me@example.com.ics");
        Files.writeString(file, PRIMARY, StandardCharsets.UTF_8);
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        CalendarSet set = CalendarImport.load(file, "me@example.com", new PrintStream(warnings, true, StandardCharsets.UTF_8));
        assertThat(set.stored(set.calendar("primary").orElseThrow())).hasSize(4);
        assertThat(warnings.toString(StandardCharsets.UTF_8)).contains("me@example.com.ics", "broken@example.com", "DTSTART");
    }

    @Test
    void aFolderWithoutCalendarsOrANonCalendarFileIsAClearError(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> CalendarImport.load(dir, "me@example.com", System.err)).hasMessageContaining("no .ics file in");
        Path notIcs = dir.resolve("x.ics");
        Files.writeString(notIcs, "hello\n");
        assertThatThrownBy(() -> CalendarImport.load(notIcs, "me@example.com", System.err))
                .hasMessageContaining("cannot read").hasMessageContaining("x.ics");
    }
}
