package dev.agenttools.server.oauth;

import dev.agenttools.tool.Diagnostics;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolSpec;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.ObjIntConsumer;

/**
 * MCP authorization on the server (docs/mcp-authorization.md): the authorization server's endpoints as a Jetty handler,
 * and {@link #check} of the tokens it issued, for {@code /mcp}. Opens its store at creation and closes it at
 * {@link #close}. Public only for the service (internal). Thread-safe.
 */
public final class AuthorizationServer implements AutoCloseable {
    /** How often, at most, expired rows are deleted (on the way of a token being issued or a client registered). */
    private static final Duration PURGE_EVERY = Duration.ofMinutes(1);

    /** What {@link #check} decided. */
    public sealed interface Check {
        /**
         * A token of ours for this resource: the tools run as {@code account} with its Google access token, and only
         * those the token's {@code scope} allows.
         */
        record Admitted(String account, String googleAccessToken, String scope, String grant) implements Check {
            @Override
            public String toString() {
                return "Admitted[account=" + account + ", scope=" + scope + ", grant=" + grant + ", (token not shown)]";
            }
        }

        /**
         * Refused: answer {@code status} with {@code wwwAuthenticate} (null: none) and the RFC 6749-shaped {@code json}.
         *
         * @param reason for the refusal counter (invalid_token, unavailable)
         */
        record Refused(int status, String wwwAuthenticate, String json, String reason) implements Check {
        }
    }

    private final OAuthSettings settings;
    private final OAuthStore store;
    private final GoogleTokens googleTokens;
    private final Registration registration;
    private final Authorization authorization;
    private final TokenEndpoint tokens;
    private final Clock clock;
    private final Limits limits;
    private final RateLimiter registerLimit;
    /** Registrations from all addresses together, under one key. */
    private final RateLimiter registerAllLimit;
    private final RateLimiter authorizeLimit;
    private final RateLimiter tokenLimit;
    private final TrustedProxies proxies;
    /** What each tool needs, by registry command (Scopes.needs of the specs the server was opened with). */
    private final Map<String, Scopes.Need> needs;
    private final StepUps stepUps;
    private final String protectedResource;
    private final String authorizationServer;
    private volatile Instant purgedAt = Instant.MIN;

    private AuthorizationServer(OAuthSettings settings, OAuthStore store, Clock clock, Limits limits,
                                Map<String, Scopes.Need> needs) {
        this.settings = settings;
        this.needs = needs;
        this.stepUps = new StepUps(StepUps.MAX_ENTRIES, StepUps.WINDOW);
        this.store = store;
        this.clock = clock;
        this.limits = limits;
        this.registerLimit = new RateLimiter(limits.register(), clock, limits.maxAddresses());
        this.registerAllLimit = new RateLimiter(limits.registerAll(), clock, 1);
        this.authorizeLimit = new RateLimiter(limits.authorize(), clock, limits.maxAddresses());
        this.tokenLimit = new RateLimiter(limits.token(), clock, limits.maxAddresses());
        this.proxies = new TrustedProxies(settings.trustedProxies());
        TokenCipher cipher = new TokenCipher(settings.keys());
        Google google = new Google(settings);
        this.googleTokens = new GoogleTokens(store, cipher, google, clock);
        this.registration = new Registration(store, clock, limits);
        this.authorization = new Authorization(settings, store, cipher, google, googleTokens, clock);
        this.tokens = new TokenEndpoint(settings, store, authorization, stepUps, clock);
        this.protectedResource = Json.write(Metadata.protectedResource(settings));
        this.authorizationServer = Json.write(Metadata.authorizationServer(settings));
    }

    /**
     * Opens the store and gets ready to issue tokens for the tools of {@code specs} (the registry's: what each needs
     * follows from its family and declared effect, {@link Scopes}).
     *
     * @throws IllegalArgumentException naming {@code AGENT_TOOLS_SERVER_OAUTH_STORE} when the SQLite store file is
     *                                  refused (a link, someone else's, in a folder others write) or cannot be made: a
     *                                  setting to fix; naming a tool of {@code specs} that no scope covers
     * @throws IOException              naming the store when SQLite cannot open it, or when a DynamoDB table is
     *                                  missing in AWS or cannot be reached
     */
    public static AuthorizationServer open(OAuthSettings settings, Clock clock, List<ToolSpec> specs) throws IOException {
        return open(settings, clock, Limits.DEFAULT, specs);
    }

    /** With other limits (the tests' small ones). */
    static AuthorizationServer open(OAuthSettings settings, Clock clock, Limits limits, List<ToolSpec> specs)
            throws IOException {
        Map<String, Scopes.Need> needs = Scopes.needs(specs); // before the store is opened: nothing to close
        try {
            return new AuthorizationServer(settings, OAuthStore.open(settings), clock, limits, needs);
        } catch (OAuthStore.Unavailable e) {
            throw new IOException(e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("AGENT_TOOLS_SERVER_OAUTH_STORE " + settings.store() + ": " + e.getMessage(), e);
        } catch (SQLException e) {
            throw new IOException("the OAuth store " + settings.store() + " cannot be opened: " + e.getMessage(), e);
        }
    }

    public String resource() {
        return settings.resource();
    }

    /**
     * Checks an {@code Authorization} header on {@code /mcp}: a token of ours, not expired, issued for this resource,
     * whose user's Google sign-in still holds. Never echoes the token.
     */
    public Check check(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return unauthorized(null, "a bearer token is required: sign in through " + settings.authorizationServerMetadataUrl());
        }
        String token = authorization.substring(7).strip();
        try {
            OAuthStore.Grant grant = token.isEmpty() || token.length() > Secrets.MAX_LENGTH ? null
                    : store.accessToken(Secrets.digest(token), clock.instant());
            if (grant == null) {
                return unauthorized("invalid_token", "the access token is unknown, expired or revoked");
            }
            if (!grant.resource().equals(settings.resource())) {
                return unauthorized("invalid_token", "the access token was issued for another resource");
            }
            return new Check.Admitted(grant.account(), googleTokens.accessToken(grant.account()), grant.scope(), grant.grant());
        } catch (GoogleTokens.SignedOut signedOut) {
            return unauthorized("invalid_token", "the user's Google sign-in has ended; sign in again");
        } catch (Google.Unavailable unavailable) {
            Diagnostics.line("agent-tools server: " + unavailable.getMessage());
            return new Check.Refused(503, null, Json.write(OAuthAnswers.error("temporarily_unavailable",
                    "Google could not be reached to refresh the user's access; retry")), "unavailable");
        } catch (SQLException e) {
            Diagnostics.line("agent-tools server: the OAuth store failed: " + e.getMessage());
            return new Check.Refused(503, null, Json.write(OAuthAnswers.error("temporarily_unavailable",
                    "the server's token store is unavailable; retry")), "unavailable");
        }
    }

    /**
     * Whether an admitted token may call the tool {@code command}: null when its scope has what the tool needs (its
     * family's read or write scope, by the tool's declared effect: {@link Scopes}), else 403 {@code insufficient_scope}
     * naming the scope to ask for (RFC 6750 section 3.1; MCP authorization's scope challenge: the token's scope and the
     * tool's together, so that a client which asks for exactly the scope named keeps what it had). The refusal is
     * remembered for the token's grant a short while ({@link StepUps}), so that a client which answers it with a
     * refresh (MCP TypeScript SDK 1.x) is told to authorize again instead of being given the same scope.
     */
    public Check.Refused scopeRefusal(Check.Admitted admitted, String command) {
        Scopes.Need need = needs.get(command);
        if (need != null && Scopes.allows(admitted.scope(), need)) {
            return null;
        }
        if (need == null) { // not a tool of the registry the server was opened with: nothing allows it
            String description = "no scope of this server allows " + command;
            return new Check.Refused(403, null, Json.write(OAuthAnswers.error("insufficient_scope",
                    description)), "insufficient_scope");
        }
        String wider = Scopes.union(admitted.scope(), List.of(need.ask()));
        stepUps.asked(admitted.grant(), wider, clock.instant());
        String description = "the token's scope (" + admitted.scope() + ") lacks " + need.ask() + ", which " + command
                + " needs; sign in again with it";
        return new Check.Refused(403, Metadata.scopeChallenge(settings, wider, description),
                Json.write(OAuthAnswers.error("insufficient_scope", description)), "insufficient_scope");
    }

    /**
     * Google refused the account's access token {@code refused} in a call: refreshed at once (one refresh per account
     * at a time), so that the call runs again with the new token, or, when Google refuses the refresh too (the user
     * revoked the grant), 401 {@code invalid_token}, which sends the MCP client to sign in again.
     *
     * @return {@link Check.Admitted} with the new token, {@link Check.Refused} 401, or null when Google or the store
     *         cannot be reached (the call's error stands; the next request tries again)
     */
    public Check afterGoogleRefused(Check.Admitted admitted, String refused) {
        try {
            return new Check.Admitted(admitted.account(), googleTokens.renewed(admitted.account(), refused), admitted.scope(),
                    admitted.grant());
        } catch (GoogleTokens.SignedOut signedOut) {
            return unauthorized("invalid_token", "the user's Google sign-in has ended; sign in again");
        } catch (Google.Unavailable unavailable) {
            Diagnostics.line("agent-tools server: " + unavailable.getMessage());
            return null;
        } catch (SQLException e) {
            Diagnostics.line("agent-tools server: the OAuth store failed: " + e.getMessage());
            return null;
        }
    }

    private Check unauthorized(String error, String description) {
        return new Check.Refused(401, Metadata.challenge(settings, error, description),
                Json.write(OAuthAnswers.error(error == null ? "invalid_request" : error, description)),
                "invalid_token");
    }

    /**
     * The endpoints: the two metadata documents, registration, authorize, Google's callback, token and revoke.
     *
     * @param answered told each answer's endpoint and status (for the metrics)
     */
    public Handler handler(ObjIntConsumer<String> answered) {
        return new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                String path = Request.getPathInContext(request);
                String endpoint = endpoint(path, settings.pathPrefix());
                if (endpoint == null) {
                    return false;
                }
                Callback counted = Callback.from(callback, () -> answered.accept(endpoint, response.getStatus()));
                try {
                    route(endpoint, request, response, counted);
                } catch (SQLException e) {
                    Diagnostics.line("agent-tools server: the OAuth store failed at " + endpoint + ": " + e.getMessage());
                    OAuthAnswers.error(response, counted, 503, "temporarily_unavailable", "the server's token store is unavailable; retry");
                }
                return true;
            }
        };
    }

    /**
     * The endpoint a path names, or null. The metadata is answered at the root and in the well-known forms of RFC 9728
     * and RFC 8414 for the public URL's prefix ({@code /.well-known/oauth-protected-resource/agent-tools/mcp},
     * {@code /.well-known/oauth-authorization-server/agent-tools}), which a proxy passes on from the host's root.
     */
    private static String endpoint(String path, String prefix) {
        if (!prefix.isEmpty()) {
            if (path.equals(Metadata.PROTECTED_RESOURCE + prefix + "/mcp")) {
                return Metadata.PROTECTED_RESOURCE;
            }
            if (path.equals(Metadata.AUTHORIZATION_SERVER + prefix)) {
                return Metadata.AUTHORIZATION_SERVER;
            }
        }
        return switch (path) {
            case Metadata.PROTECTED_RESOURCE, Metadata.PROTECTED_RESOURCE + "/mcp" -> Metadata.PROTECTED_RESOURCE;
            case Metadata.AUTHORIZATION_SERVER, Metadata.REGISTER, Metadata.AUTHORIZE, Metadata.CONSENT, Metadata.CALLBACK,
                 Metadata.TOKEN, Metadata.REVOKE -> path;
            default -> null;
        };
    }

    private void route(String endpoint, Request request, Response response, Callback callback) throws SQLException {
        boolean fromPages = !endpoint.equals(Metadata.AUTHORIZE) && !endpoint.equals(Metadata.CALLBACK)
                && !endpoint.equals(Metadata.CONSENT); // the browser's own steps: no other origin reads them
        if (fromPages) {
            OAuthAnswers.allowAnyOrigin(response);
        }
        String method = request.getMethod();
        if (fromPages && method.equals("OPTIONS")) {
            response.setStatus(204);
            response.write(true, null, callback);
            return;
        }
        RateLimiter limiter = switch (endpoint) {
            case Metadata.REGISTER -> registerLimit;
            case Metadata.AUTHORIZE, Metadata.CONSENT, Metadata.CALLBACK -> authorizeLimit;
            case Metadata.TOKEN, Metadata.REVOKE -> tokenLimit;
            default -> null; // the metadata: static documents, cached
        };
        if (limiter != null) {
            Duration wait = limiter.take(proxies.clientAddress(request));
            if (!wait.isZero()) {
                tooMany(response, callback, wait, "too many requests to " + endpoint + " from this address (at most "
                        + limiter.rate() + ")");
                return;
            }
        }
        if (limiter == registerLimit) {
            // after the address's own limit, so that one address past it takes nothing from everyone else's
            Duration wait = registerAllLimit.take("all");
            if (!wait.isZero()) {
                tooMany(response, callback, wait, "too many registrations at " + endpoint + " from all addresses together"
                        + " (at most " + registerAllLimit.rate() + ")");
                return;
            }
            purgeNowAndThen(); // what a flood made goes within minutes, even when no sign-in comes to purge it
        }
        boolean post = endpoint.equals(Metadata.REGISTER) || endpoint.equals(Metadata.TOKEN) || endpoint.equals(Metadata.REVOKE)
                || endpoint.equals(Metadata.CONSENT);
        if (!method.equals(post ? "POST" : "GET")) {
            response.getHeaders().put(HttpHeader.ALLOW, post ? "POST" : "GET");
            OAuthAnswers.error(response, callback, 405, "invalid_request", endpoint + " takes " + (post ? "POST" : "GET"));
            return;
        }
        switch (endpoint) {
            case Metadata.PROTECTED_RESOURCE -> document(response, callback, protectedResource);
            case Metadata.AUTHORIZATION_SERVER -> document(response, callback, authorizationServer);
            case Metadata.REGISTER -> registration.handle(request, response, callback);
            case Metadata.AUTHORIZE -> authorization.authorize(request, response, callback);
            case Metadata.CONSENT -> authorization.consent(request, response, callback);
            case Metadata.CALLBACK -> authorization.callback(request, response, callback);
            case Metadata.TOKEN -> {
                purgeNowAndThen();
                tokens.token(request, response, callback);
            }
            default -> tokens.revoke(request, response, callback);
        }
    }

    private static void tooMany(Response response, Callback callback, Duration wait, String what) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(seconds));
        OAuthAnswers.error(response, callback, 429, "temporarily_unavailable", what + "; retry after " + seconds + " s");
    }

    private static void document(Response response, Callback callback, String json) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json; charset=utf-8");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "max-age=3600");
        response.write(true, ByteBuffer.wrap((json + "\n").getBytes(StandardCharsets.UTF_8)), callback);
    }

    private void purgeNowAndThen() throws SQLException {
        Instant now = clock.instant();
        if (now.isAfter(purgedAt.plus(PURGE_EVERY))) {
            purgedAt = now;
            store.purge(now);
            store.purgeIdleClients(now, now.minus(limits.idleClientAge()));
        }
    }

    @Override
    public void close() {
        try {
            store.close();
        } catch (SQLException e) {
            Diagnostics.line("agent-tools server: closing the OAuth store: " + e.getMessage());
        }
    }
}
