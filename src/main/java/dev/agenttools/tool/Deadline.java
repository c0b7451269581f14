package dev.agenttools.tool;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The overall time budget of one tool call ({@code timeout_ms}), counted from when the call started and shared by
 * everything the call does: client set-up, every request and retry, and a fallback. It also remembers the last
 * failure that cost the call time, so that running out of time says why (a Gmail answering 503, a refused
 * connection) and not only that it ran out. Thread-safe; one per call.
 */
public final class Deadline {
    private final long startNanos;
    private final long budgetNanos;
    private final AtomicReference<String> lastFailure = new AtomicReference<>();

    private Deadline(long startNanos, long budgetNanos) {
        this.startNanos = startNanos;
        this.budgetNanos = budgetNanos;
    }

    public static Deadline in(Duration budget) {
        return new Deadline(System.nanoTime(), budget.toNanos());
    }

    /** A budget counted from {@code startNanos} (a {@link System#nanoTime()} reading, or a test clock's: when the call started). */
    public static Deadline since(long startNanos, Duration budget) {
        return new Deadline(startNanos, budget.toNanos());
    }

    public long startNanos() {
        return startNanos;
    }

    public long budgetNanos() {
        return budgetNanos;
    }

    /** When the budget runs out, on the clock {@link #startNanos()} was read from. */
    public long endNanos() {
        return startNanos + budgetNanos;
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

    public Duration budget() {
        return Duration.ofNanos(budgetNanos);
    }

    /** Remembers a failure the call is spending time on (a retry's reason), for the error if time runs out. */
    public void noteFailure(String message) {
        lastFailure.set(message);
    }

    /** The error for running out of time while doing {@code what}, with the last failure noted, if any. */
    public ToolException exceeded(String what) {
        String last = lastFailure.get();
        return new ToolException(ToolException.Kind.DEADLINE, what + ": deadline of " + budget().toMillis()
                + " ms exceeded after " + elapsed().toMillis() + " ms" + (last == null ? "" : "; last error: " + last)
                + " (raise timeout_ms, or ask for fewer results)");
    }

    @Override
    public String toString() {
        return "Deadline[" + budget().toMillis() + " ms, " + remainingNanos() / 1_000_000 + " ms left]";
    }
}
