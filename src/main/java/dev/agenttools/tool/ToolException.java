package dev.agenttools.tool;

import java.util.Locale;

/**
 * The one exception type for a failed tool call. Its {@link Kind} maps one-to-one to the JSON error code
 * and the process exit status; its message carries the state needed to debug without a rerun (tool,
 * operation, HTTP status, attempt, elapsed time), never a token.
 */
public final class ToolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, as agents need to know it: fix the input, sign in again, wait, or report. */
    public enum Kind {
        INVALID_ARGUMENT(2), NOT_FOUND(3), UNAUTHENTICATED(4), RATE_LIMITED(5), UPSTREAM(6), DEADLINE(7), INTERNAL(1),
        /** {@code serve} had no room for the request (too many calls in flight and queued) and did not run it: retry later. */
        OVERLOADED(8);

        private final int exitStatus;

        Kind(int exitStatus) {
            this.exitStatus = exitStatus;
        }

        /** The JSON error code, such as {@code invalid_argument}. */
        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }

        public int exitStatus() {
            return exitStatus;
        }
    }

    private final Kind kind;

    public ToolException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public ToolException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public static ToolException invalidArgument(String message) {
        return new ToolException(Kind.INVALID_ARGUMENT, message);
    }

    public Kind kind() {
        return kind;
    }
}
