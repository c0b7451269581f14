package dev.agenttools.habit;

import java.time.ZoneId;
import java.util.Optional;

/**
 * What habit.update, habit.archive or habit.restore change of a habit: only what the call gave. Why not the whole habit
 * as read and changed: two calls at once changing different things (a rename from one agent, an archive or a new target
 * from another instance) would each write back the other's old value, and one change would be lost. The stores write
 * only these fields.
 *
 * @param name         the new name, or null to keep it
 * @param schedule     the new schedule, or null to keep it
 * @param targetAmount null to keep it; empty to clear it; else the new amount
 * @param targetUnit   null to keep it; empty to clear it; else the new unit
 * @param zone         the new zone, or null to keep it
 * @param archived     archived or not, or null to keep it
 */
@SuppressWarnings("OptionalUsedAsFieldOrParameterType") // three states: keep, clear, set
record HabitChange(String name, Schedule schedule, Optional<Double> targetAmount, Optional<String> targetUnit, ZoneId zone,
                   Boolean archived) {
    /** Only the archived flag. */
    static HabitChange archived(boolean archived) {
        return new HabitChange(null, null, null, null, null, archived);
    }

    /** {@code h} with this change made. */
    Habit applyTo(Habit h) {
        return new Habit(h.id(), h.user(), name != null ? name : h.name(), schedule != null ? schedule : h.schedule(),
                targetAmount != null ? targetAmount.orElse(null) : h.targetAmount(),
                targetUnit != null ? targetUnit.orElse(null) : h.targetUnit(), zone != null ? zone : h.zone(),
                archived != null ? archived : h.archived(), h.created());
    }
}
