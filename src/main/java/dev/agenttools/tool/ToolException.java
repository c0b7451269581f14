package dev.agenttools.tool;

import java.time.Duration;
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
        INVALID_ARGUMENT(2, 400, "a param is wrong (the message names it and what is allowed)"),
        NOT_FOUND(3, 404, "no such message, event or calendar for this account"),
        UNAUTHENTICATED(4, 401, "no valid sign-in or token: sign in again (not retried)"),
        RATE_LIMITED(5, 429, "Google's quota or concurrency limit: retry later"),
        UPSTREAM(6, 502, "Google failed, or answered what cannot be read: a later call may work"),
        DEADLINE(7, 504, "the call's timeout_ms passed"),
        INTERNAL(1, 500, "a fault of agent-tools"),
        /** {@code serve} had no room for the request (too many calls in flight and queued) and did not run it: retry later. */
        OVERLOADED(8, 503, "serve had no room for the request: retry later"),
        /**
         * Google refused the call for this account or token (HTTP 403 that is not a rate limit: a scope the sign-in
         * lacks, a mailbox or calendar the account may not read). Apart from {@link #UNAUTHENTICATED} (no valid
         * sign-in at all) so that a caller can tell "sign in again" from "this account may not": neither is rerun.
         */
        PERMISSION_DENIED(9, 403, "Google refused this account or token (403, not a rate limit: a scope the sign-in lacks, "
                + "a mailbox or calendar it may not read; not retried)");

        private final int exitStatus;
        private final int httpStatus;
        private final String meaning;

        Kind(int exitStatus, int httpStatus, String meaning) {
            this.exitStatus = exitStatus;
            this.httpStatus = httpStatus;
            this.meaning = meaning;
        }

        /** What the code tells a caller, in a few words (for tools.list and the MCP instructions). */
        public String meaning() {
            return meaning;
        }

        /** The JSON error code, such as {@code invalid_argument}. */
        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The exit status a one-shot {@code call} ends with. */
        public int exitStatus() {
            return exitStatus;
        }

        /** The HTTP status the HTTP service's {@code /v1/call} answers with. */
        public int httpStatus() {
            return httpStatus;
        }
    }

    private final Kind kind;
    private final boolean sameOnRerun;
    private final String words;
    /** How long the caller should wait before trying again (a rate limit's); null: not said. */
    private final Duration retryAfter;

    public ToolException(Kind kind, String message) {
        this(kind, message, null, false);
    }

    public ToolException(Kind kind, String message, Throwable cause) {
        this(kind, message, cause, false);
    }

    /**
     * @param sameOnRerun the upstream answered something that any rerun of the call, by any strategy, would meet
     *                    again (an answer that cannot be read, a page token sent twice): the fallback router does not
     *                    rerun it (see {@link #sameOnRerun()})
     */
    public ToolException(Kind kind, String message, Throwable cause, boolean sameOnRerun) {
        this(kind, message, cause, sameOnRerun, null);
    }

    private ToolException(Kind kind, String message, Throwable cause, boolean sameOnRerun, String words) {
        this(kind, message, cause, sameOnRerun, words, null);
    }

    private ToolException(Kind kind, String message, Throwable cause, boolean sameOnRerun, String words,
                          Duration retryAfter) {
        super(message, cause);
        this.kind = kind;
        this.sameOnRerun = sameOnRerun;
        this.words = words;
        this.retryAfter = retryAfter;
    }

    /**
     * A {@link Kind#RATE_LIMITED} failure that says when to try again: answered {@code retry_after_ms} in the tool
     * protocol and {@code Retry-After} by the HTTP service.
     *
     * @param retryAfter  how long to wait, positive
     * @param sameOnRerun a rerun any other way would meet it too (the account's quota, which every strategy spends
     *                    alike), so the fallback router does not rerun it
     */
    public static ToolException rateLimited(String message, Duration retryAfter, Throwable cause,
                                            boolean sameOnRerun) {
        if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("a retry-after must be positive, got " + retryAfter);
        }
        return new ToolException(Kind.RATE_LIMITED, message, cause, sameOnRerun, null, retryAfter);
    }

    /** How long the caller should wait before trying again, or null when the failure does not say. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /**
     * {@link #retryAfter} as answers carry it ({@code retry_after_ms}): whole milliseconds, rounded up so that a caller
     * honouring it is not early; null when the failure does not say.
     */
    public Long retryAfterMs() {
        return retryAfter == null ? null : Math.max(1, (retryAfter.toNanos() + 999_999) / 1_000_000);
    }

    /**
     * An {@link Kind#INTERNAL} failure told two ways: {@code words} for a remote caller, {@code detail} for the user on
     * their own machine and for the server's log (see {@link InternalErrors}).
     *
     * @param words  what failed, with no file path, class name or driver text ({@code the habit store cannot be opened})
     * @param detail the whole story: the file, the driver's message, what to do
     */
    public static ToolException internal(String words, String detail, Throwable cause) {
        return new ToolException(Kind.INTERNAL, detail, cause, false, words);
    }

    public static ToolException invalidArgument(String message) {
        return new ToolException(Kind.INVALID_ARGUMENT, message);
    }

    public Kind kind() {
        return kind;
    }

    /** What failed, in words a remote caller may be shown (no path, class name or driver text); null: none given. */
    public String words() {
        return words;
    }

    /**
     * True when the failure is in what the upstream sends, the same to every strategy, so a rerun the surer way would
     * only spend the caller's time and quota to fail the same: {@link FallbackInterceptor} passes it on at once.
     */
    public boolean sameOnRerun() {
        return sameOnRerun;
    }
}
