package dev.agenttools.google;

import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one bounded fan-out every strategy uses: runs a task per item on virtual threads (at most
 * {@code parallelism} at once), returns the results in item order, and on the first failure or at the
 * deadline cancels the tasks still running (interrupting their HTTP calls) and throws.
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
        java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(Math.max(1, parallelism));
        // Not try-with-resources: close() would wait for cancelled tasks; the deadline must not.
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        {
            List<Future<R>> futures = new ArrayList<>(items.size());
            for (T item : items) {
                futures.add(pool.submit(() -> {
                    gate.acquire();
                    try {
                        return task.run(item);
                    } finally {
                        gate.release();
                    }
                }));
            }
            List<R> results = new ArrayList<>(items.size());
            try {
                for (Future<R> f : futures) {
                    long left = deadline.remainingNanos();
                    if (left <= 0) {
                        throw deadline.exceeded(what);
                    }
                    results.add(f.get(left, TimeUnit.NANOSECONDS));
                }
                return results;
            } catch (TimeoutException e) {
                throw deadline.exceeded(what);
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
    }

    /** Runs one task on a virtual thread so that the deadline can interrupt it even when it does not look. */
    public static <R> R one(Deadline deadline, String what, java.util.concurrent.Callable<R> task) {
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
