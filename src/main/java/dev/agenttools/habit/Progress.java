package dev.agenttools.habit;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * How a habit is going, computed from its schedule and its logs alone (pure functions: no clock, no zone; the caller
 * says which local day is today). Days are local days, so a DST change (a 23- or 25-hour day) changes nothing here,
 * and a user who moves zones keeps their streak: a day is the day it was logged for.
 *
 * <p>Streaks by schedule: a daily or given-weekdays habit counts due days done in a row, days it is not due on
 * neither adding nor breaking (a Mon/Wed/Fri habit is not broken on a Tuesday); an N-times-a-week habit counts weeks
 * (Monday to Sunday) with N days done, its first week asking only as many as it had days left. Today (and for a
 * times-a-week habit this week) not done yet is pending: it does not break the streak, but a day logged as not done
 * does. A user who moved west may have logged a day later than their new "today": the count starts from that day.
 *
 * <p>Completion: of the last 7 and 30 due days (today left out while pending), the share done; for an
 * N-times-a-week habit, days done in the last 7 and 30 days over N a week (at most 1). Days before the habit's
 * first day (its creation, or an earlier day logged) do not count.
 */
final class Progress {
    private Progress() {
    }

    /**
     * What a day looks like: {@code done} or {@code not_done} (logged so), else {@code before_start} (before the habit's
     * first day), {@code not_due} (not one of its weekdays), {@code not_logged} (a past day of a times-a-week habit: no
     * one day is due), {@code missed} (a past due day) or {@code pending} (today or later).
     */
    enum DayState {
        DONE, NOT_DONE, PENDING, NOT_DUE, NOT_LOGGED, MISSED, BEFORE_START;

        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A completion rate.
     *
     * @param done      due days done (times-a-week: days done)
     * @param scheduled due days counted (times-a-week: the days done the window asks for)
     * @param rate      done / scheduled, 0..1 (rounded to 3 places), or null when nothing was due yet
     */
    record Rate(int done, int scheduled, Double rate) {
        static Rate of(int done, int scheduled) {
            return new Rate(done, scheduled, scheduled == 0 ? null : Math.round(Math.min(1.0, (double) done / scheduled) * 1000) / 1000.0);
        }
    }

    /**
     * @param today          today's state
     * @param currentStreak  due days (or weeks) done in a row up to today
     * @param longestStreak  the longest such run ever
     * @param streakUnit     {@code days} or {@code weeks}
     * @param last7          completion over the last 7 due days
     * @param last30         completion over the last 30 due days
     * @param thisWeekDone   for a times-a-week habit, days done this week (else null)
     */
    record Summary(DayState today, int currentStreak, int longestStreak, String streakUnit, Rate last7, Rate last30,
                   Integer thisWeekDone) {
    }

    /** The summary of {@code habit} on {@code today} (its local day now), from all its {@code logs}. */
    static Summary of(Schedule schedule, LocalDate createdDay, List<HabitLog> logs, LocalDate today) {
        NavigableMap<LocalDate, Boolean> byDay = new TreeMap<>();
        for (HabitLog l : logs) {
            byDay.put(l.day(), l.done());
        }
        LocalDate start = byDay.isEmpty() || createdDay.isBefore(byDay.firstKey()) ? createdDay : byDay.firstKey();
        // a user who moved west may have logged a day past their new today: count from there
        LocalDate end = !byDay.isEmpty() && byDay.lastKey().isAfter(today) ? byDay.lastKey() : today;
        DayState state = state(schedule, byDay, start, today, today);
        if (schedule.kind() == Schedule.Kind.TIMES_PER_WEEK) {
            return weekly(schedule.timesPerWeek(), byDay, start, end, today, state);
        }
        return daily(schedule, byDay, start, end, today, state);
    }

    /** The state of {@code day}: logged, or not due, or pending (today or later), or missed. */
    static DayState state(Schedule schedule, Map<LocalDate, Boolean> byDay, LocalDate start, LocalDate today, LocalDate day) {
        Boolean logged = byDay.get(day);
        if (logged != null) {
            return logged ? DayState.DONE : DayState.NOT_DONE;
        }
        if (day.isBefore(start)) {
            return DayState.BEFORE_START;
        }
        if (!schedule.dueOn(day)) {
            return DayState.NOT_DUE;
        }
        if (!day.isBefore(today)) {
            return DayState.PENDING;
        }
        return schedule.kind() == Schedule.Kind.TIMES_PER_WEEK ? DayState.NOT_LOGGED : DayState.MISSED;
    }

    private static Summary daily(Schedule schedule, NavigableMap<LocalDate, Boolean> byDay, LocalDate start, LocalDate end,
                                 LocalDate today, DayState todayState) {
        // the due days, oldest first, each done or not; an unlogged last day (today) is pending and left out
        List<Boolean> due = new ArrayList<>();
        for (LocalDate d = start; !d.isAfter(end); d = d.plusDays(1)) {
            if (schedule.dueOn(d)) {
                Boolean logged = byDay.get(d);
                if (logged == null && !d.isBefore(today)) {
                    continue; // pending: neither done nor broken yet
                }
                due.add(Boolean.TRUE.equals(logged));
            }
        }
        int longest = 0;
        int run = 0;
        for (boolean done : due) {
            run = done ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return new Summary(todayState, run, longest, "days", lastRate(due, 7), lastRate(due, 30), null);
    }

    private static Rate lastRate(List<Boolean> due, int n) {
        List<Boolean> last = due.subList(Math.max(0, due.size() - n), due.size());
        return Rate.of((int) last.stream().filter(b -> b).count(), last.size());
    }

    private static Summary weekly(int n, NavigableMap<LocalDate, Boolean> byDay, LocalDate start, LocalDate end,
                                  LocalDate today, DayState todayState) {
        LocalDate firstMonday = start.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        LocalDate lastMonday = end.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        int longest = 0;
        int run = 0;
        int thisWeek = 0;
        for (LocalDate monday = firstMonday; !monday.isAfter(lastMonday); monday = monday.plusWeeks(1)) {
            int done = doneBetween(byDay, monday, monday.plusDays(6));
            // the first week asks only as many days as it had from the habit's start
            int asked = monday.equals(firstMonday) ? Math.min(n, (int) ChronoUnit.DAYS.between(start, monday.plusDays(7))) : n;
            boolean current = monday.equals(lastMonday);
            if (current) {
                thisWeek = done;
            }
            if (done >= asked) {
                run++;
            } else if (!current) {
                run = 0; // the week in progress breaks nothing yet
            }
            longest = Math.max(longest, run);
        }
        if (todayState == DayState.NOT_DUE || todayState == DayState.PENDING) {
            todayState = DayState.PENDING; // any day of the week counts
        }
        return new Summary(todayState, run, longest, "weeks", windowRate(n, byDay, start, today, 7),
                windowRate(n, byDay, start, today, 30), thisWeek);
    }

    /** Days done in the last {@code days} days up to today (from the start), over N a week for those days. */
    private static Rate windowRate(int n, NavigableMap<LocalDate, Boolean> byDay, LocalDate start, LocalDate today, int days) {
        LocalDate from = today.minusDays(days - 1L);
        if (from.isBefore(start)) {
            from = start;
        }
        long span = ChronoUnit.DAYS.between(from, today) + 1;
        if (span <= 0) {
            return Rate.of(0, 0);
        }
        int asked = (int) Math.ceil(n * span / 7.0);
        return Rate.of(Math.min(asked, doneBetween(byDay, from, today)), asked);
    }

    private static int doneBetween(NavigableMap<LocalDate, Boolean> byDay, LocalDate from, LocalDate to) {
        int done = 0;
        for (boolean d : byDay.subMap(from, true, to, true).values()) {
            if (d) {
                done++;
            }
        }
        return done;
    }
}
