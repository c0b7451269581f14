package dev.agenttools.gmail;

import dev.agenttools.tool.Deadline;

import java.util.List;
import java.util.Locale;

/**
 * How the messages of a list are fetched after messages.list has named them. Every strategy answers one
 * {@link Fetched} per id, in the order of {@code ids}: found, vanished (404), or failed on its own (a 400, a 5xx
 * that retries did not fix), judged by {@link Fetched#ofFailure} alone so that every strategy gives the same
 * answer. What fails the whole call (sign-in, quota, the deadline, cancellation) is thrown, cancelling what is in
 * flight.
 */
interface FetchStrategy {
    /** The names callers choose from; {@code auto} picks per call. */
    List<String> NAMES = List.of("auto", "sequential", "concurrent", "batch");

    String name();

    List<Fetched> fetch(GmailService.Session session, List<String> ids, GmailService.View view, Deadline deadline)
            throws InterruptedException;

    static FetchStrategy named(String name, GmailService service, int count) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "sequential" -> new SequentialFetch(service);
            case "concurrent" -> new ConcurrentFetch(service);
            case "batch" -> new BatchFetch(service);
            // one message gains nothing from fan-out; several go out concurrently over one HTTP/2 connection
            case "auto" -> count <= 1 ? new SequentialFetch(service) : new ConcurrentFetch(service);
            default -> throw new IllegalArgumentException("unknown strategy " + name);
        };
    }
}
