package dev.agenttools.google;

import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter for what {@link GoogleErrors#retryable} says a retry can fix, honouring
 * Retry-After, always within the call's deadline. The one retry loop: a single request is an exchange of one key; a
 * batch is an exchange of many, whose refused parts alone are sent again. Immutable; thread-safe.
 *
 * @param base        first backoff ceiling; the wait after failed attempt n is a random time in [c/2, c], where
 *                    c = min(cap, base * 2^(n-1)), or Retry-After when that is longer
 * @param cap         largest backoff ceiling
 * @param maxAttempts attempts in all, the first one included
 */
public record Retry(Duration base, Duration cap, int maxAttempts) {
    public static final Retry DEFAULT = new Retry(Duration.ofMillis(200), Duration.ofSeconds(8), 8);

    /** A call to Google that may be retried. */
    @FunctionalInterface
    public interface Call<T> {
        T execute() throws Exception;
    }

    /** One exchange with Google carrying {@code pending} (one request, or the parts of a batch). */
    @FunctionalInterface
    public interface Exchange<K, V> {
        /**
         * Sends the pending keys and puts each one's answer in {@code answers}; throwing means the whole exchange
         * failed, and every key not answered failed with it.
         */
        void send(List<K> pending, Answers<K, V> answers) throws Exception;
    }

    /**
     * Runs {@code call} until it succeeds, fails for good, runs out of attempts, or the next wait would pass the
     * deadline; then throws the translated error.
     */
    public <T> T run(String operation, Deadline deadline, Call<T> call) throws InterruptedException {
        return run(operation, deadline, call, Ticker.SYSTEM);
    }

    <T> T run(String operation, Deadline deadline, Call<T> call, Ticker ticker) throws InterruptedException {
        Exchange<String, T> one = (pending, answers) -> answers.ok(operation, call.execute());
        return runEach(operation, k -> operation, deadline, List.of(operation), one, ticker).get(operation).orThrow();
    }

    /**
     * Sends the keys and resends those refused for now (what a retry can fix), after a backoff, until each has its
     * answer: a value, or the translated error of its last attempt. Keys keep their order.
     *
     * @param operation   what the exchange does, for errors about it as a whole
     * @param operationOf what one key's request does, for errors about that key alone
     * @throws InterruptedException when the call is cancelled
     */
    public <K, V> Map<K, Outcome<V>> runEach(String operation, java.util.function.Function<K, String> operationOf,
                                             Deadline deadline, List<K> keys, Exchange<K, V> exchange)
            throws InterruptedException {
        return runEach(operation, operationOf, deadline, keys, exchange, Ticker.SYSTEM);
    }

    <K, V> Map<K, Outcome<V>> runEach(String operation, java.util.function.Function<K, String> operationOf,
                                      Deadline deadline, List<K> keys, Exchange<K, V> exchange, Ticker ticker)
            throws InterruptedException {
        Map<K, Outcome<V>> done = new LinkedHashMap<>();
        List<K> pending = List.copyOf(keys);
        // what the upstream last said: an attempt cut short by the deadline's own shrinking timeout says nothing of it
        Exception upstream = null;
        int upstreamAttempt = 0;
        for (int attempt = 1; ; attempt++) {
            Answers<K, V> answers = new Answers<>();
            try {
                exchange.send(pending, answers);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException(operation + " cancelled");
                }
                answers.failUnanswered(pending, e);
            }
            Map<K, Exception> refused = new LinkedHashMap<>();
            for (K k : pending) {
                if (answers.isOk(k)) {
                    done.put(k, new Outcome.Ok<>(answers.value(k)));
                    continue;
                }
                Exception e = answers.answered(k) ? answers.failure(k)
                        : new IllegalStateException(operation + ": Google sent no answer for part " + k);
                if (!GoogleErrors.retryable(e) || attempt >= maxAttempts) {
                    done.put(k, new Outcome.Failed<>(GoogleErrors.translate(e, operationOf.apply(k), attempt, deadline)));
                } else {
                    refused.put(k, e);
                }
            }
            if (refused.isEmpty()) {
                return inOrder(keys, done);
            }
            Exception last = refused.values().iterator().next();
            if (!(last instanceof java.io.InterruptedIOException || last instanceof java.net.http.HttpTimeoutException)) {
                upstream = last;
                upstreamAttempt = attempt;
            }
            deadline.noteFailure(GoogleErrors.translate(last, operationOf.apply(refused.keySet().iterator().next()), attempt,
                    deadline).getMessage());
            long wait = backoffNanos(attempt, last);
            if (wait >= deadline.remainingNanos(ticker.nanoTime())) {
                String parts = keys.size() > 1 ? " " + refused.size() + " refused parts of a batch" : "";
                ToolException timeUp = new ToolException(ToolException.Kind.DEADLINE, "deadline of "
                        + deadline.budget().toMillis() + " ms leaves no time to retry" + parts + "; last error: "
                        + GoogleErrors.translate(last, operation, attempt, deadline).getMessage()
                        + (upstream != null && upstream != last ? "; before it: "
                                + GoogleErrors.translate(upstream, operation, upstreamAttempt, deadline).getMessage() : ""), last);
                refused.keySet().forEach(k -> done.put(k, new Outcome.Failed<>(timeUp)));
                return inOrder(keys, done);
            }
            ticker.sleep(wait);
            pending = new ArrayList<>(refused.keySet());
        }
    }

    private static <K, V> Map<K, Outcome<V>> inOrder(List<K> keys, Map<K, Outcome<V>> done) {
        Map<K, Outcome<V>> out = new LinkedHashMap<>();
        keys.forEach(k -> out.put(k, done.get(k)));
        return out;
    }

    /**
     * How long to wait before retry number {@code attempt}: a random time in [c/2, c] for the backoff ceiling c, or
     * what Google asked for (Retry-After) when that is longer.
     */
    public long backoffNanos(int attempt, Exception e) {
        Duration retryAfter = GoogleErrors.retryAfter(e);
        long ceiling = Math.min(cap.toNanos(), base.toNanos() << Math.min(attempt - 1, 20));
        long jittered = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
        return retryAfter == null ? jittered : Math.max(retryAfter.toNanos(), jittered);
    }
}
