package dev.agenttools.google;

import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpResponseException;
import dev.agenttools.tool.ToolException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Set;

/** The one place Google API errors become {@link ToolException}s, and the one place that decides what a retry can fix. */
public final class GoogleErrors {
    private static final Set<String> RATE_REASONS = Set.of("rateLimitExceeded", "userRateLimitExceeded",
            "dailyLimitExceeded", "quotaExceeded");

    /**
     * A bearer token in a message that is not Google's (a library quoting a header): our transport and the token
     * checks keep tokens out already; this is the second lock on the one door every error goes through.
     */
    private static final java.util.regex.Pattern BEARER = java.util.regex.Pattern.compile("(?i)bearer\\s+\\S+");

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
    private static boolean rateLimited(Throwable e) {
        String reason = reason(e);
        return reason != null && RATE_REASONS.contains(reason); // Set.of(...).contains(null) throws
    }

    /** True for what Google says to retry with backoff: 429, 403 rate-limit reasons, 5xx, and lost connections. */
    public static boolean retryable(Throwable e) {
        int status = status(e);
        if (status == 429 || status >= 500) {
            return true;
        }
        if (status == 403) {
            return rateLimited(e);
        }
        return status == 0 && e instanceof IOException && !(e instanceof InterruptedIOException);
    }

    /**
     * Translates a failure of {@code operation} after {@code attempts} tries into the error the caller sees, with
     * the HTTP status, Google's message and the elapsed time. Tokens never appear: Google's messages hold none.
     */
    public static ToolException translate(Throwable e, String operation, int attempts, Deadline deadline) {
        if (e instanceof ToolException t) {
            return t;
        }
        if (e instanceof com.google.api.client.auth.oauth2.TokenResponseException refused) {
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
            case 403 -> rateLimited(e) ? ToolException.Kind.RATE_LIMITED : ToolException.Kind.UNAUTHENTICATED;
            case 404 -> ToolException.Kind.NOT_FOUND;
            case 429 -> ToolException.Kind.RATE_LIMITED;
            case 0 -> e instanceof InterruptedIOException ? ToolException.Kind.DEADLINE : ToolException.Kind.UPSTREAM;
            default -> status >= 500 ? ToolException.Kind.UPSTREAM : ToolException.Kind.INTERNAL;
        };
        String hint = switch (kind) {
            case UNAUTHENTICATED -> status == 401
                    ? "; the access token is missing, expired or revoked: sign in again (agent-tools auth login) or pass a fresh access_token"
                    : "insufficientPermissions".equals(reason(e))
                    ? "; the sign-in lacks a Gmail scope: run 'agent-tools auth login --scopes gmail.readonly,calendar.readonly'"
                    : "; the account or token lacks permission for this call";
            case RATE_LIMITED -> "; Gmail's quota is spent: wait and retry, or lower the request rate";
            default -> "";
        };
        return new ToolException(kind, context + hint, e);
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
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + BEARER.matcher(e.getMessage()).replaceAll("Bearer (not shown)"));
    }
}
