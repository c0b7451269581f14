package dev.agenttools.google;

import java.io.IOException;
import java.io.Serial;

/**
 * Google's answer arrived but cannot be read: malformed JSON, larger than the size read ({@link BoundedBody}),
 * nested deeper than the readers follow, or a value the model cannot hold. Asked again, the same server would send
 * the same bytes, so it is never retried ({@link GoogleErrors#retryable}); it is the {@code internal} error of the
 * request it answered (in a list, that one message's). The message says what was wrong, never the body itself.
 */
public final class UnreadableAnswer extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    public UnreadableAnswer(String message) {
        super(message);
    }

    public UnreadableAnswer(String message, Throwable cause) {
        super(message, cause);
    }
}
