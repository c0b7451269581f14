package dev.agenttools.emulator.calendar;

import dev.agenttools.emulator.calendar.CalendarEvent.Attachment;
import dev.agenttools.emulator.calendar.CalendarEvent.Attendee;
import dev.agenttools.emulator.calendar.CalendarEvent.EventTime;
import dev.agenttools.emulator.calendar.CalendarEvent.Person;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The seeded calendars: what a busy user with a team, an office in two other time zones and a few subscriptions
 * sees. Series started in the past run on without end, so "today" always has events whenever the emulator runs;
 * fixed-date events sit on the DST changes of 2026 (Europe 29 March / 25 October, US 8 March / 1 November) and the
 * Japanese holidays of 2026 and 2027, so tests can check them by hand. Deterministic for a given clock day.
 */
final class CalendarSeed {
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    static final ZoneId TOKYO = ZoneId.of("Asia/Tokyo");
    static final ZoneId LOS_ANGELES = ZoneId.of("America/Los_Angeles");
    static final String WORK = "c_work.example@group.calendar.google.com";
    static final String TEAM = "c_team.platform@group.calendar.google.com";
    static final String HOLIDAYS = "ja.japanese#holiday@group.v.calendar.google.com";
    static final String SPORTS = "fc.example#sports@group.v.calendar.google.com";
    static final String LA_OFFICE = "c_la.office@group.calendar.google.com";
    static final String TOKYO_OFFICE = "c_tokyo.office@group.calendar.google.com";
    static final String FAMILY = "c_family.example@group.calendar.google.com";
    static final String ARCHIVE = "c_archive.2024@group.calendar.google.com";
    static final String VANISHED = "c_former.team@group.calendar.google.com";
    /** When every seeded event was created (the series start before any test date). */
    static final Instant CREATED = Instant.parse("2025-12-01T09:00:00Z");

    private final String owner;
    private final LocalDate today;
    private final Map<String, List<CalendarEvent>> events = new LinkedHashMap<>();

    private CalendarSeed(String owner, LocalDate today) {
        this.owner = owner;
        this.today = today;
    }

    /** The seeded calendars of {@code owner}, with a few one-off events on the clock's today and tomorrow. */
    static CalendarSet build(String owner, Clock clock) {
        return build(owner, 1, clock);
    }

    /**
     * The seeded calendars of user {@code number}: user 1's as {@link #build(String, Clock)}; each further user's also
     * has a weekly event of its own on its primary calendar, so that two users' calendars differ.
     */
    static CalendarSet build(String owner, int number, Clock clock) {
        CalendarSeed seed = new CalendarSeed(owner, LocalDate.ofInstant(clock.instant(), BERLIN));
        List<CalendarInfo> calendars = List.of(
                new CalendarInfo(owner, owner, null, BERLIN, "owner", true, "14", true, false, false),
                new CalendarInfo(WORK, "Work", "Meetings and deadlines", BERLIN, "owner", false, "9", true, false, false),
                new CalendarInfo(TEAM, "Team Platform", "Shared by the platform team: on-call, releases, offsites", BERLIN,
                        "writer", false, "7", true, false, false),
                new CalendarInfo(HOLIDAYS, "日本の祝日", "日本の祝日と行事", TOKYO, "reader", false, "8", true, false, false),
                new CalendarInfo(SPORTS, "FC Example fixtures", "Subscribed from the club's iCal feed", BERLIN, "reader",
                        false, "11", true, false, false),
                new CalendarInfo(LA_OFFICE, "LA office", "Pacific time meetings", LOS_ANGELES, "reader", false, "3", true,
                        false, false),
                new CalendarInfo(TOKYO_OFFICE, "東京オフィス", "東京チームの予定", TOKYO, "writer", false, "5", true, false, false),
                new CalendarInfo(FAMILY, "Family", null, BERLIN, "writer", false, "2", true, false, false),
                new CalendarInfo(ARCHIVE, "Archive 2024", "Hidden from the list", BERLIN, "owner", false, "1", false, true, false),
                new CalendarInfo(VANISHED, "Former team", "Deleted by its owner since it was added", BERLIN, "reader", false,
                        "4", true, false, true));
        seed.primary();
        seed.work();
        seed.team();
        seed.holidays();
        seed.sports();
        seed.laOffice();
        seed.tokyoOffice();
        seed.family();
        seed.add(ARCHIVE, seed.single("Old planning", at(LocalDate.of(2024, 5, 6), 10, BERLIN), 60));
        if (number > 1) {
            String[] days = {"MO", "TU", "WE", "TH", "FR"};
            seed.add(owner, seed.series("Weekly review of user " + number,
                    at(LocalDate.of(2026, 1, 5).plusDays(number % 5), 8 + number % 9, BERLIN), 30,
                    "FREQ=WEEKLY;BYDAY=" + days[number % 5]));
        }
        return new CalendarSet(owner, calendars, seed.events, CREATED);
    }

    private void primary() {
        CalendarEvent gym = series("Gym", at(LocalDate.of(2026, 1, 6), 19, BERLIN), 90, "FREQ=WEEKLY;BYDAY=TU,TH")
                .withLocation("FitX Alexanderplatz");
        // one evening moved to 20:00, one cancelled, one skipped (EXDATE)
        EventTime moved = EventTime.of(at(LocalDate.of(2026, 3, 10), 19, BERLIN));
        EventTime cancelled = EventTime.of(at(LocalDate.of(2026, 3, 12), 19, BERLIN));
        EventTime skipped = EventTime.of(at(LocalDate.of(2026, 3, 17), 19, BERLIN));
        gym = gym.withExdates(List.of(skipped));
        add(owner, gym,
                gym.occurrence(moved).withTimes(EventTime.of(at(LocalDate.of(2026, 3, 10), 20, BERLIN)),
                        EventTime.of(at(LocalDate.of(2026, 3, 10), 21, BERLIN).plusMinutes(30))).withSummary("Gym (late)"),
                gym.occurrence(cancelled).withStatus("cancelled"));
        add(owner, allDaySeries("Mum's birthday", LocalDate.of(2026, 4, 14), 1, "FREQ=YEARLY"));
        add(owner, allDay("Trip to Lisbon", LocalDate.of(2026, 10, 23), 4).withLocation("Lisbon, Portugal")
                .withDescription("Flight LH1166 on Friday 07:05; hotel booked until Tuesday."));
        // 29 March 2026, 02:00 in Berlin does not exist: the clocks go from 02:00 to 03:00
        add(owner, single("Night train to Vienna", at(LocalDate.of(2026, 3, 28), 23, BERLIN), 8 * 60)
                .withLocation("Berlin Hbf"));
        add(owner, single("Dentist", at(today.plusDays(1), 8, BERLIN), 45).withLocation("Praxis Dr. Weber, Torstraße 12"));
        add(owner, single("Call the landlord", at(today, 17, BERLIN), 15));
    }

    private void work() {
        Person alice = new Person("alice@example.com", "Alice Wong", false);
        CalendarEvent standup = series("Daily stand-up", at(LocalDate.of(2026, 1, 5), 9, BERLIN).plusMinutes(30), 15,
                "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
                .withHangout("https://meet.google.com/abc-defg-hij")
                .withAttendees(List.of(
                        new Attendee(owner, null, "accepted", false, true, false),
                        new Attendee("alice@example.com", "Alice Wong", "accepted", true, false, false),
                        new Attendee("bob@example.com", "Bob Müller", "tentative", false, false, false),
                        new Attendee("carol@example.com", "Carol 佐藤", "declined", false, false, true)))
                .withOrganizer(alice)
                .withExdates(List.of(EventTime.of(at(LocalDate.of(2026, 12, 24), 9, BERLIN).plusMinutes(30))));
        add(WORK, standup);
        // the last Friday of each month; crosses both European DST changes at 16:00 local time
        add(WORK, series("Sprint review", at(LocalDate.of(2026, 1, 30), 16, BERLIN), 60, "FREQ=MONTHLY;BYDAY=-1FR")
                .withDescription("<p>Agenda:</p><ul><li>Demo of <b>search</b></li><li>Retro &amp; next sprint</li></ul>"
                        + "<p>Notes: <a href=\"https://docs.example.com/sprint\">sprint doc</a></p>")
                .withAttachments(List.of(new Attachment("https://drive.google.com/file/d/1sprint/view", "Sprint deck",
                        "application/vnd.google-apps.presentation", "1sprint"))));
        add(WORK, single("1:1 with Alice", at(today, 14, BERLIN), 30).withOrganizer(alice)
                .withHangout("https://meet.google.com/xyz-abcd-efg")
                .withAttendees(List.of(new Attendee(owner, null, "accepted", false, true, false),
                        new Attendee("alice@example.com", "Alice Wong", "accepted", true, false, false))));
        add(WORK, single("Quarterly planning", at(today.plusDays(1), 10, BERLIN), 180).withLocation("Room Spree, 4th floor")
                .withStatus("tentative"));
        add(WORK, single("Focus time", at(today.plusDays(1), 14, BERLIN), 120).withTransparency("transparent"));
    }

    private void team() {
        // a week of on-call each month: an all-day, multi-day series from the first Monday
        add(TEAM, allDaySeries("On-call: platform", LocalDate.of(2026, 1, 5), 7, "FREQ=MONTHLY;BYDAY=1MO"));
        add(TEAM, allDay("Team offsite", LocalDate.of(2026, 6, 17), 3).withLocation("Potsdam"));
        add(TEAM, single("Release 4.2", at(today, 11, BERLIN), 60));
    }

    private void holidays() {
        String[][] days = {
                {"2026-01-01", "元日"}, {"2026-01-12", "成人の日"}, {"2026-02-11", "建国記念の日"}, {"2026-02-23", "天皇誕生日"},
                {"2026-03-20", "春分の日"}, {"2026-04-29", "昭和の日"}, {"2026-05-03", "憲法記念日"}, {"2026-05-04", "みどりの日"},
                {"2026-05-05", "こどもの日"}, {"2026-05-06", "休日 憲法記念日"}, {"2026-07-20", "海の日"}, {"2026-08-11", "山の日"},
                {"2026-09-21", "敬老の日"}, {"2026-09-22", "休日"}, {"2026-09-23", "秋分の日"}, {"2026-10-12", "スポーツの日"},
                {"2026-11-03", "文化の日"}, {"2026-11-23", "勤労感謝の日"}, {"2027-01-01", "元日"}, {"2027-01-11", "成人の日"},
                {"2027-02-11", "建国記念の日"}, {"2027-02-23", "天皇誕生日"}, {"2027-03-21", "春分の日"}};
        for (String[] d : days) {
            add(HOLIDAYS, allDay(d[1], LocalDate.parse(d[0]), 1).withTransparency("transparent").withDescription("祝日"));
        }
    }

    private void sports() {
        LocalDate first = LocalDate.of(2026, 8, 15);
        for (int i = 0; i < 20; i++) {
            LocalDate day = first.plusWeeks(i);
            add(SPORTS, single((i % 2 == 0 ? "FC Example vs. " : "Away: FC Example at ") + OPPONENTS[i % OPPONENTS.length],
                    at(day, 15, BERLIN).plusMinutes(30), 105).withTransparency("transparent"));
        }
    }

    private static final String[] OPPONENTS = {"SV Nord", "TSV Süd", "FC Hafen", "Union Ost", "SC West"};

    private void laOffice() {
        // 09:00 in Los Angeles: 18:00 in Berlin most weeks, 17:00 in the weeks between the US and the EU DST changes
        add(LA_OFFICE, series("West coast sync", at(LocalDate.of(2026, 1, 7), 9, LOS_ANGELES), 45, "FREQ=WEEKLY;BYDAY=WE")
                .withHangout("https://meet.google.com/lax-sync-now"));
        // the night the US clocks go back: 01:30 happens twice; the event is 2 hours of wall time
        add(LA_OFFICE, single("Maintenance window", ZonedDateTime.of(LocalDate.of(2026, 11, 1), LocalTime.of(0, 30), LOS_ANGELES), 180));
    }

    private void tokyoOffice() {
        add(TOKYO_OFFICE, series("週次定例", at(LocalDate.of(2026, 1, 8), 10, TOKYO), 60, "FREQ=WEEKLY;BYDAY=TH")
                .withLocation("東京本社 会議室A").withDescription("議題：進捗確認、課題の共有"));
        add(TOKYO_OFFICE, single("歓迎会", at(LocalDate.of(2026, 4, 10), 19, TOKYO), 120).withLocation("新宿"));
        add(TOKYO_OFFICE, single("東京チームとの打ち合わせ", at(today.plusDays(1), 16, TOKYO), 60)
                .withHangout("https://meet.google.com/tok-yoda-ily"));
    }

    private void family() {
        add(FAMILY, series("School run", at(LocalDate.of(2026, 1, 5), 7, BERLIN).plusMinutes(45), 30,
                "FREQ=WEEKLY;BYDAY=MO,WE,FR;UNTIL=20260717T220000Z"));
        add(FAMILY, allDay("Summer holidays", LocalDate.of(2026, 7, 9), 44));
    }

    // ---- building blocks ----

    private void add(String calendar, CalendarEvent... more) {
        events.computeIfAbsent(calendar, k -> new ArrayList<>()).addAll(List.of(more));
    }

    private static ZonedDateTime at(LocalDate day, int hour, ZoneId zone) {
        return ZonedDateTime.of(day, LocalTime.of(hour, 0), zone);
    }

    private CalendarEvent single(String summary, ZonedDateTime start, int minutes) {
        return event(summary, EventTime.of(start), EventTime.of(start.plusMinutes(minutes)), null);
    }

    private CalendarEvent series(String summary, ZonedDateTime start, int minutes, String rrule) {
        return event(summary, EventTime.of(start), EventTime.of(start.plusMinutes(minutes)), rrule);
    }

    private CalendarEvent allDay(String summary, LocalDate first, int days) {
        return event(summary, EventTime.of(first), EventTime.of(first.plusDays(days)), null);
    }

    private CalendarEvent allDaySeries(String summary, LocalDate first, int days, String rrule) {
        return event(summary, EventTime.of(first), EventTime.of(first.plusDays(days)), rrule);
    }

    private CalendarEvent event(String summary, EventTime start, EventTime end, String rrule) {
        String key = summary + "|" + (start.allDay() ? start.date() : start.dateTime().toLocalDateTime()) + "|" + rrule;
        return new CalendarEvent(id(key), summary, null, null, start, end, "confirmed", rrule, List.of(), null, null,
                List.of(), new Person(owner, null, true), null, List.of(), CREATED, CREATED, "opaque");
    }

    /** A stable event id in Google's alphabet (base32hex, lower case), from what the event is. */
    static String id(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            String alphabet = "0123456789abcdefghijklmnopqrstuv";
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 26; i++) {
                b.append(alphabet.charAt((digest[i] & 0xff) % 32));
            }
            return b.toString().toLowerCase(Locale.ROOT);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
