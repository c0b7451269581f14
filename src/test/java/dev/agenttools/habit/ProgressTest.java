package dev.agenttools.habit;

import org.junit.jupiter.api.Test;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressTest {
    private static final LocalDate MONDAY = LocalDate.of(2026, 11, 2);

    private static List<HabitLog> done(LocalDate... days) {
        List<HabitLog> logs = new ArrayList<>();
        for (LocalDate d : days) {
            logs.add(new HabitLog("hab_1", d, true, null, null));
        }
        return logs;
    }

    private static List<HabitLog> doneEachDay(LocalDate from, LocalDate to) {
        List<HabitLog> logs = new ArrayList<>();
        for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
            logs.add(new HabitLog("hab_1", d, true, null, null));
        }
        return logs;
    }

    @Test
    void aDailyHabitCountsDaysInARowAndTodayNotDoneYetBreaksNothing() {
        var s = Progress.of(Schedule.DAILY, MONDAY, doneEachDay(MONDAY, MONDAY.plusDays(4)), MONDAY.plusDays(5));
        assertThat(s.today()).isEqualTo(Progress.DayState.PENDING);
        assertThat(s.currentStreak()).isEqualTo(5);
        assertThat(s.longestStreak()).isEqualTo(5);
        assertThat(s.streakUnit()).isEqualTo("days");
        assertThat(s.last7()).isEqualTo(new Progress.Rate(5, 5, 1.0));
    }

    @Test
    void aMissedDayBreaksADailyStreakButTheLongestIsKept() {
        List<HabitLog> logs = doneEachDay(MONDAY, MONDAY.plusDays(3)); // Mon..Thu
        logs.addAll(done(MONDAY.plusDays(5), MONDAY.plusDays(6))); // Sat, Sun: Friday missed
        var s = Progress.of(Schedule.DAILY, MONDAY, logs, MONDAY.plusDays(6));
        assertThat(s.today()).isEqualTo(Progress.DayState.DONE);
        assertThat(s.currentStreak()).isEqualTo(2);
        assertThat(s.longestStreak()).isEqualTo(4);
        assertThat(s.last7()).isEqualTo(new Progress.Rate(6, 7, 0.857));
    }

    @Test
    void aDayLoggedAsNotDoneBreaksTheStreakEvenToday() {
        List<HabitLog> logs = doneEachDay(MONDAY, MONDAY.plusDays(2));
        logs.add(new HabitLog("hab_1", MONDAY.plusDays(3), false, null, "sick"));
        var s = Progress.of(Schedule.DAILY, MONDAY, logs, MONDAY.plusDays(3));
        assertThat(s.today()).isEqualTo(Progress.DayState.NOT_DONE);
        assertThat(s.currentStreak()).isZero();
        assertThat(s.longestStreak()).isEqualTo(3);
    }

    @Test
    void aMonWedFriHabitIsNotBrokenOnTuesdayOrTheWeekend() {
        Schedule mwf = Schedule.weekdays(EnumSet.of(DayOfWeek.MONDAY, DayOfWeek.WEDNESDAY, DayOfWeek.FRIDAY));
        List<HabitLog> logs = new ArrayList<>();
        for (int week = 0; week < 3; week++) {
            LocalDate m = MONDAY.plusWeeks(week);
            logs.addAll(done(m, m.plusDays(2), m.plusDays(4)));
        }
        // on the fourth week's Tuesday: Monday done, nothing since, Tuesday not due
        logs.addAll(done(MONDAY.plusWeeks(3)));
        var s = Progress.of(mwf, MONDAY, logs, MONDAY.plusWeeks(3).plusDays(1));
        assertThat(s.today()).isEqualTo(Progress.DayState.NOT_DUE);
        assertThat(s.currentStreak()).isEqualTo(10);
        assertThat(s.last7()).isEqualTo(new Progress.Rate(7, 7, 1.0));
        // a Wednesday missed breaks it; Thursday is not due, so on Thursday the streak is 0
        var after = Progress.of(mwf, MONDAY, logs, MONDAY.plusWeeks(3).plusDays(3));
        assertThat(after.currentStreak()).isZero();
        assertThat(after.longestStreak()).isEqualTo(10);
    }

    @Test
    void aTimesAWeekHabitCountsWholeWeeksAndTheWeekInProgressBreaksNothing() {
        Schedule three = Schedule.timesPerWeek(3);
        List<HabitLog> logs = new ArrayList<>();
        logs.addAll(done(MONDAY, MONDAY.plusDays(3), MONDAY.plusDays(6))); // week 1: 3 days
        logs.addAll(done(MONDAY.plusWeeks(1), MONDAY.plusWeeks(1).plusDays(1), MONDAY.plusWeeks(1).plusDays(2))); // week 2: 3
        logs.addAll(done(MONDAY.plusWeeks(2))); // week 3, in progress on its Wednesday: 1 so far
        var s = Progress.of(three, MONDAY, logs, MONDAY.plusWeeks(2).plusDays(2));
        assertThat(s.streakUnit()).isEqualTo("weeks");
        assertThat(s.currentStreak()).isEqualTo(2);
        assertThat(s.thisWeekDone()).isEqualTo(1);
        assertThat(s.today()).isEqualTo(Progress.DayState.PENDING);
        // the week ends with 2 of 3: broken once the next week starts
        logs.addAll(done(MONDAY.plusWeeks(2).plusDays(4)));
        var next = Progress.of(three, MONDAY, logs, MONDAY.plusWeeks(3));
        assertThat(next.currentStreak()).isZero();
        assertThat(next.longestStreak()).isEqualTo(2);
    }

    @Test
    void aTimesAWeekHabitStartedLateInAWeekAsksOnlyTheDaysLeft() {
        LocalDate saturday = MONDAY.plusDays(5);
        var s = Progress.of(Schedule.timesPerWeek(3), saturday, done(saturday, saturday.plusDays(1)), MONDAY.plusWeeks(1));
        assertThat(s.currentStreak()).isEqualTo(1);
    }

    @Test
    void completionCountsOnlyDueDaysSinceTheStart() {
        var s = Progress.of(Schedule.DAILY, MONDAY, done(MONDAY, MONDAY.plusDays(2)), MONDAY.plusDays(3));
        assertThat(s.last7()).isEqualTo(new Progress.Rate(2, 3, 0.667));
        assertThat(s.last30()).isEqualTo(new Progress.Rate(2, 3, 0.667));
        var fresh = Progress.of(Schedule.DAILY, MONDAY, List.of(), MONDAY);
        assertThat(fresh.last7()).isEqualTo(new Progress.Rate(0, 0, null));
    }

    @Test
    void aDstChangeKeepsADailyStreak() {
        // New York springs forward on 2026-03-08 (a 23-hour day) and falls back on 2026-11-01 (25 hours)
        ZoneId ny = ZoneId.of("America/New_York");
        for (LocalDate change : List.of(LocalDate.of(2026, 3, 8), LocalDate.of(2026, 11, 1))) {
            List<HabitLog> logs = new ArrayList<>();
            // logged each evening at 23:30 local time, its day taken from the instant as habit.log does
            for (LocalDate d = change.minusDays(5); !d.isAfter(change.plusDays(5)); d = d.plusDays(1)) {
                Instant at = ZonedDateTime.of(d.atTime(23, 30), ny).toInstant();
                logs.add(new HabitLog("hab_1", LocalDate.ofInstant(at, ny), true, null, null));
            }
            Instant justAfterMidnight = ZonedDateTime.of(change.plusDays(6).atTime(0, 30), ny).toInstant();
            var s = Progress.of(Schedule.DAILY, change.minusDays(5), logs, LocalDate.ofInstant(justAfterMidnight, ny));
            assertThat(s.currentStreak()).as("around %s", change).isEqualTo(11);
            assertThat(s.today()).isEqualTo(Progress.DayState.PENDING);
        }
    }

    @Test
    void aLogAtHalfPastElevenInTokyoIsThatTokyoDay() {
        ZoneId tokyo = ZoneId.of("Asia/Tokyo");
        Instant late = ZonedDateTime.of(LocalDate.of(2026, 12, 1).atTime(23, 30), tokyo).toInstant();
        assertThat(LocalDate.ofInstant(late, tokyo)).isEqualTo(LocalDate.of(2026, 12, 1));
        assertThat(LocalDate.ofInstant(late, ZoneId.of("UTC"))).isEqualTo(LocalDate.of(2026, 12, 1));
        assertThat(LocalDate.ofInstant(late.plusSeconds(3600), tokyo)).isEqualTo(LocalDate.of(2026, 12, 2));
    }

    @Test
    void aUserWhoMovesWestKeepsTheirStreakThoughTheyLoggedTomorrow() {
        // Tokyo to New York (14 hours behind): the last Tokyo day logged is "tomorrow" in New York for a while
        ZoneId tokyo = ZoneId.of("Asia/Tokyo");
        ZoneId ny = ZoneId.of("America/New_York");
        LocalDate first = LocalDate.of(2026, 12, 1);
        List<HabitLog> logs = doneEachDay(first, first.plusDays(9)); // Dec 1..10, Tokyo days
        Instant landed = ZonedDateTime.of(first.plusDays(9).atTime(20, 0), tokyo).toInstant().plusSeconds(14 * 3600);
        LocalDate nyToday = LocalDate.ofInstant(landed, ny); // Dec 10 in New York
        assertThat(nyToday).isEqualTo(first.plusDays(9));
        Instant earlier = ZonedDateTime.of(first.plusDays(9).atTime(9, 0), tokyo).toInstant(); // Dec 9 in New York
        var s = Progress.of(Schedule.DAILY, first, logs, LocalDate.ofInstant(earlier, ny));
        assertThat(s.currentStreak()).isEqualTo(10);
        assertThat(s.today()).isEqualTo(Progress.DayState.DONE);
        // and the next New York day done continues it
        logs.addAll(done(first.plusDays(10)));
        assertThat(Progress.of(Schedule.DAILY, first, logs, first.plusDays(10)).currentStreak()).isEqualTo(11);
    }

    @Test
    void aUserWhoMovesEastSkipsNoDayTheyCouldLog() {
        // New York to Tokyo: the New York day logged last is "yesterday" in Tokyo on landing; today is pending
        LocalDate first = LocalDate.of(2026, 12, 1);
        List<HabitLog> logs = doneEachDay(first, first.plusDays(4));
        var s = Progress.of(Schedule.DAILY, first, logs, first.plusDays(5));
        assertThat(s.currentStreak()).isEqualTo(5);
        assertThat(s.today()).isEqualTo(Progress.DayState.PENDING);
    }
}
