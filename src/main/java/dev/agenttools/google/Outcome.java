package dev.agenttools.google;

import dev.agenttools.tool.ToolException;

/** What one request (or one part of a batch) came to, after its retries: its value, or the error the caller sees. */
public sealed interface Outcome<V> {
    record Ok<V>(V value) implements Outcome<V> {
    }

    /** @param attempts how many times the request was sent (0: not known, the error came from elsewhere) */
    record Failed<V>(ToolException error, int attempts) implements Outcome<V> {
        public Failed(ToolException error) {
            this(error, 0);
        }
    }

    /** The value, or the error thrown. */
    default V orThrow() {
        return switch (this) {
            case Ok<V> ok -> ok.value();
            case Failed<V> failed -> throw failed.error();
        };
    }
}
