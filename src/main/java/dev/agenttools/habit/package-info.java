/**
 * The Habit tools (habit.create, habit.update, habit.archive, habit.restore, habit.log, habit.list, habit.history),
 * internal: {@link dev.agenttools.habit.HabitTools} registers them on a registry, told whose Google account a call's
 * credential is by the front door ({@link dev.agenttools.habit.GoogleAccount}); only
 * {@link dev.agenttools.habit.HabitSettings} is published. Habits and their day-by-day logs are kept per user in a
 * {@link dev.agenttools.habit.HabitStore}: a SQLite file, or a DynamoDB table for instances on several machines;
 * streaks and completion rates are pure functions of a habit's schedule and its logs ({@link dev.agenttools.habit.Progress}). Imports {@code tool} and {@code store}.
 */
package dev.agenttools.habit;
