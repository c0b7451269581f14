package dev.agenttools.emulator.api;

/**
 * A failed API call, answered in Google's JSON error format. Thrown by the resources and the admission
 * checks; turned into a response in exactly one place ({@link ErrorBody}).
 *
 * @param status   HTTP status
 * @param reason   Google's {@code errors[].reason}, such as {@code invalidArgument} or {@code notFound}
 * @param domain   Google's {@code errors[].domain}, usually {@code global}
 * @param location the parameter or header at fault, or null
 */
public final class ApiError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int status;
    final String reason;
    final String domain;
    final String location;
    final String locationType;
    /** errors[0].message when Google words it apart from the top message ("Invalid Credentials"), else null. */
    final String itemMessage;
    /** The reason of a {@code google.rpc.ErrorInfo} in {@code details}, as Google adds on auth errors, else null. */
    final String errorInfo;

    private ApiError(int status, String reason, String domain, String message, String location, String locationType) {
        this(status, reason, domain, message, location, locationType, null, null);
    }

    private ApiError(int status, String reason, String domain, String message, String location, String locationType,
                     String itemMessage, String errorInfo) {
        super(message, null, false, false);
        this.status = status;
        this.reason = reason;
        this.domain = domain;
        this.location = location;
        this.locationType = locationType;
        this.itemMessage = itemMessage;
        this.errorInfo = errorInfo;
    }

    /** Google's pointer at the console, which ends the top message of its 401s. */
    private static final String SEE_CONSOLE = " See https://developers.google.com/identity/sign-in/web/devconsole-project.";

    /** Calendar: a time range whose end is not after its start. */
    public static ApiError timeRangeEmpty(String parameter) {
        return new ApiError(400, "timeRangeEmpty", "calendar", "The specified time range is empty.", parameter, "parameter");
    }

    /** Calendar: a sync token that is too old or not Google's; the client must list again without it. */
    public static ApiError fullSyncRequired() {
        return new ApiError(410, "fullSyncRequired", "calendar", "Sync token is no longer valid, a full sync is required.", null, null);
    }

    public static ApiError forbidden(String message) {
        return new ApiError(403, "forbidden", "global", message, null, null);
    }

    public static ApiError badRequest(String parameter, String message) {
        return new ApiError(400, "invalidArgument", "global", message, parameter, parameter == null ? null : "parameter");
    }

    public static ApiError invalidId() {
        return new ApiError(400, "invalidArgument", "global", "Invalid id value", "id", "parameter");
    }

    public static ApiError notFound() {
        return new ApiError(404, "notFound", "global", "Requested entity was not found.", null, null);
    }

    public static ApiError notFound(String message) {
        return new ApiError(404, "notFound", "global", message, null, null);
    }

    public static ApiError methodNotAllowed(String method, String path) {
        return new ApiError(405, "methodNotAllowed", "global",
                "Method " + method + " is not allowed on " + path, null, null);
    }

    /** No token: errors[0] "Login Required." with reason {@code required}, ErrorInfo CREDENTIALS_MISSING (captured). */
    public static ApiError missingCredentials() {
        return new ApiError(401, "required", "global",
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie "
                        + "or other valid authentication credential." + SEE_CONSOLE,
                "Authorization", "header", "Login Required.", "CREDENTIALS_MISSING");
    }

    /** A bad or expired token: errors[0] "Invalid Credentials" (googleapis/google-api-nodejs-client#2665). */
    public static ApiError invalidCredentials() {
        return new ApiError(401, "authError", "global",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other "
                        + "valid authentication credential." + SEE_CONSOLE,
                "Authorization", "header", "Invalid Credentials", null);
    }

    /** A token without the API's scope: "Insufficient Permission", ErrorInfo ACCESS_TOKEN_SCOPE_INSUFFICIENT (php-samples#123). */
    public static ApiError insufficientScopes() {
        return new ApiError(403, "insufficientPermissions", "global", "Request had insufficient authentication scopes.",
                null, null, "Insufficient Permission", "ACCESS_TOKEN_SCOPE_INSUFFICIENT");
    }

    public static ApiError delegationDenied(String userId) {
        return new ApiError(403, "forbidden", "global", "Delegation denied for " + userId, null, null);
    }

    public static ApiError quotaExhausted() {
        return new ApiError(429, "rateLimitExceeded", "global",
                "Resource has been exhausted (e.g. check quota).", null, null);
    }

    /**
     * The per-user rate limit's other real shape: a 403 (captured in mxngls/gmail-cleaner#5, GAM-team/got-your-back#309,
     * elie222/inbox-zero#480). Clients that retry only 429 break on it.
     *
     * @param service {@code gmail.googleapis.com} or {@code calendar-json.googleapis.com}
     */
    public static ApiError quotaExceededPerUser(String service) {
        return new ApiError(403, "rateLimitExceeded", "usageLimits", "Quota exceeded for quota metric 'Queries' and limit "
                + "'Queries per minute per user' of service '" + service + "' for consumer 'project_number:000000000000'.",
                null, null);
    }

    /** Captured with domain {@code global} (googleapis/google-api-dotnet-client#1982). */
    public static ApiError tooManyConcurrent() {
        return new ApiError(429, "rateLimitExceeded", "global", "Too many concurrent requests for user", null, null);
    }

    public static ApiError injected(int status) {
        return status == 503
                ? new ApiError(503, "backendError", "global", "The service is currently unavailable.", null, null)
                : new ApiError(status, "backendError", "global", "Internal error encountered.", null, null);
    }

    /** 413: a request body over a configured limit; the message names the limit and the flag that sets it. */
    public static ApiError tooLarge(String message) {
        return new ApiError(413, "requestTooLarge", "global", message, null, null);
    }

    /**
     * An error Jetty found before the request reached the API (a malformed request line, a URI or headers over the
     * limit, a failure outside our handler): the status Jetty chose, with a message that names it, never a trace.
     */
    public static ApiError http(int status, String message) {
        if (status >= 500) {
            return internal();
        }
        return new ApiError(status, status == 413 ? "requestTooLarge" : "badRequest", "global", message, null, null);
    }

    public static ApiError internal() {
        return new ApiError(500, "backendError", "global", "Internal error encountered.", null, null);
    }

    /** Google's {@code error.status} for an HTTP code. */
    String statusName() {
        return switch (status) {
            case 400 -> "INVALID_ARGUMENT";
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "PERMISSION_DENIED";
            case 404 -> "NOT_FOUND";
            case 405 -> "METHOD_NOT_ALLOWED";
            case 413, 414, 431 -> "INVALID_ARGUMENT";
            case 429 -> "RESOURCE_EXHAUSTED";
            case 503 -> "UNAVAILABLE";
            default -> status < 500 ? "INVALID_ARGUMENT" : "INTERNAL";
        };
    }
}
