package dev.agenttools.habit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.ArrayList;
import java.util.List;

import static dev.agenttools.habit.HabitParams.answer;
import static dev.agenttools.habit.HabitParams.schema;
import static dev.agenttools.habit.HabitTools.LIST;

/** habit.list */
record ListHabits(HabitContext c) implements Tool {
    @Override
    public ToolSpec spec() {
        ObjectNode p = c.properties();
        p.putObject("include_archived").put("type", "boolean").put("default", false).put("description", "Also list archived habits.");
        return new ToolSpec(LIST, "The user's habits with how each is going: today's state (done, not_done, pending, "
                + "not_due), the current and longest streak (days in a row done of the days it is due, or for a times-a-week "
                + "habit weeks in a row with its count met; today not done yet breaks nothing), and completion over the "
                + "last 7 and 30 due days (done, scheduled, rate 0..1).", schema("Params of habit.list", p), ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = c.params(call, c.whose("include_archived"));
        String user = c.user(call, p);
        HabitStore store = c.store().get();
        long foreignWrites = store.foreignWrites(); // before reading: a write after it is seen by the next list
        List<Habit> habits = store.habits(user, p.bool("include_archived", false));
        List<HabitAnswers.Status> statuses = c.memo().statuses(store, user, habits, foreignWrites, c.clock().instant());
        List<HabitAnswers.Listed> listed = new ArrayList<>(habits.size());
        for (int i = 0; i < habits.size(); i++) {
            listed.add(new HabitAnswers.Listed(HabitAnswers.HabitView.of(habits.get(i)), statuses.get(i)));
        }
        return answer(new HabitAnswers.HabitList(listed, listed.size()), listed.size());
    }
}
