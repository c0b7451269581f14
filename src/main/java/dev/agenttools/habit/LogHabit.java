package dev.agenttools.habit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.time.LocalDate;
import java.util.List;

import static dev.agenttools.habit.HabitParams.amount;
import static dev.agenttools.habit.HabitParams.answer;
import static dev.agenttools.habit.HabitParams.date;
import static dev.agenttools.habit.HabitParams.schema;
import static dev.agenttools.habit.HabitTools.LOG;
import static dev.agenttools.habit.HabitTools.MAX_AMOUNT;
import static dev.agenttools.habit.HabitTools.MAX_PAST_YEARS;
import static dev.agenttools.habit.HabitTools.MIN_NONZERO_AMOUNT;

/** habit.log */
record LogHabit(HabitContext c) implements Tool {
    @Override
    public ToolSpec spec() {
        ObjectNode p = c.withHabit(c.properties());
        p.putObject("date").put("type", "string").put("format", "date").put("description", "The day, YYYY-MM-DD, in the "
                + "habit's time zone. Default: today there. Not a day in the future.");
        p.putObject("done").put("type", "boolean").put("default", true).put("description", "Done (true) or, to record "
                + "that it was skipped, false (that breaks the streak; a day never logged is only missed once it has passed).");
        p.putObject("amount").put("type", "number").put("minimum", 0).put("maximum", MAX_AMOUNT)
                .put("description", "How much, in the habit's target unit (45 for 45 minutes); 0, or at least "
                        + MIN_NONZERO_AMOUNT + ".");
        p.putObject("note").put("type", "string").put("maxLength", HabitLog.MAX_NOTE_CHARS).put("description", "A note on the day"
                + " (lines and tabs allowed; no other control, bidi or zero-width characters).");
        return new ToolSpec(LOG, "Record that the user did a habit (or did not) on a day, default today in the habit's "
                + "time zone. One record per habit and day: logging the day again replaces it, so a retried call never "
                + "counts twice. Returns the day's record and the habit's streak and completion after it.",
                schema("Params of habit.log", p, "habit"), ToolSpec.Effect.REVERSIBLE);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = c.params(call, c.whose("habit", "date", "done", "amount", "note"));
        String user = c.user(call, p);
        Habit h = c.habit(p, user);
        LocalDate today = h.today(c.clock().instant());
        LocalDate day = date(p, "date", today);
        if (day.isAfter(today)) {
            throw ToolException.invalidArgument("date " + day + " is in the future: today in " + h.zone().getId() + " (the habit's "
                    + "time zone) is " + today + "; a day can be logged once it has begun there");
        }
        // streaks walk every day from the first logged one: a day of year -999999999 would walk for hours
        if (day.isBefore(today.minusYears(MAX_PAST_YEARS))) {
            throw ToolException.invalidArgument("date " + day + " is more than " + MAX_PAST_YEARS + " years ago: the earliest day"
                    + " that can be logged today is " + today.minusYears(MAX_PAST_YEARS));
        }
        String note = p.string("note", null);
        note = note == null ? null : Params.text("note", note, HabitLog.MAX_NOTE_CHARS);
        HabitLog log = new HabitLog(h.id(), day, p.bool("done", true), amount(call.params(), "amount", null), note);
        HabitStore store = c.store().get();
        store.log(user, log, c.clock().instant());
        c.memo().forget(user, h.id()); // after the write: a list that read before it keeps nothing it computed
        List<HabitLog> logs = store.logs(user, h.id());
        return answer(new HabitAnswers.Logged(HabitAnswers.HabitView.of(h), day.toString(), log.done(), log.amount(), log.note(),
                HabitAnswers.Status.of(h, logs, today)), 1);
    }
}
