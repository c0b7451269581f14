package dev.agenttools.habit;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The Habit tools' answers, as records in their wire shape (snake_case through {@link dev.agenttools.tool.Json}). */
final class HabitAnswers {
    private HabitAnswers() {
    }

    /** A schedule: {@code kind} daily, weekdays (with {@code days}) or times_per_week (with {@code times_per_week}). */
    record ScheduleView(String kind, List<String> days, Integer timesPerWeek) {
        static ScheduleView of(Schedule s) {
            return new ScheduleView(s.kind().wireName(), s.kind() == Schedule.Kind.WEEKDAYS ? s.dayNames() : null,
                    s.kind() == Schedule.Kind.TIMES_PER_WEEK ? s.timesPerWeek() : null);
        }
    }

    record Target(Double amount, String unit) {
    }

    /** A habit as created, updated, archived or restored. */
    record HabitView(String id, String name, ScheduleView schedule, Target target, String timeZone, boolean archived,
                     String created) {
        static HabitView of(Habit h) {
            return new HabitView(h.id(), h.name(), ScheduleView.of(h.schedule()),
                    h.targetAmount() == null && h.targetUnit() == null ? null : new Target(h.targetAmount(), h.targetUnit()),
                    h.zone().getId(), h.archived(), h.created().toString());
        }
    }

    /** What habit.log wrote: the day's one record, and the habit's progress after it. */
    record Logged(HabitView habit, String date, boolean done, Double amount, String note, Status status) {
    }

    /** A habit's state today and its progress, as habit.list shows it. */
    record Status(String today, String todayState, Double todayAmount, int currentStreak, int longestStreak,
                  String streakUnit, Progress.Rate completion7, Progress.Rate completion30, Integer thisWeekDone) {
        static Status of(Habit h, List<HabitLog> logs, LocalDate today) {
            Progress.Summary s = Progress.of(h.schedule(), h.createdDay(), logs, today);
            Double amount = null;
            for (HabitLog l : logs) {
                if (l.day().equals(today)) {
                    amount = l.amount();
                }
            }
            return new Status(today.toString(), s.today().wireName(), amount, s.currentStreak(), s.longestStreak(),
                    s.streakUnit(), s.last7(), s.last30(), s.thisWeekDone());
        }
    }

    record Listed(HabitView habit, Status status) {
    }

    record HabitList(List<Listed> habits, int count) {
    }

    /** One day of habit.history. */
    record Day(String date, String state, boolean due, Double amount, String note) {
    }

    /**
     * habit.history's answer.
     *
     * @param done            the due days done, so never more than {@code due} (a times-a-week habit, no one day of which
     *                        is due: the days done, each counting toward its week)
     * @param due             the due days up to today (a day ahead, or today not logged yet, is not counted; a
     *                        times-a-week habit: 0, its weeks are due)
     * @param doneOffSchedule days done that were not due (a Tuesday of a Mon/Wed/Fri habit): in neither count
     */
    record History(HabitView habit, String from, String to, List<Day> days, int done, int due, int doneOffSchedule) {
        static History of(Habit h, List<HabitLog> logs, LocalDate from, LocalDate to, LocalDate today) {
            Map<LocalDate, Boolean> byDay = new HashMap<>();
            Map<LocalDate, HabitLog> log = new HashMap<>();
            LocalDate start = h.createdDay();
            for (HabitLog l : logs) {
                byDay.put(l.day(), l.done());
                log.put(l.day(), l);
                start = l.day().isBefore(start) ? l.day() : start;
            }
            List<Day> days = new ArrayList<>();
            boolean weeks = h.schedule().kind() == Schedule.Kind.TIMES_PER_WEEK;
            int done = 0;
            int due = 0;
            int offSchedule = 0;
            for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
                Progress.DayState state = Progress.state(h.schedule(), byDay, start, today, d);
                // no one day of a times-a-week habit is due: its weeks are (habit.list's this_week_done)
                boolean isDue = h.schedule().kind() != Schedule.Kind.TIMES_PER_WEEK && h.schedule().dueOn(d) && !d.isBefore(start);
                HabitLog l = log.get(d);
                // a day done off the schedule is no due day done: done never passes due (habit.list's completion agrees)
                boolean doneDay = state == Progress.DayState.DONE;
                done += doneDay && (isDue || weeks) ? 1 : 0;
                offSchedule += doneDay && !isDue && !weeks ? 1 : 0;
                // the total is of days that could be done by now: a day ahead, or today still pending, is not counted yet
                boolean decided = d.isBefore(today) || state == Progress.DayState.DONE || state == Progress.DayState.NOT_DONE;
                due += isDue && decided ? 1 : 0;
                days.add(new Day(d.toString(), state.wireName(), isDue, l == null ? null : l.amount(), l == null ? null : l.note()));
            }
            return new History(HabitView.of(h), from.toString(), to.toString(), days, done, due, offSchedule);
        }
    }
}
