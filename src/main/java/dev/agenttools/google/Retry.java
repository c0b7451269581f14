package dev.agenttools.google;

import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Exponential backoff with jitter for what {@link GoogleErrors#retryable} says a retry can fix, honouring
 * Retry-After, always within the call's deadline. The one retry loop: a single request is an exchange of one key; a
 * batch is an exchange of many, whose refused parts alone are sent again. Immutable; thread-safe.
 *
 * <p>A failure that outlasts the retries ends with what the upstream said ({@link GoogleErrors#givenUp}): a 5xx or a
 * connection that cannot be made is {@code upstream}, a rate limit {@code rate_limited}; so does one whose next
 * attempt would start past the deadline, since waiting longer would not make the answer another. Only an attempt
 * that timed out waiting for its answer, with no time left for another, is {@code deadline}: the time was spent on a
 * slow upstream. A connection that cannot be made (refused, an unknown host, no route, none in time) gets one quick
 * retry at most: a server that refused a moment ago rarely answers now, and a caller's own fallback needs the time.
 *
 * @param base        first backoff ceiling; the wait after failed attempt n is a random time in [c/2, c], where
 *                    c = min(cap, base * 2^(n-1)), or Retry-After when that is longer
 * @param cap         largest backoff ceiling
 * @param maxAttempts attempts in all, the first one included
 * @param quotaBase   first backoff ceiling after a refusal for a spent quota (not for too many in flight)
 */
public record Retry(Duration base, Duration cap, int maxAttempts, Duration quotaBase) {
    /**
     * Four attempts. After a 5xx, a lost connection or too many requests in flight, waits of about 0.1-0.2, 0.2-0.4
     * and 0.4-0.8 s: such a failure clears in a moment or not soon, so a persistent one costs four requests and about
     * 1.5 s. After a spent quota, 0.5-1, 1-2 and 2-4 s: a user's quota refills over seconds, and Google's guide backs
     * off from 1 s for it. Eight attempts (23-28 s of waits) outlasted most deadlines, so a persistent failure ended as
     * {@code deadline} after some 27 requests, hiding what Google said.
     */
    public static final Retry DEFAULT = new Retry(Duration.ofMillis(200), Duration.ofSeconds(8), 4,
            Duration.ofSeconds(1));
    /** Attempts at most for a connection that cannot be made: the first and one quick retry. */
    static final int CONNECTION_ATTEMPTS = 2;

    /** The same backoff whatever the failure ({@code quotaBase} = {@code base}). */
    public Retry(Duration base, Duration cap, int maxAttempts) {
        this(base, cap, maxAttempts, base);
    }

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
    public <K, V> Map<K, Outcome<V>> runEach(String operation, Function<K, String> operationOf,
                                             Deadline deadline, List<K> keys, Exchange<K, V> exchange)
            throws InterruptedException {
        return runEach(operation, operationOf, deadline, keys, exchange, Ticker.SYSTEM);
    }

    <K, V> Map<K, Outcome<V>> runEach(String operation, Function<K, String> operationOf,
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
                if (GoogleErrors.retryable(e)) {
                    refused.put(k, e);
                } else {
                    done.put(k, new Outcome.Failed<>(GoogleErrors.translate(e, operationOf.apply(k), attempt, deadline),
                            attempt));
                }
            }
            if (refused.isEmpty()) {
                return inOrder(keys, done);
            }
            Exception last = refused.values().iterator().next();
            if (!GoogleErrors.timedOut(last)) {
                upstream = last;
                upstreamAttempt = attempt;
            }
            deadline.noteFailure(GoogleErrors.translate(last, operationOf.apply(refused.keySet().iterator().next()),
                    attempt, deadline).getMessage());
            long wait = backoffNanos(attempt, last);
            boolean outOfTime = wait >= deadline.remainingNanos(ticker.nanoTime());
            Map<K, Exception> again = new LinkedHashMap<>();
            for (Map.Entry<K, Exception> r : refused.entrySet()) {
                Exception e = r.getValue();
                boolean spent = attempt >= attemptsFor(e);
                if (outOfTime && GoogleErrors.timedOut(e)) {
                    // the deadline went waiting for an answer: that, not the upstream's last word, is what happened
                    String parts = keys.size() > 1 ? " " + refused.size() + " refused parts of a batch" : "";
                    String before = upstream == null || upstream == e ? "" : "; before it: "
                            + GoogleErrors.translate(upstream, operation, upstreamAttempt, deadline).getMessage();
                    String lastError = GoogleErrors.translate(e, operation, attempt, deadline).getMessage();
                    done.put(r.getKey(), new Outcome.Failed<>(new ToolException(ToolException.Kind.DEADLINE,
                            "deadline of " + deadline.budget().toMillis() + " ms leaves no time to retry" + parts
                                    + "; last error: " + lastError + before, e), attempt));
                } else if (spent || outOfTime) {
                    done.put(r.getKey(), new Outcome.Failed<>(GoogleErrors.givenUp(e, operationOf.apply(r.getKey()),
                            attempt, deadline, wait, !spent), attempt));
                } else {
                    again.put(r.getKey(), e);
                }
            }
            if (again.isEmpty()) {
                return inOrder(keys, done);
            }
            ticker.sleep(wait);
            pending = new ArrayList<>(again.keySet());
        }
    }

    /** How many attempts a request failing with {@code e} gets in all. */
    private int attemptsFor(Exception e) {
        return GoogleErrors.connectionFailed(e) ? Math.min(maxAttempts, CONNECTION_ATTEMPTS) : maxAttempts;
    }

    private static <K, V> Map<K, Outcome<V>> inOrder(List<K> keys, Map<K, Outcome<V>> done) {
        Map<K, Outcome<V>> out = new LinkedHashMap<>();
        keys.forEach(k -> out.put(k, done.get(k)));
        return out;
    }

    /**
     * How long to wait before retry number {@code attempt}: a random time in [c/2, c] for the backoff ceiling c (from
     * {@code quotaBase} after a spent quota, else from {@code base}), or what Google asked for (Retry-After) when that
     * is longer.
     */
    public long backoffNanos(int attempt, Exception e) {
        Duration retryAfter = GoogleErrors.retryAfter(e);
        Duration first = GoogleErrors.rateLimited(e) && !GoogleErrors.concurrencyLimited(e) ? quotaBase : base;
        long ceiling = Math.min(cap.toNanos(), first.toNanos() << Math.min(attempt - 1, 20));
        long jittered = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
        return retryAfter == null ? jittered : Math.max(retryAfter.toNanos(), jittered);
    }
}
