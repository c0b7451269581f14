package dev.agenttools.habit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import static dev.agenttools.habit.HabitParams.answer;
import static dev.agenttools.habit.HabitParams.schema;
import static dev.agenttools.habit.HabitTools.ARCHIVE;
import static dev.agenttools.habit.HabitTools.RESTORE;

/** habit.archive and habit.restore */
record ArchiveHabit(HabitContext c, boolean archive) implements Tool {
    @Override
    public ToolSpec spec() {
        ObjectNode p = c.withHabit(c.properties());
        return archive
                ? new ToolSpec(ARCHIVE, "Archive a habit the user stopped: it and its logs are kept, but habit.list leaves "
                + "it out (unless include_archived). habit.restore brings it back.", schema("Params of habit.archive", p, "habit"),
                ToolSpec.Effect.REVERSIBLE)
                : new ToolSpec(RESTORE, "Bring back an archived habit, with its logs and streaks.",
                schema("Params of habit.restore", p, "habit"), ToolSpec.Effect.REVERSIBLE);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = c.params(call, c.whose("habit"));
        String user = c.user(call, p);
        Habit h = c.habit(p, user);
        return answer(HabitAnswers.HabitView.of(h.archived() == archive ? h
                : c.store().get().update(user, h.id(), HabitChange.archived(archive), c.clock().instant())), 1);
    }
}
