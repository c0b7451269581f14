package dev.agenttools.emulator.http;

import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Counters;
import dev.agenttools.emulator.api.ErrorBody;
import dev.agenttools.emulator.api.Faults;
import dev.agenttools.emulator.api.FieldMask;
import dev.agenttools.emulator.api.Route;
import dev.agenttools.emulator.calendar.CalendarApi;
import dev.agenttools.emulator.gmail.GmailApi;
import dev.agenttools.emulator.oauth.OAuthServer;

import java.util.List;

/**
 * Runs one API call (Gmail or Calendar) through what Google checks before answering: the bearer token, the route, the per-user
 * concurrency limit, the quota bucket and the fault model, in that order. Thread-safe.
 */
public final class CallGate {
    private final GmailApi gmail;
    private final CalendarApi calendar;
    private final String acceptedToken;
    private final ConcurrencyLimit concurrency;
    private final Faults faults;
    private final Counters counters;
    private final OAuthServer oauth;

    /** @param acceptedToken the one bearer token accepted besides those our OAuth endpoint issued, or null to accept any non-empty one */
    public CallGate(GmailApi gmail, CalendarApi calendar, String acceptedToken, ConcurrencyLimit concurrency, Faults faults,
                    Counters counters, OAuthServer oauth) {
        this.oauth = oauth;
        this.gmail = gmail;
        this.calendar = calendar;
        this.acceptedToken = acceptedToken;
        this.concurrency = concurrency;
        this.faults = faults;
        this.counters = counters;
    }

    /**
     * Answers one call. A concurrency slot taken for it is added to {@code releases}: the caller frees it once the
     * response has "travelled" (after the latency), so that slow calls hold their slot as they do at Google.
     */
    ApiResponse call(ApiRequest request, List<Runnable> releases) {
        counters.apiCalls.increment();
        try {
            checkToken(request);
            Route route = CalendarApi.handles(request.path()) ? calendar.route(request) : gmail.route(request);
            String fields = request.param("fields");
            if (fields != null && !fields.isBlank()) {
                FieldMask.parse(fields); // a bad selector is the caller's error, found before any work
            }
            if (!concurrency.tryAcquire()) {
                counters.concurrencyRejections.increment();
                throw ApiError.tooManyConcurrent();
            }
            releases.add(concurrency::release);
            if (!route.quota().tryTake(route.quotaUnits())) {
                counters.quotaRejections.increment();
                // Gmail answers a spent per-user quota in two shapes; every second refusal here is the 403 one, so
                // that a client's retry path meets both
                throw counters.quotaRejections.sum() % 2 == 0
                        ? ApiError.quotaExceededPerUser(CalendarApi.handles(request.path()) ? "calendar-json.googleapis.com" : "gmail.googleapis.com")
                        : ApiError.quotaExhausted();
            }
            int injected = faults.injectedStatus();
            if (injected != 0) {
                counters.faultsInjected.increment();
                throw ApiError.injected(injected);
            }
            return route.answer(request);
        } catch (ApiError e) {
            return ErrorBody.of(e);
        } catch (RuntimeException e) {
            // A bug of ours must still look like Google's 500, never a stack trace; the trace goes to stderr.
            System.err.println("emulator: internal error on " + request.method() + " " + request.path() + ": " + e);
            e.printStackTrace(System.err);
            return ErrorBody.of(ApiError.internal());
        }
    }

    private void checkToken(ApiRequest request) {
        String token = null;
        String authorization = request.header("Authorization");
        if (authorization != null && !authorization.isBlank()) {
            if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
                counters.authFailures.increment();
                throw ApiError.invalidCredentials();
            }
            token = authorization.substring(7).strip();
        } else if (request.param("access_token") != null) {
            token = request.param("access_token");
        } else if (request.param("oauth_token") != null) {
            token = request.param("oauth_token");
        }
        if (token == null || token.isEmpty()) {
            counters.authFailures.increment();
            throw ApiError.missingCredentials();
        }
        switch (oauth.state(token, CalendarApi.handles(request.path()))) {
            case VALID -> {
                return; // issued by our token endpoint and still good
            }
            case EXPIRED_OR_REVOKED -> {
                counters.authFailures.increment();
                throw ApiError.invalidCredentials();
            }
            case NO_SCOPE -> {
                counters.authFailures.increment();
                throw ApiError.insufficientScopes();
            }
            case NOT_OURS -> {
                // a token from elsewhere: the --token rule applies
            }
        }
        if (acceptedToken != null && !acceptedToken.equals(token)) {
            counters.authFailures.increment();
            throw ApiError.invalidCredentials();
        }
    }
}
