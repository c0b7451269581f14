package dev.agenttools.habit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.List;

import static dev.agenttools.habit.HabitParams.answer;
import static dev.agenttools.habit.HabitParams.date;
import static dev.agenttools.habit.HabitParams.days;
import static dev.agenttools.habit.HabitParams.schema;
import static dev.agenttools.habit.HabitTools.DEFAULT_HISTORY_DAYS;
import static dev.agenttools.habit.HabitTools.HISTORY;
import static dev.agenttools.habit.HabitTools.MAX_HISTORY_DAYS;

/** habit.history */
record HabitHistory(HabitContext c) implements Tool {
    @Override
    public ToolSpec spec() {
        ObjectNode p = c.withHabit(c.properties());
        p.putObject("from").put("type", "string").put("format", "date")
                .put("description", "First day, YYYY-MM-DD. Default: " + (DEFAULT_HISTORY_DAYS - 1) + " days before to.");
        p.putObject("to").put("type", "string").put("format", "date")
                .put("description", "Last day, included. Default: today in the habit's time zone.");
        return new ToolSpec(HISTORY, "A habit day by day over a range of at most " + MAX_HISTORY_DAYS + " days (\"how did I "
                + "do this month\"): each day's state (done, not_done, missed, pending, not_due, not_logged, before_start), "
                + "the days done off the schedule (done_off_schedule: done counts only the due days done, never more than due; a "
                + "times-a-week habit's every day done), "
                + "amount and note, and the days done and due in the range (due counts the days up to today: a day ahead, or today "
                + "not logged yet, is not counted).", schema("Params of habit.history", p, "habit"), ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = c.params(call, c.whose("habit", "from", "to"));
        String user = c.user(call, p);
        Habit h = c.habit(p, user);
        LocalDate today = h.today(c.clock().instant());
        LocalDate to = date(p, "to", today);
        LocalDate from = date(p, "from", to.minusDays(DEFAULT_HISTORY_DAYS - 1L));
        if (from.isAfter(to)) {
            throw ToolException.invalidArgument("from " + from + " is after to " + to + ": from is the first day, to the last");
        }
        long days = ChronoUnit.DAYS.between(from, to) + 1;
        if (days > MAX_HISTORY_DAYS) {
            throw ToolException.invalidArgument("from..to must span at most " + MAX_HISTORY_DAYS + " days, got " + days
                    + " (" + from + ".." + to + "): ask for a year at a time");
        }
        List<HabitLog> logs = c.store().get().logs(user, h.id());
        HabitAnswers.History history = HabitAnswers.History.of(h, logs, from, to, today);
        return answer(history, history.days().size());
    }
}
