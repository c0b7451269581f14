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
import dev.agenttools.emulator.oauth.OAuthServer;

import java.util.List;

/**
 * Runs one API call (Gmail or Calendar) through what Google checks before answering: the bearer token (which names the
 * user), the route in that user's mailbox or calendars, the user's concurrency limit, the user's quota bucket and the
 * fault model, in that order. Thread-safe.
 */
public final class CallGate {
    private final Users users;
    private final Faults faults;
    private final Counters counters;
    private final OAuthServer oauth;

    public CallGate(Users users, Faults faults, Counters counters, OAuthServer oauth) {
        this.oauth = oauth;
        this.users = users;
        this.faults = faults;
        this.counters = counters;
    }

    /**
     * Answers one call. A concurrency slot taken for it is added to {@code releases}: the caller frees it once the
     * response has "travelled" (after the latency), so that slow calls hold their slot as they do at Google.
     */
    ApiResponse call(ApiRequest request, List<Runnable> releases) {
        counters.apiCalls.increment();
        Users.User user = null;
        boolean calendarCall = CalendarApi.handles(request.path());
        try {
            user = users.user(checkToken(request));
            user.apiCalls.increment();
            Users.Content content = users.content(user);
            boolean calendar = CalendarApi.handles(request.path());
            // a user's paths reach only that user's mailbox: another address in users/{userId} is refused there (403)
            Route route = calendar ? content.calendar().route(request) : content.gmail().route(request);
            String fields = request.param("fields");
            if (fields != null && !fields.isBlank()) {
                FieldMask.parse(fields); // a bad selector is the caller's error, found before any work
            }
            // Gmail's per-user limit on concurrent requests ("Too many concurrent requests for user") is Gmail's:
            // Calendar documents per-minute quotas only, so its calls neither take nor meet a Gmail slot
            if (!calendar) {
                ConcurrencyLimit concurrency = user.concurrency;
                if (!concurrency.tryAcquire()) {
                    counters.concurrencyRejections.increment();
                    user.concurrencyRejections.increment();
                    throw ApiError.tooManyConcurrent();
                }
                releases.add(concurrency::release);
            }
            users.all.tryAcquire(); // never refuses: it only tracks the peak over all users
            releases.add(users.all::release);
            if (!route.quota().tryTake(route.quotaUnits())) {
                counters.quotaRejections.increment();
                user.quotaRejections.increment();
                // Gmail answers a spent per-user quota in two shapes; every second refusal of a user here is the 403
                // one, so that a client's retry path meets both
                throw user.quotaRejections.sum() % 2 == 0
                        ? ApiError.quotaExceededPerUser(calendar ? "calendar-json.googleapis.com" : "gmail.googleapis.com")
                        : ApiError.quotaExhausted();
            }
            int injected = faults.injectedStatus();
            if (injected != 0) {
                counters.faultsInjected.increment();
                throw ApiError.injected(injected);
            }
            return route.answer(request);
        } catch (ApiError e) {
            ApiResponse answer = calendarCall ? ErrorBody.calendar(e) : ErrorBody.of(e);
            if (user != null && answer.status() == 429) {
                user.tooManyRequests.increment();
            }
            return answer;
        } catch (RuntimeException e) {
            // A bug of ours must still look like Google's 500, never a stack trace; the trace goes to stderr.
            System.err.println("emulator: internal error on " + request.method() + " " + request.path() + ": " + e);
            e.printStackTrace(System.err);
            return calendarCall ? ErrorBody.calendar(ApiError.internal()) : ErrorBody.of(ApiError.internal());
        }
    }

    /** The address of the user the call's token belongs to; 401 (or 403 for a missing scope) when it is nobody's. */
    private String checkToken(ApiRequest request) {
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
        OAuthServer.Grant grant = oauth.check(token, CalendarApi.handles(request.path()));
        switch (grant.state()) {
            case VALID -> {
                return grant.user(); // issued by our token endpoint and still good
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
                // a token from elsewhere: a user's fixed token, --token, or (one user, no --token) any token
            }
        }
        String owner = users.ownerOf(token);
        if (owner == null) {
            counters.authFailures.increment();
            throw ApiError.invalidCredentials();
        }
        return owner;
    }
}
