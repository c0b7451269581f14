package dev.agenttools.server.oauth;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code GET /oauth/authorize} and {@code GET /oauth/callback}: the client's authorization request is checked, then the
 * browser is sent on to Google's consent with this server's own {@code state} and PKCE; Google's answer comes back to
 * the callback, its code is traded for the user's Google tokens, and the browser goes back to the client with a code
 * of this server's. Until the client and its redirect URI are known to go together, errors are answered here (400 with
 * JSON) and never sent to the redirect URI (RFC 6749 section 4.1.2.1); after, they go to the client.
 */
final class Authorization {
    /** How long a user may take at Google's consent. */
    static final Duration PENDING_LIFETIME = Duration.ofMinutes(10);
    /** How long a code of ours may wait to be traded (RFC 6749 section 4.1.2 recommends at most 10 minutes). */
    static final Duration CODE_LIFETIME = Duration.ofSeconds(60);
    /** S256 of 32 bytes or more, base64url: RFC 7636's 43 characters. */
    private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9_-]{43}");
    private static final int MAX_STATE_LENGTH = 1_000;

    private final OAuthSettings settings;
    private final OAuthStore store;
    private final TokenCipher cipher;
    private final Google google;
    private final GoogleTokens googleTokens;
    private final Clock clock;

    Authorization(OAuthSettings settings, OAuthStore store, TokenCipher cipher, Google google, GoogleTokens googleTokens, Clock clock) {
        this.settings = settings;
        this.store = store;
        this.cipher = cipher;
        this.google = google;
        this.googleTokens = googleTokens;
        this.clock = clock;
    }

    void authorize(Request request, Response response, Callback callback) throws SQLException {
        Params p = Params.query(request);
        String clientId;
        String redirect;
        OAuthStore.Client client;
        try {
            clientId = p.get("client_id");
            redirect = p.get("redirect_uri");
        } catch (Params.Bad bad) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", bad.getMessage());
            return;
        }
        client = clientId == null || clientId.length() > Secrets.MAX_LENGTH ? null : store.client(clientId, clock.instant());
        if (client == null) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", clientId == null ? "client_id is missing"
                    : "client_id is not a client registered here (register at " + settings.issuer() + Metadata.REGISTER + ")");
            return;
        }
        if (redirect == null && client.redirectUris().size() == 1) {
            redirect = client.redirectUris().getFirst();
        }
        if (redirect == null || !client.redirectUris().contains(redirect)) { // exact string match (RFC 9700 section 4.1.3)
            OAuthAnswers.error(response, callback, 400, "invalid_request", redirect == null
                    ? "redirect_uri is missing (the client registered several)"
                    : "redirect_uri is not one registered for this client (they are matched exactly)");
            return;
        }
        // from here on the client's redirect URI is known to be its own: errors go back to it
        String clientState = null;
        try {
            clientState = p.get("state");
            if (clientState != null && clientState.length() > MAX_STATE_LENGTH) {
                clientState = null;
                throw new Params.Bad("state is over " + MAX_STATE_LENGTH + " characters");
            }
            if (!"code".equals(p.get("response_type"))) {
                back(response, callback, redirect, clientState, "unsupported_response_type", "response_type must be code");
                return;
            }
            String challenge = p.get("code_challenge");
            if (challenge == null) {
                back(response, callback, redirect, clientState, "invalid_request", "code_challenge is required (PKCE with S256)");
                return;
            }
            if (!"S256".equals(p.get("code_challenge_method"))) {
                back(response, callback, redirect, clientState, "invalid_request", "code_challenge_method must be S256");
                return;
            }
            if (!CHALLENGE.matcher(challenge).matches()) {
                back(response, callback, redirect, clientState, "invalid_request",
                        "code_challenge must be 43 characters of base64url (the S256 of the verifier)");
                return;
            }
            String scope;
            try {
                scope = Scopes.parse(p.get("scope"));
            } catch (Scopes.Unknown unknown) {
                back(response, callback, redirect, clientState, "invalid_scope", unknown.getMessage());
                return;
            }
            String resource = p.get("resource");
            if (resource != null && !sameResource(resource)) {
                back(response, callback, redirect, clientState, "invalid_target", "resource must be " + settings.resource());
                return;
            }
            String loginHint = p.get("login_hint");
            String state = Secrets.next(Secrets.STATE);
            String stateDigest = Secrets.digest(state);
            String verifier = Secrets.verifier();
            store.putPending(stateDigest, new OAuthStore.Pending(clientId, redirect, clientState, challenge, scope,
                    settings.resource(), cipher.seal(verifier, stateDigest), clock.instant().plus(PENDING_LIFETIME)));
            response.setStatus(302);
            response.getHeaders().put(org.eclipse.jetty.http.HttpHeader.LOCATION,
                    google.consent(state, Secrets.s256(verifier), loginHint == null || loginHint.length() > 320 ? null : loginHint).toString());
            response.getHeaders().put(org.eclipse.jetty.http.HttpHeader.CACHE_CONTROL, "no-store");
            response.write(true, null, callback);
        } catch (Params.Bad bad) {
            back(response, callback, redirect, clientState, "invalid_request", bad.getMessage());
        }
    }

    void callback(Request request, Response response, Callback callback) throws SQLException {
        Params p = Params.query(request);
        String state;
        String error;
        String code;
        try {
            state = p.get("state");
            error = p.get("error");
            code = p.get("code");
        } catch (Params.Bad bad) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", bad.getMessage());
            return;
        }
        String stateDigest = state == null || state.length() > Secrets.MAX_LENGTH ? null : Secrets.digest(state);
        OAuthStore.Pending pending = stateDigest == null ? null : store.takePending(stateDigest, clock.instant());
        if (pending == null) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", (state == null ? "state is missing"
                    : "state is unknown, expired or already used") + "; start the sign-in again from the MCP client");
            return;
        }
        if (error != null || code == null) {
            back(response, callback, pending.redirectUri(), pending.clientState(), "access_denied",
                    error != null ? "the user or Google declined the sign-in at Google" : "Google sent no code");
            return;
        }
        Google.Tokens tokens;
        String account;
        try {
            tokens = google.exchange(code, cipher.open(pending.googleVerifier(), stateDigest));
            account = google.account(tokens.accessToken());
        } catch (Google.Refused refused) {
            back(response, callback, pending.redirectUri(), pending.clientState(), "access_denied", "Google refused its code");
            return;
        } catch (Google.Unavailable unavailable) {
            System.err.println("agent-tools server: a sign-in failed: " + unavailable.getMessage());
            back(response, callback, pending.redirectUri(), pending.clientState(), "temporarily_unavailable",
                    "Google could not be reached to finish the sign-in; try again");
            return;
        } catch (TokenCipher.Unreadable unreadable) {
            System.err.println("agent-tools server: a sign-in failed: the pending sign-in " + unreadable.getMessage());
            back(response, callback, pending.redirectUri(), pending.clientState(), "server_error",
                    "the sign-in under way cannot be read (the server's keys changed?); try again");
            return;
        }
        if (tokens.refreshToken() == null && store.googleRefreshToken(account) == null) {
            back(response, callback, pending.redirectUri(), pending.clientState(), "server_error",
                    "Google sent no refresh token for the account; remove the app's access at Google and sign in again");
            return;
        }
        googleTokens.signedIn(account, tokens);
        String ours = Secrets.next(Secrets.CODE);
        store.putCode(Secrets.digest(ours), new OAuthStore.Code(pending.clientId(), pending.redirectUri(), pending.challenge(),
                pending.scope(), pending.resource(), account, clock.instant().plus(CODE_LIFETIME)));
        Map<String, String> q = new LinkedHashMap<>();
        q.put("code", ours);
        if (pending.clientState() != null) {
            q.put("state", pending.clientState());
        }
        q.put("iss", settings.issuer()); // RFC 9207: the client can tell which server answered
        OAuthAnswers.redirect(response, callback, pending.redirectUri(), q);
    }

    /** RFC 8707's resource as this server names {@code /mcp} (a trailing slash is the same resource). */
    boolean sameResource(String resource) {
        return resource.equals(settings.resource()) || resource.equals(settings.resource() + "/");
    }

    private void back(Response response, Callback callback, String redirect, String clientState, String error, String description) {
        Map<String, String> q = new LinkedHashMap<>();
        q.put("error", error);
        q.put("error_description", description);
        if (clientState != null) {
            q.put("state", clientState);
        }
        q.put("iss", settings.issuer());
        OAuthAnswers.redirect(response, callback, redirect, q);
    }
}
