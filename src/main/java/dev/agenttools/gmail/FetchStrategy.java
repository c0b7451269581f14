package dev.agenttools.gmail;

import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.Deadline;

import java.util.List;
import java.util.Locale;

/**
 * How the messages of a list are fetched after messages.list has named them. Every strategy returns the
 * messages in the order of {@code ids}, with null where a message no longer exists, and fails the whole call
 * (cancelling what is in flight) on any other error that retries cannot fix.
 */
interface FetchStrategy {
    /** The names callers choose from; {@code auto} picks per call. */
    List<String> NAMES = List.of("auto", "sequential", "concurrent", "batch");

    String name();

    List<Message> fetch(Gmail gmail, List<String> ids, GmailService.View view, Deadline deadline) throws InterruptedException;

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
