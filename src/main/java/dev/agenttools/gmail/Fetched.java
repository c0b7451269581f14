package dev.agenttools.gmail;

import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.GoogleErrors;
import dev.agenttools.google.Outcome;
import dev.agenttools.tool.ToolException;

import java.util.Set;

/**
 * What fetching one listed message came to. Every fetch strategy answers with these, so that the same failure
 * gives the same answer whichever strategy met it.
 */
sealed interface Fetched {
    /**
     * Failures Gmail reports about one message: they leave the rest of the list standing. Everything else fails
     * the whole call: sign-in and permission (the next get would fail the same way), quota spent after retries
     * (it is the user's, not the message's), the deadline and cancellation.
     */
    Set<ToolException.Kind> PER_MESSAGE = Set.of(ToolException.Kind.INVALID_ARGUMENT, ToolException.Kind.UPSTREAM,
            ToolException.Kind.INTERNAL);

    /**
     * The message, to decode; {@code summary} is its summary when the thread that fetched it has decoded it already
     * (null: not decoded yet, or its decoding failed and is for {@link Salvage} to judge).
     */
    record Found(Message message, EmailSummary summary) implements Fetched {
        Found(Message message) {
            this(message, null);
        }

        /**
         * The message with its summary decoded now, on the thread that fetched it: the summaries of a list are
         * then decoded while the other answers are still on their way, not all after the last one.
         */
        static Found decoding(Message message) {
            try {
                return new Found(message, MessageDecoder.summary(message));
            } catch (RuntimeException | StackOverflowError e) {
                return new Found(message); // Salvage decides what can be read, and names the error
            }
        }
    }

    /** 404: deleted between the list and the get (counted in {@code skipped}). */
    record Vanished() implements Fetched {
    }

    /** This message alone could not be fetched. */
    record Failed(MessageError error) implements Fetched {
    }

    /**
     * What a failed get of listed message {@code id} means for the list; throws {@code failure} when it fails the
     * whole call. A failure without an HTTP answer (Gmail unreachable after retries) is thrown too: it says nothing
     * about this message, and a batch could not pin it on one part anyway. An answer that came but cannot be read
     * ({@link GoogleErrors#unreadable}, never retried) is this message's {@code internal} error.
     *
     * @param failed      the get's failure and how many attempts it had
     * @param maxAttempts the retry policy's limit of attempts: a failure that had fewer was cut short by the deadline
     */
    static Fetched ofFailure(String id, Outcome.Failed<?> failed, int maxAttempts) {
        ToolException failure = failed.error();
        if (failure.kind() == ToolException.Kind.NOT_FOUND) {
            return new Vanished();
        }
        Throwable answer = failure.getCause();
        if (GoogleErrors.unreadable(answer)) {
            // it came but cannot be read (malformed, too large, too deep, a protocol error): this message's alone
            return new Failed(new MessageError(id, ToolException.Kind.INTERNAL.code(),
                    "Gmail's answer for this message could not be read: " + GoogleErrors.message(answer)));
        }
        int status = GoogleErrors.status(answer);
        if (status == 0 || !PER_MESSAGE.contains(failure.kind())) {
            throw failure;
        }
        int attempts = failed.attempts();
        String tries = !GoogleErrors.retryable(answer) || attempts == 0 ? ""
                : attempts >= maxAttempts ? " on all " + maxAttempts + " attempts"
                : attempts == 1 ? " (not retried: no time left)" : " on " + attempts + " attempts (no time left for more)";
        return new Failed(new MessageError(id, failure.kind().code(),
                "Gmail answered HTTP " + status + tries + " when asked for this message: " + GoogleErrors.message(answer)));
    }
}
