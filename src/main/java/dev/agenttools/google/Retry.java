package dev.agenttools.google;

import com.google.api.client.http.HttpResponseException;
import dev.agenttools.tool.ToolException;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter for what {@link GoogleErrors#retryable} says a retry can fix, honouring
 * Retry-After, always within the call's deadline. Immutable; thread-safe.
 *
 * @param base        first backoff ceiling; the wait after failed attempt n is a random time in [c/2, c], where
 *                    c = min(cap, base * 2^(n-1)), or Retry-After when that is longer
 * @param cap         largest backoff
 * @param maxAttempts attempts in all, the first one included
 */
public record Retry(Duration base, Duration cap, int maxAttempts) {
    public static final Retry DEFAULT = new Retry(Duration.ofMillis(200), Duration.ofSeconds(8), 8);

    /** A call to Google that may be retried. */
    @FunctionalInterface
    public interface Call<T> {
        T execute() throws Exception;
    }

    /**
     * Runs {@code call} until it succeeds, fails for good, runs out of attempts, or the next wait would pass the
     * deadline; then throws the translated error.
     */
    public <T> T run(String operation, Deadline deadline, Call<T> call) throws InterruptedException {
        return run(operation, deadline, call, Ticker.SYSTEM);
    }

    <T> T run(String operation, Deadline deadline, Call<T> call, Ticker ticker) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.execute();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException(operation + " cancelled");
                }
                if (!GoogleErrors.retryable(e) || attempt >= maxAttempts) {
                    throw GoogleErrors.translate(e, operation, attempt, deadline);
                }
                long wait = backoffNanos(attempt, e);
                if (wait >= deadline.remainingNanos(ticker.nanoTime())) {
                    ToolException last = GoogleErrors.translate(e, operation, attempt, deadline);
                    throw new ToolException(ToolException.Kind.DEADLINE, "deadline of " + deadline.budget().toMillis()
                            + " ms leaves no time to retry; last error: " + last.getMessage(), e);
                }
                ticker.sleep(wait);
            }
        }
    }

    /** How long to wait before retry number {@code attempt}: Retry-After when the error carries one, else backoff. */
    public long backoffNanos(int attempt, Exception e) {
        Duration retryAfter = retryAfter(e);
        long ceiling = Math.min(cap.toNanos(), base.toNanos() << Math.min(attempt - 1, 20));
        long jittered = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
        return retryAfter == null ? jittered : Math.max(retryAfter.toNanos(), jittered);
    }

    private static Duration retryAfter(Exception e) {
        if (e instanceof HttpResponseException h && h.getHeaders() != null && h.getHeaders().getRetryAfter() != null) {
            try {
                return Duration.ofSeconds(Long.parseLong(h.getHeaders().getRetryAfter().strip()));
            } catch (NumberFormatException ignored) {
                return null; // an HTTP date: rare from Google; the backoff stands in
            }
        }
        return null;
    }
}
