package dev.agenttools.gmail;

import java.util.Objects;

/**
 * Why one email of an answer could not be read, or read only in part, while the rest of the answer stands
 * (the {@code errors} of list, search and get answers). The same failure always gives the same error, whichever
 * fetch strategy met it: no attempt timings, no stack trace, never a token.
 *
 * @param id      the message id
 * @param code    the error code a failed call of this kind would carry: {@code invalid_argument} (Gmail refused
 *                the id), {@code upstream} (Gmail failed on it, retries included), {@code internal} (it came back
 *                but could not be decoded)
 * @param message one line saying what failed
 */
record MessageError(String id, String code, String message) {
    /** Long enough for Google's messages and an exception's; an error line is not a dump. */
    static final int MAX_MESSAGE_CHARS = 300;

    public MessageError {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(code, "code");
        message = oneLine(Objects.requireNonNull(message, "message"));
    }

    /** Gmail's messages and exceptions' may span lines; an agent reads one. */
    private static String oneLine(String text) {
        String line = text.replaceAll("\\s+", " ").strip();
        return line.length() <= MAX_MESSAGE_CHARS ? line : line.substring(0, MAX_MESSAGE_CHARS - 3) + "...";
    }
}
