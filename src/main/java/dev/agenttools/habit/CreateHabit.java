package dev.agenttools.habit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.HashSet;
import java.util.Set;

import static dev.agenttools.habit.HabitParams.DEFINITION;
import static dev.agenttools.habit.HabitParams.amount;
import static dev.agenttools.habit.HabitParams.answer;
import static dev.agenttools.habit.HabitParams.describeDefinition;
import static dev.agenttools.habit.HabitParams.name;
import static dev.agenttools.habit.HabitParams.schedule;
import static dev.agenttools.habit.HabitParams.schema;
import static dev.agenttools.habit.HabitParams.unit;
import static dev.agenttools.habit.HabitParams.zone;
import static dev.agenttools.habit.HabitTools.CREATE;

/** habit.create */
record CreateHabit(HabitContext c) implements Tool {
    @Override
    public ToolSpec spec() {
        ObjectNode p = c.properties();
        describeDefinition(p, false);
        return new ToolSpec(CREATE, "Start tracking a habit for the user: its name, when it is due (every day, given "
                + "weekdays, or N times a week), an optional daily target (30 minutes), and the time zone its days are "
                + "counted in. Returns the habit with its id. At most " + HabitStore.MAX_HABITS_PER_USER + " habits per user.",
                schema("Params of habit.create", p, "name"), ToolSpec.Effect.REVERSIBLE);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Set<String> known = new HashSet<>(DEFINITION);
        known.addAll(c.whose());
        Params p = c.params(call, known);
        String user = c.user(call, p);
        HabitStore.NewHabit h = new HabitStore.NewHabit(name(p, null), schedule(p, call.params(), null),
                amount(call.params(), "target_amount", null), unit(p, call.params(), null), zone(p, c.clock().getZone()));
        return answer(HabitAnswers.HabitView.of(c.store().get().create(user, h, c.clock().instant())), 1);
    }
}
