package dev.agenttools.google;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.google.api.client.auth.oauth2.TokenResponseException;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpResponseException;
import com.google.gson.JsonParseException;
import com.google.gson.stream.MalformedJsonException;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The one place Google API errors become {@link ToolException}s, and the one place that decides what a retry can fix. */
public final class GoogleErrors {
    private static final Set<String> RATE_REASONS = Set.of("rateLimitExceeded", "userRateLimitExceeded",
            "dailyLimitExceeded", "quotaExceeded");

    /**
     * A bearer token in a message that is not Google's (a library quoting a header): our transport and the token
     * checks keep tokens out already; this is the second lock on the one door every error goes through.
     */
    private static final Pattern BEARER = Pattern.compile("(?i)bearer\\s+\\S+");

    private GoogleErrors() {
    }

    /** HTTP status of a Google error, or 0 for a transport failure. */
    public static int status(Throwable e) {
        return e instanceof HttpResponseException h ? h.getStatusCode() : 0;
    }

    static String reason(Throwable e) {
        if (e instanceof GoogleJsonResponseException g && g.getDetails() != null && g.getDetails().getErrors() != null
                && !g.getDetails().getErrors().isEmpty()) {
            return g.getDetails().getErrors().getFirst().getReason();
        }
        return null;
    }

    /** A 403 that means "slow down", not "not allowed". A 403 without a reason (no JSON errors list) is not one. */
    private static boolean rateReason(Throwable e) {
        String reason = reason(e);
        return reason != null && RATE_REASONS.contains(reason); // Set.of(...).contains(null) throws
    }

    /** Gmail saying "slow down": a 429, or a 403 with a rate-limit reason. */
    public static boolean rateLimited(Throwable e) {
        int status = status(e);
        return status == 429 || status == 403 && rateReason(e);
    }

    /**
     * A rate limit on calls in flight ("Too many concurrent requests for user"), as opposed to one on quota units:
     * Gmail gives both the same status and reason, and only its message tells them apart.
     */
    public static boolean concurrencyLimited(Throwable e) {
        return rateLimited(e) && message(e).toLowerCase(Locale.ROOT).contains("concurrent");
    }

    /** "User-rate limit exceeded.  Retry after 2023-03-07T18:03:15.961Z": Gmail's retry time, in its message text. */
    private static final Pattern RETRY_AFTER_TEXT =
            Pattern.compile("(?i)retry after (\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z)");

    /**
     * How long Google asked us to wait: the Retry-After header (seconds or an HTTP date), else the time in a
     * "Retry after ..." message; null when it asked nothing (or a time already past).
     */
    public static Duration retryAfter(Throwable e) {
        return retryAfter(e, Instant.now());
    }

    static Duration retryAfter(Throwable e, Instant now) {
        Instant until = null;
        if (e instanceof HttpResponseException h && h.getHeaders() != null && h.getHeaders().getRetryAfter() != null) {
            String v = h.getHeaders().getRetryAfter().strip();
            if (v.matches("\\d{1,9}")) {
                return Duration.ofSeconds(Long.parseLong(v));
            }
            try {
                until = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            } catch (DateTimeParseException ignored) {
                // neither form: the backoff stands in
            }
        }
        if (until == null && status(e) != 0) {
            Matcher m = RETRY_AFTER_TEXT.matcher(message(e));
            if (m.find()) {
                try {
                    until = Instant.parse(m.group(1));
                } catch (DateTimeParseException ignored) {
                    // not a time after all
                }
            }
        }
        if (until == null || !until.isAfter(now)) {
            return null;
        }
        // a server's clock may be far off ours: never wait more than an hour on its word
        return Duration.between(now, until).compareTo(Duration.ofHours(1)) > 0
                ? Duration.ofHours(1) : Duration.between(now, until);
    }

    /**
     * True for what Google says to retry with backoff: 429, 403 rate-limit reasons, 5xx, and lost connections; never
     * an answer that came but cannot be read ({@link #unreadable}), which would come the same again.
     */
    public static boolean retryable(Throwable e) {
        int status = status(e);
        if (status == 429 || status >= 500) {
            return true;
        }
        if (status == 403) {
            return rateReason(e);
        }
        return status == 0 && e instanceof IOException && !(e instanceof InterruptedIOException) && !unreadable(e);
    }

    /**
     * No connection could be made (refused, unknown host, no route, none made in time): the server is not there for
     * now, which a retry a moment later rarely changes, and which every strategy meets alike.
     */
    static boolean connectionFailed(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException || t instanceof UnknownHostException
                    || t instanceof NoRouteToHostException
                    || t instanceof UnresolvedAddressException) {
                return true;
            }
        }
        return false;
    }

    /**
     * No answer came in time: a request's timeout (at most what was left of the call's deadline) passed, waiting for
     * the answer or for the connection.
     */
    static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpTimeoutException || t instanceof Unreachable u && u.timedOut()) {
                return true;
            }
        }
        return false;
    }

    /**
     * An answer that came but cannot be read, which a retry would read the same way: an {@link UnreadableAnswer}
     * (malformed or oversized, from our readers), a parse failure of the Google client's own JSON parser (Gson's), or
     * an HTTP protocol error. The JDK's HTTP client reports every protocol error it detects in what the server sent as
     * a {@link java.net.ProtocolException} (HTTP/2 frames: {@code Http2Connection.protocolError}, a stream's headers:
     * {@code Stream}; HTTP/1.1 status line and headers: {@code Http1HeaderParser}), and {@code HttpClientImpl.send}
     * keeps that type; a server that resets our stream for a protocol error ({@code Received RST_STREAM: Protocol
     * error}) says the request itself breaks the protocol. A lost connection ({@code EOFException}, a reset) or any
     * other reset code stays retryable.
     */
    public static boolean unreadable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnreadableAnswer || t instanceof ProtocolException
                    || t instanceof JsonParseException || t instanceof MalformedJsonException
                    || t instanceof JsonProcessingException
                    || t instanceof IOException && t.getMessage() != null && t.getMessage().startsWith("Received RST_STREAM: Protocol error")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Translates a failure of {@code operation} after {@code attempts} tries into the error the caller sees, with
     * the HTTP status, Google's message and the elapsed time. Tokens never appear: Google's messages hold none.
     */
    public static ToolException translate(Throwable e, String operation, int attempts, Deadline deadline) {
        if (e instanceof ToolException t) {
            return t;
        }
        if (e instanceof TokenResponseException refused) {
            String why = refused.getDetails() == null ? "HTTP " + refused.getStatusCode()
                    : refused.getDetails().getError() + (refused.getDetails().getErrorDescription() == null ? ""
                    : ": " + refused.getDetails().getErrorDescription());
            return new ToolException(ToolException.Kind.UNAUTHENTICATED, operation + ": Google refused to refresh the stored "
                    + "sign-in (" + why + "); it was revoked or has expired: run 'agent-tools auth login' again", e);
        }
        int status = status(e);
        String google = message(e);
        String context = operation + " failed" + (status > 0 ? " with HTTP " + status : "") + ": " + google
                + " (attempt " + attempts + ", " + deadline.elapsed().toMillis() + " ms)";
        ToolException.Kind kind = switch (status) {
            case 400 -> ToolException.Kind.INVALID_ARGUMENT;
            case 401 -> ToolException.Kind.UNAUTHENTICATED;
            case 403 -> rateReason(e) ? ToolException.Kind.RATE_LIMITED : ToolException.Kind.PERMISSION_DENIED;
            case 404 -> ToolException.Kind.NOT_FOUND;
            case 429 -> ToolException.Kind.RATE_LIMITED;
            case 0 -> e instanceof InterruptedIOException ? ToolException.Kind.DEADLINE
                    : unreadable(e) ? ToolException.Kind.INTERNAL : ToolException.Kind.UPSTREAM;
            default -> status >= 500 ? ToolException.Kind.UPSTREAM : ToolException.Kind.INTERNAL;
        };
        String hint = switch (kind) {
            case UNAUTHENTICATED -> "; the access token is missing, expired or revoked: sign in again (agent-tools auth login) or pass a fresh access_token";
            case PERMISSION_DENIED -> "insufficientPermissions".equals(reason(e))
                    ? "; the sign-in lacks this API's scope (Gmail's or Calendar's): run 'agent-tools auth login --scopes gmail.readonly,calendar.readonly'"
                    : "; the account or token lacks permission for this call";
            case RATE_LIMITED -> concurrencyLimited(e) ? "; too many of the user's requests were in flight at once: retry when fewer are"
                    : "; the user's Google quota is spent: wait and retry, or lower the request rate";
            default -> "";
        };
        return new ToolException(kind, context + hint, e, status == 0 && unreadable(e));
    }

    /**
     * The error for a failure that retries did not fix, after {@code attempts}: {@link #translate}d (the last status,
     * Google's message, the attempt and the elapsed time), then why it was not tried again while attempts were left
     * ({@code outOfTime}: the next attempt would start past the deadline), and for a rate limit how long to wait
     * ({@link ToolException#retryAfter}: the backoff that would have come next, which is Google's Retry-After when
     * that is longer). The fallback router does not rerun it ({@link ToolException#sameOnRerun}): a 5xx, a connection
     * that fails or a spent quota that outlasted the retries meets every strategy alike; only a refusal for too many
     * requests in flight may spare a sequential rerun, which sends one at a time.
     *
     * @param nextWaitNanos the backoff before the next attempt, had there been one
     */
    static ToolException givenUp(Throwable e, String operation, int attempts, Deadline deadline, long nextWaitNanos,
                                 boolean outOfTime) {
        ToolException t = translate(e, operation, attempts, deadline);
        if (e instanceof ToolException) {
            return t;
        }
        long nextMs = Math.ceilDiv(nextWaitNanos, 1_000_000L);
        String message = t.getMessage() + (outOfTime ? "; not tried again: the next attempt, " + nextMs
                + " ms from now, would start past the deadline of " + deadline.budget().toMillis() + " ms" : "");
        boolean rerunMayHelp = concurrencyLimited(e);
        if (t.kind() == ToolException.Kind.RATE_LIMITED) {
            Duration asked = retryAfter(e);
            return ToolException.rateLimited(message + "; retry after " + nextMs + " ms"
                            + (asked == null ? "" : " (Google asked for " + asked.toMillis() + " ms)"),
                    Duration.ofMillis(Math.max(1, nextMs)), e, !rerunMayHelp);
        }
        return new ToolException(t.kind(), message, e, !rerunMayHelp || t.sameOnRerun());
    }

    /**
     * Google's own words for a failure ({@code Invalid id value}), or the exception's class and message when Google
     * said nothing: no operation, attempt or elapsed time, so the same failure always reads the same.
     */
    public static String message(Throwable e) {
        if (e instanceof GoogleJsonResponseException g) {
            GoogleJsonError details = g.getDetails();
            if (details != null && details.getMessage() != null) {
                return details.getMessage();
            }
        }
        if (e instanceof HttpResponseException h) {
            return h.getStatusMessage() == null ? "no message" : h.getStatusMessage();
        }
        if (e instanceof UnreadableAnswer || e instanceof Unreachable) {
            return e.getMessage(); // our own words
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + BEARER.matcher(e.getMessage()).replaceAll("Bearer (not shown)"));
    }
}
