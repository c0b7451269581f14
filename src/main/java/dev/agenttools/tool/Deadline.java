package dev.agenttools.tool;

import java.time.Duration;

/**
 * The overall time budget of one tool call ({@code timeout_ms}), counted from when the call started and shared by
 * everything the call does: client set-up, every request and retry, and a fallback. Immutable.
 */
public record Deadline(long startNanos, long budgetNanos) {

    public static Deadline in(Duration budget) {
        return new Deadline(System.nanoTime(), budget.toNanos());
    }

    /** A budget counted from {@code startNanos} (a {@link System#nanoTime()} reading: when the call started). */
    public static Deadline since(long startNanos, Duration budget) {
        return new Deadline(startNanos, budget.toNanos());
    }

    public long remainingNanos() {
        return remainingNanos(System.nanoTime());
    }

    /** What is left at {@code nowNanos} (a {@link System#nanoTime()} reading, or a test's virtual one). */
    public long remainingNanos(long nowNanos) {
        return budgetNanos - (nowNanos - startNanos);
    }

    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    public boolean expired() {
        return remainingNanos() <= 0;
    }

    public Duration budget() {
        return Duration.ofNanos(budgetNanos);
    }

    /** The error for running out of time while doing {@code what}. */
    public ToolException exceeded(String what) {
        return new ToolException(ToolException.Kind.DEADLINE, what + ": deadline of " + budget().toMillis()
                + " ms exceeded after " + elapsed().toMillis() + " ms (raise timeout_ms, or ask for fewer results)");
    }
}
