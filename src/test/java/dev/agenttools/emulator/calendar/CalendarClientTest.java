package dev.agenttools.emulator.calendar;

import com.google.api.client.googleapis.batch.BatchRequest;
import com.google.api.client.googleapis.batch.json.JsonBatchCallback;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.Calendar;
import com.google.api.services.calendar.model.CalendarListEntry;
import com.google.api.services.calendar.model.Colors;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.Events;
import com.google.api.services.calendar.model.FreeBusyRequest;
import com.google.api.services.calendar.model.FreeBusyRequestItem;
import com.google.api.services.calendar.model.FreeBusyResponse;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.emulator.JavaCalendarClient;
import dev.agenttools.emulator.JavaGmailClient;
import dev.agenttools.emulator.RawHttp;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The official Calendar v3 Java client against the emulator, changed only in its root URL and token: the seeded
 * calendars, recurring series with their exceptions, DST changes, all-day events, paging, sync tokens, free/busy,
 * batch and errors, each checked against expectations worked out by hand from the seed.
 */
class CalendarClientTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    private static Calendar calendar;

    @BeforeAll
    static void start() {
        emulator = emulators.start(JavaGmailClient.fastConfig().build());
        calendar = JavaCalendarClient.connect(emulator, "test-token");
    }

    @Test
    void listsTheUsersCalendarsPrimaryFirstWithoutHiddenOnesUnlessAsked() throws IOException {
        List<CalendarListEntry> shown = calendar.calendarList().list().execute().getItems();
        assertThat(shown).hasSize(9);
        assertThat(shown.getFirst().getPrimary()).isTrue();
        assertThat(shown.getFirst().getId()).isEqualTo("me@example.com");
        assertThat(shown.getFirst().getTimeZone()).isEqualTo("Europe/Berlin");
        assertThat(shown).extracting(CalendarListEntry::getId).contains(CalendarSeed.HOLIDAYS, CalendarSeed.LA_OFFICE,
                CalendarSeed.TOKYO_OFFICE).doesNotContain(CalendarSeed.ARCHIVE);
        assertThat(shown).filteredOn(c -> c.getId().equals(CalendarSeed.HOLIDAYS)).singleElement()
                .satisfies(c -> {
                    assertThat(c.getSummary()).isEqualTo("日本の祝日");
                    assertThat(c.getAccessRole()).isEqualTo("reader");
                    assertThat(c.getBackgroundColor()).matches("#[0-9a-f]{6}");
                });
        assertThat(calendar.calendarList().list().setShowHidden(true).execute().getItems()).hasSize(10);
        assertThat(calendar.calendarList().list().setMinAccessRole("writer").execute().getItems())
                .extracting(CalendarListEntry::getAccessRole).containsOnly("owner", "writer").hasSize(5);
        assertThat(calendar.calendarList().get(CalendarSeed.TOKYO_OFFICE).execute().getSummary()).isEqualTo("東京オフィス");
    }

    @Test
    void expandsAWeeklySeriesWithItsMovedCancelledAndSkippedEvenings() throws IOException {
        // Gym: Tuesdays and Thursdays 19:00 Berlin; 10 March moved to 20:00, 12 March cancelled, 17 March an EXDATE
        Events march = calendar.events().list("primary").setSingleEvents(true).setOrderBy("startTime")
                .setTimeMin(new DateTime("2026-03-09T00:00:00+01:00")).setTimeMax(new DateTime("2026-03-27T00:00:00+01:00"))
                .setQ("gym").execute();
        assertThat(march.getItems()).extracting(e -> e.getStart().getDateTime().toStringRfc3339(), Event::getSummary).containsExactly(
                Tuple.tuple("2026-03-10T20:00:00.000+01:00", "Gym (late)"),
                Tuple.tuple("2026-03-19T19:00:00.000+01:00", "Gym"),
                Tuple.tuple("2026-03-24T19:00:00.000+01:00", "Gym"),
                Tuple.tuple("2026-03-26T19:00:00.000+01:00", "Gym"));
        Event moved = march.getItems().getFirst();
        assertThat(moved.getRecurringEventId()).isNotNull();
        assertThat(moved.getOriginalStartTime().getDateTime().toStringRfc3339()).isEqualTo("2026-03-10T19:00:00.000+01:00");
        assertThat(moved.getId()).isEqualTo(moved.getRecurringEventId() + "_20260310T180000Z");

        Events withDeleted = calendar.events().list("primary").setSingleEvents(true).setOrderBy("startTime").setShowDeleted(true)
                .setTimeMin(new DateTime("2026-03-09T00:00:00+01:00")).setTimeMax(new DateTime("2026-03-20T00:00:00+01:00"))
                .setQ("gym").execute();
        assertThat(withDeleted.getItems()).extracting(Event::getStatus).containsExactly("confirmed", "cancelled", "confirmed");
        assertThat(withDeleted.getItems()).noneMatch(e -> e.getId().endsWith("_20260317T180000Z"));

        Event series = calendar.events().get("primary", moved.getRecurringEventId()).execute();
        assertThat(series.getRecurrence()).containsExactly("RRULE:FREQ=WEEKLY;BYDAY=TU,TH",
                "EXDATE;TZID=Europe/Berlin:20260317T190000");
        assertThat(series.getStart().getTimeZone()).isEqualTo("Europe/Berlin");
        assertThat(calendar.events().get("primary", moved.getRecurringEventId() + "_20260319T180000Z").execute().getStart()
                .getDateTime().toStringRfc3339()).isEqualTo("2026-03-19T19:00:00.000+01:00");

        Events instances = calendar.events().instances("primary", series.getId())
                .setTimeMin(new DateTime("2026-03-01T00:00:00Z")).setTimeMax(new DateTime("2026-03-08T00:00:00Z")).execute();
        assertThat(instances.getItems()).extracting(e -> e.getStart().getDateTime().toStringRfc3339())
                .containsExactly("2026-03-03T19:00:00.000+01:00", "2026-03-05T19:00:00.000+01:00");
    }

    @Test
    void keepsEachSeriesAtItsWallTimeAcrossDstChanges() throws IOException {
        // Berlin goes to summer time on 29 March 2026: the 09:30 stand-up moves from 08:30Z to 07:30Z
        assertThat(starts(CalendarSeed.WORK, "2026-03-27T00:00:00Z", "2026-03-31T00:00:00Z", "stand-up"))
                .containsExactly("2026-03-27T09:30:00+01:00", "2026-03-30T09:30:00+02:00");
        // the last Friday of each month, 16:00 Berlin, on both sides of both changes
        assertThat(starts(CalendarSeed.WORK, "2026-03-01T00:00:00Z", "2026-05-01T00:00:00Z", "sprint review"))
                .containsExactly("2026-03-27T16:00:00+01:00", "2026-04-24T16:00:00+02:00");
        assertThat(starts(CalendarSeed.WORK, "2026-10-01T00:00:00Z", "2026-12-01T00:00:00Z", "sprint review"))
                .containsExactly("2026-10-30T16:00:00+01:00", "2026-11-27T16:00:00+01:00");
        // 09:00 Los Angeles across the US change on 1 November: 16:00Z, then 17:00Z
        assertThat(starts(CalendarSeed.LA_OFFICE, "2026-10-26T00:00:00Z", "2026-11-06T00:00:00Z", "west coast"))
                .containsExactly("2026-10-28T09:00:00-07:00", "2026-11-04T09:00:00-08:00");
        // the same events asked for in Tokyo time
        Events tokyo = calendar.events().list(CalendarSeed.LA_OFFICE).setSingleEvents(true).setOrderBy("startTime")
                .setTimeZone("Asia/Tokyo").setQ("west coast")
                .setTimeMin(new DateTime("2026-11-02T00:00:00Z")).setTimeMax(new DateTime("2026-11-06T00:00:00Z")).execute();
        assertThat(tokyo.getItems().getFirst().getStart().getDateTime().toStringRfc3339()).isEqualTo("2026-11-05T02:00:00.000+09:00");
        assertThat(tokyo.getItems().getFirst().getStart().getTimeZone()).isEqualTo("America/Los_Angeles");
        // a night that crosses the spring change lasts 8 hours of real time, 9 of wall time
        Event train = calendar.events().list("primary").setQ("night train").execute().getItems().getFirst();
        assertThat(train.getStart().getDateTime().toStringRfc3339()).isEqualTo("2026-03-28T23:00:00.000+01:00");
        assertThat(train.getEnd().getDateTime().toStringRfc3339()).isEqualTo("2026-03-29T08:00:00.000+02:00");
    }

    @Test
    void allDayEventsAreDatesWithExclusiveEnds() throws IOException {
        Events golden = calendar.events().list(CalendarSeed.HOLIDAYS).setSingleEvents(true).setOrderBy("startTime")
                .setTimeMin(new DateTime("2026-05-01T00:00:00+09:00")).setTimeMax(new DateTime("2026-05-08T00:00:00+09:00")).execute();
        assertThat(golden.getItems()).extracting(e -> e.getStart().getDate().toStringRfc3339(), e -> e.getEnd().getDate().toStringRfc3339(),
                Event::getSummary).containsExactly(
                Tuple.tuple("2026-05-03", "2026-05-04", "憲法記念日"),
                Tuple.tuple("2026-05-04", "2026-05-05", "みどりの日"),
                Tuple.tuple("2026-05-05", "2026-05-06", "こどもの日"),
                Tuple.tuple("2026-05-06", "2026-05-07", "休日 憲法記念日"));
        assertThat(golden.getItems()).allSatisfy(e -> assertThat(e.getTransparency()).isEqualTo("transparent"));
        assertThat(golden.getTimeZone()).isEqualTo("Asia/Tokyo");
        // a monthly week of on-call: a 7-day all-day series from the first Monday
        Events onCall = calendar.events().list(CalendarSeed.TEAM).setSingleEvents(true).setOrderBy("startTime").setQ("on-call")
                .setTimeMin(new DateTime("2026-06-01T00:00:00+02:00")).setTimeMax(new DateTime("2026-08-01T00:00:00+02:00")).execute();
        assertThat(onCall.getItems()).extracting(e -> e.getStart().getDate().toStringRfc3339() + "/" + e.getEnd().getDate().toStringRfc3339())
                .containsExactly("2026-06-01/2026-06-08", "2026-07-06/2026-07-13");
    }

    @Test
    void pagesAndThenHandsASyncTokenThatFindsNoChanges() throws IOException {
        List<String> paged = new ArrayList<>();
        String token = null;
        int pages = 0;
        Events page;
        do {
            // no orderBy: a list from timeMin in start order is not one to sync, and ends without a token (as Google's)
            page = calendar.events().list(CalendarSeed.WORK).setSingleEvents(true).setMaxResults(4)
                    .setTimeMin(new DateTime("2026-02-01T00:00:00Z")).setTimeMax(new DateTime("2026-03-01T00:00:00Z"))
                    .setPageToken(token).execute();
            page.getItems().forEach(e -> paged.add(e.getId()));
            token = page.getNextPageToken();
            pages++;
            assertThat(token == null).as("the sync token comes on the last page only").isEqualTo(page.getNextSyncToken() != null);
        } while (token != null);
        // 20 weekdays of stand-up and the review on 27 February
        assertThat(paged).hasSize(21).doesNotHaveDuplicates();
        assertThat(pages).isEqualTo(6);
        Events whole = calendar.events().list(CalendarSeed.WORK).setSingleEvents(true).setOrderBy("startTime")
                .setTimeMin(new DateTime("2026-02-01T00:00:00Z")).setTimeMax(new DateTime("2026-03-01T00:00:00Z")).execute();
        assertThat(whole.getItems()).extracting(Event::getId).isEqualTo(paged);
        assertThat(whole.getNextSyncToken()).as("recorded: no sync token after a timeMin list in start order").isNull();

        String syncToken = page.getNextSyncToken();
        Events changes = calendar.events().list(CalendarSeed.WORK).setSyncToken(syncToken).execute();
        assertThat(changes.getItems()).isEmpty();
        assertThat(changes.getNextSyncToken()).isNotBlank();
        assertThatThrownBy(() -> calendar.events().list(CalendarSeed.WORK).setSyncToken("not-a-token").execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(410);
                    assertThat(e.getDetails().getErrors().getFirst().getReason()).isEqualTo("fullSyncRequired");
                });
        assertThatThrownBy(() -> calendar.events().list(CalendarSeed.WORK).setSyncToken(syncToken)
                .setTimeMin(new DateTime("2026-02-01T00:00:00Z")).execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> assertThat(e.getStatusCode()).isEqualTo(400));
    }

    @Test
    void getsAnEventInFullWithAttendeesMeetLinkAndAttachments() throws IOException {
        Event standup = calendar.events().list(CalendarSeed.WORK).setSingleEvents(true).setQ("stand-up")
                .setTimeMin(new DateTime("2026-02-02T00:00:00Z")).setTimeMax(new DateTime("2026-02-03T00:00:00Z")).execute()
                .getItems().getFirst();
        Event full = calendar.events().get(CalendarSeed.WORK, standup.getId()).execute();
        assertThat(full.getHangoutLink()).isEqualTo("https://meet.google.com/abc-defg-hij");
        assertThat(full.getConferenceData().getEntryPoints().getFirst().getUri()).isEqualTo(full.getHangoutLink());
        assertThat(full.getAttendees()).extracting(a -> a.getEmail() + ":" + a.getResponseStatus()).containsExactly(
                "me@example.com:accepted", "alice@example.com:accepted", "bob@example.com:tentative", "carol@example.com:declined");
        assertThat(full.getOrganizer().getDisplayName()).isEqualTo("Alice Wong");
        Event review = calendar.events().list(CalendarSeed.WORK).setQ("sprint review").execute().getItems().getFirst();
        assertThat(review.getDescription()).contains("<b>search</b>");
        assertThat(review.getAttachments()).singleElement().satisfies(a -> assertThat(a.getTitle()).isEqualTo("Sprint deck"));
        assertThat(review.getRecurrence()).containsExactly("RRULE:FREQ=MONTHLY;BYDAY=-1FR");
    }

    @Test
    void freeBusyMergesBusyTimeSkipsFreeEventsAndReportsUnknownCalendars() throws IOException {
        FreeBusyRequest request = new FreeBusyRequest()
                .setTimeMin(new DateTime("2026-03-27T00:00:00Z")).setTimeMax(new DateTime("2026-03-28T00:00:00Z"))
                .setItems(List.of(new FreeBusyRequestItem().setId(CalendarSeed.WORK), new FreeBusyRequestItem().setId(CalendarSeed.HOLIDAYS),
                        new FreeBusyRequestItem().setId("nobody@example.com")));
        FreeBusyResponse answer = calendar.freebusy().query(request).execute();
        assertThat(answer.getCalendars().get(CalendarSeed.WORK).getBusy())
                .extracting(p -> p.getStart().toStringRfc3339() + "/" + p.getEnd().toStringRfc3339())
                .containsExactly("2026-03-27T08:30:00.000Z/2026-03-27T08:45:00.000Z", "2026-03-27T15:00:00.000Z/2026-03-27T16:00:00.000Z");
        assertThat(answer.getCalendars().get(CalendarSeed.HOLIDAYS).getBusy()).isEmpty();
        assertThat(answer.getCalendars().get("nobody@example.com").getErrors()).singleElement()
                .satisfies(e -> assertThat(e.getReason()).isEqualTo("notFound"));
    }

    @Test
    void aBatchListsEventsOfSeveralCalendarsInOneRoundTrip() throws IOException {
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        Map<String, Integer> failures = new ConcurrentHashMap<>();
        BatchRequest batch = calendar.batch();
        for (String id : List.of("primary", CalendarSeed.WORK, CalendarSeed.TOKYO_OFFICE, CalendarSeed.VANISHED)) {
            calendar.events().list(id).setSingleEvents(true).setTimeMin(new DateTime("2026-03-02T00:00:00Z"))
                    .setTimeMax(new DateTime("2026-03-07T00:00:00Z")).queue(batch, new JsonBatchCallback<Events>() {
                        @Override
                        public void onSuccess(Events events, HttpHeaders headers) {
                            counts.put(id, events.getItems().size());
                        }

                        @Override
                        public void onFailure(GoogleJsonError e, HttpHeaders headers) {
                            failures.put(id, e.getCode());
                        }
                    });
        }
        long requestsBefore = emulator.counters().httpRequests();
        batch.execute();
        assertThat(emulator.counters().httpRequests() - requestsBefore).isEqualTo(1);
        // Gym Tue+Thu; 5 stand-ups; 週次定例 on Thursday
        assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("primary", 2, CalendarSeed.WORK, 5, CalendarSeed.TOKYO_OFFICE, 1));
        assertThat(failures).containsExactly(Map.entry(CalendarSeed.VANISHED, 404));
    }

    @Test
    void answersBadRequestsAsTheClientsOwnExceptions() {
        assertThat(status(() -> calendar.events().list("primary").setOrderBy("startTime").execute())).isEqualTo(400);
        assertThat(status(() -> calendar.events().list("nobody@example.com").execute())).isEqualTo(404);
        assertThat(status(() -> calendar.events().list(CalendarSeed.VANISHED).execute())).isEqualTo(404);
        assertThat(status(() -> calendar.events().get("primary", "nosuchevent").execute())).isEqualTo(404);
        assertThat(status(() -> calendar.events().list("primary").setTimeZone("Mars/Olympus").execute())).isEqualTo(400);
        assertThatThrownBy(() -> calendar.events().list("primary").setTimeMin(new DateTime("2026-03-02T00:00:00Z"))
                .setTimeMax(new DateTime("2026-03-01T00:00:00Z")).execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class,
                        e -> assertThat(e.getDetails().getErrors().getFirst().getReason()).isEqualTo("timeRangeEmpty"));
    }

    @Test
    void aTimeWithoutAnOffsetIsRefusedNamingTheParameter() throws Exception {
        // the client only sends DateTime values; a hand-made request shows what a wrong one gets
        var answer = new RawHttp(emulator, HttpClient.Version.HTTP_1_1)
                .get("calendar/v3/calendars/primary/events?timeMin=2026-03-01T10:00:00");
        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.body()).contains("timeMin", "2026-03-01T10:00:00", "offset");
    }

    @Test
    void servesTheColourPalettes() throws IOException {
        Colors colors = calendar.colors().get().execute();
        assertThat(colors.getCalendar()).hasSize(24);
        assertThat(colors.getEvent()).hasSize(11);
    }

    @Test
    void calendarCallsSpendTheirOwnQuotaOfRequestsPerMinute() throws IOException {
        Emulator tight = emulators.start(JavaGmailClient.fastConfig().calendarQuotaPerMinute(3).build());
        Calendar client = JavaCalendarClient.connect(tight, "any");
        for (int i = 0; i < 3; i++) {
            client.colors().get().execute();
        }
        assertThat(status(() -> client.colors().get().execute())).isEqualTo(429);
        // Gmail's units are untouched
        assertThat(JavaGmailClient.connect(tight, "any").users().getProfile("me").execute().getEmailAddress()).isEqualTo("me@example.com");
    }

    private static List<String> starts(String calendarId, String from, String to, String query) throws IOException {
        return calendar.events().list(calendarId).setSingleEvents(true).setOrderBy("startTime").setQ(query)
                .setTimeMin(new DateTime(from)).setTimeMax(new DateTime(to)).execute().getItems().stream()
                .map(e -> e.getStart().getDateTime().toStringRfc3339().replace(".000", "")).toList();
    }

    private interface Call {
        Object run() throws IOException;
    }

    private static int status(Call call) {
        try {
            call.run();
            return 200;
        } catch (GoogleJsonResponseException e) {
            return e.getStatusCode();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
