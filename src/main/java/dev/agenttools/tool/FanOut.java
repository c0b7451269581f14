package dev.agenttools.tool;


import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The one bounded fan-out every strategy uses: runs a task per item on virtual threads (at most
 * {@code parallelism} at once), returns the results in item order, and on the first failure (the first to happen,
 * whatever its place among the items) or at the deadline cancels the tasks still running (interrupting their HTTP
 * calls) and throws. It lives here, not beside the strategies ({@code google.Strategy}), because the registry runs
 * every call on a thread of its own the same way ({@link #one}): the deadline interrupts a tool that never looks.
 */
public final class FanOut {
    private FanOut() {
    }

    /** A unit of work that may block and may be interrupted. */
    @FunctionalInterface
    public interface Task<T, R> {
        R run(T item) throws Exception;
    }

    public static <T, R> List<R> map(List<T> items, int parallelism, Deadline deadline, String what, Task<T, R> task) {
        if (items.isEmpty()) {
            return List.of();
        }
        Semaphore gate = new Semaphore(Math.max(1, parallelism));
        // Not try-with-resources: close() would wait for cancelled tasks; the deadline must not.
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        // Completion order, not item order: the first task to fail fails the call at once, even while tasks listed
        // before it are still waiting for their answers.
        ExecutorCompletionService<Integer> done = new ExecutorCompletionService<>(pool);
        List<Future<Integer>> futures = new ArrayList<>(items.size());
        List<R> results = new ArrayList<>(Collections.nCopies(items.size(), null));
        try {
            for (int i = 0; i < items.size(); i++) {
                int index = i;
                T item = items.get(i);
                futures.add(done.submit(() -> {
                    gate.acquire();
                    try {
                        results.set(index, task.run(item)); // each task its own slot; read after its future completes
                        return index;
                    } finally {
                        gate.release();
                    }
                }));
            }
            for (int finished = 0; finished < items.size(); finished++) {
                long left = deadline.remainingNanos();
                Future<Integer> next = left <= 0 ? null : done.poll(left, TimeUnit.NANOSECONDS);
                if (next == null) {
                    throw deadline.exceeded(what);
                }
                next.get();
            }
            return results;
        } catch (ExecutionException e) {
            throw unwrap(e.getCause(), what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolException(ToolException.Kind.DEADLINE, what + ": cancelled");
        } finally {
            futures.forEach(f -> f.cancel(true));
            pool.shutdownNow();
        }
    }

    /** Runs one task on a virtual thread so that the deadline can interrupt it even when it does not look. */
    public static <R> R one(Deadline deadline, String what, Callable<R> task) {
        return map(List.of(0), 1, deadline, what, i -> task.call()).getFirst();
    }

    private static RuntimeException unwrap(Throwable cause, String what) {
        if (cause instanceof ToolException t) {
            return t;
        }
        if (cause instanceof RuntimeException r) {
            return r;
        }
        return new ToolException(ToolException.Kind.INTERNAL, what + ": " + cause, cause);
    }
}
