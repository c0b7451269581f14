package dev.agenttools.habit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.HashSet;
import java.util.Optional;
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
import static dev.agenttools.habit.HabitTools.UPDATE;

/** habit.update */
record UpdateHabit(HabitContext c) implements Tool {
    @Override
    public ToolSpec spec() {
        ObjectNode p = c.withHabit(c.properties());
        describeDefinition(p, true);
        return new ToolSpec(UPDATE, "Change a habit: rename it, change when it is due or its target, or move it to "
                + "another time zone (when the user moves: logged days and streaks are kept). Only the params given change.",
                schema("Params of habit.update", p, "habit"), ToolSpec.Effect.REVERSIBLE);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Set<String> known = new HashSet<>(DEFINITION);
        known.addAll(c.whose());
        known.add("habit");
        Params p = c.params(call, known);
        String user = c.user(call, p);
        Habit h = c.habit(p, user);
        JsonNode params = call.params();
        // only what the call gives: another call's change of the rest meanwhile stands
        HabitChange change = new HabitChange(params.has("name") ? name(p, h.name()) : null,
                params.has("schedule") || params.has("days") || params.has("times_per_week") ? schedule(p, params, h.schedule()) : null,
                params.has("target_amount") ? Optional.ofNullable(amount(params, "target_amount", null)) : null,
                params.has("target_unit") ? Optional.ofNullable(unit(p, params, null)) : null, zone(p, null), null);
        return answer(HabitAnswers.HabitView.of(c.store().get().update(user, h.id(), change, c.clock().instant())), 1);
    }
}
