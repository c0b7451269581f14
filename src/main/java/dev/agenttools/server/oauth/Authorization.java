package dev.agenttools.server.oauth;

import dev.agenttools.tool.Diagnostics;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.net.URI;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code GET /oauth/authorize}, {@code POST /oauth/consent} and {@code GET /oauth/callback}: the client's authorization
 * request is checked, then shown to the user on the consent page ({@link ConsentPage}: the client as it registered,
 * unverified, where its redirect URI sends access, the scopes); once approved, the browser is sent on to Google's
 * consent with this server's own {@code state} and PKCE; Google's answer comes back to the callback, its code is
 * traded for the user's Google tokens, and the browser goes back to the client with a code of this server's.
 *
 * <p>Until the user has seen the consent page, every error is shown here (an HTML page for a browser, else JSON) and
 * nothing is sent to the redirect URI (RFC 9700 section 4.11.2: else any registered client would make this server a
 * redirector to its URI without a step for the user). After, errors go to the client (RFC 6749 section 4.1.2.1).
 *
 * <p>An approval is kept per account and client once Google has named the account. A browser that comes back
 * remembered ({@link BrowserCookies}) as an account that approved the client skips the page; the account Google names
 * at the callback must then have approved the client too, else the page is shown there, before any code is issued.
 */
final class Authorization {
    /** How long a user may take on the consent page, and at Google's consent. */
    static final Duration PENDING_LIFETIME = Duration.ofMinutes(10);
    /** How long a code of ours may wait to be traded (RFC 6749 section 4.1.2 recommends at most 10 minutes). */
    static final Duration CODE_LIFETIME = Duration.ofSeconds(60);
    /** S256 of 32 bytes or more, base64url: RFC 7636's 43 characters. */
    private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9_-]{43}");
    private static final int MAX_STATE_LENGTH = 1_000;
    /** An address is at most 320 characters (RFC 3696 errata); a longer hint is not passed on. */
    private static final int MAX_LOGIN_HINT_LENGTH = 320;
    /** The prefix of a consent page's request id (its form's hidden field). */
    static final String CONSENT_REQUEST = "agt_cr_";

    /** A checked authorization request: what the consent page shows and Google's consent is asked for. */
    private record Asked(String clientId, String redirectUri, String clientState, String challenge, String scope,
                         String resource, String loginHint) {
    }

    private final OAuthSettings settings;
    private final OAuthStore store;
    private final TokenCipher cipher;
    private final Google google;
    private final GoogleTokens googleTokens;
    private final Clock clock;
    private final BrowserCookies cookies;
    private final String origin;

    Authorization(OAuthSettings settings, OAuthStore store, TokenCipher cipher, Google google, GoogleTokens googleTokens, Clock clock) {
        this.settings = settings;
        this.store = store;
        this.cipher = cipher;
        this.google = google;
        this.googleTokens = googleTokens;
        this.clock = clock;
        this.cookies = new BrowserCookies(settings, cipher);
        URI issuer = URI.create(settings.issuer());
        this.origin = issuer.getScheme() + "://" + issuer.getRawAuthority();
    }

    void authorize(Request request, Response response, Callback callback) throws SQLException {
        Params p = Params.query(request);
        try {
            String clientId = p.get("client_id");
            String redirect = p.get("redirect_uri");
            OAuthStore.Client client = clientId == null || clientId.length() > Secrets.MAX_LENGTH ? null
                    : store.client(clientId, clock.instant());
            if (client == null) {
                refuse(request, response, callback, 400, "invalid_request", clientId == null ? "client_id is missing"
                        : "client_id is not a client registered here (register at " + settings.issuer() + Metadata.REGISTER + ")");
                return;
            }
            if (redirect == null && client.redirectUris().size() == 1) {
                redirect = client.redirectUris().getFirst();
            }
            if (redirect == null || !client.redirectUris().contains(redirect)) { // exact string match (RFC 9700 section 4.1.3)
                refuse(request, response, callback, 400, "invalid_request", redirect == null
                        ? "redirect_uri is missing (the client registered several)"
                        : "redirect_uri is not one registered for this client (they are matched exactly)");
                return;
            }
            // the redirect URI is the client's, but the user has not seen the consent page: errors are still shown here
            String clientState = p.get("state");
            if (clientState != null && clientState.length() > MAX_STATE_LENGTH) {
                refuse(request, response, callback, 400, "invalid_request", "state is over " + MAX_STATE_LENGTH + " characters");
                return;
            }
            if (!"code".equals(p.get("response_type"))) {
                refuse(request, response, callback, 400, "unsupported_response_type", "response_type must be code");
                return;
            }
            String challenge = p.get("code_challenge");
            if (challenge == null) {
                refuse(request, response, callback, 400, "invalid_request", "code_challenge is required (PKCE with S256)");
                return;
            }
            if (!"S256".equals(p.get("code_challenge_method"))) {
                refuse(request, response, callback, 400, "invalid_request", "code_challenge_method must be S256");
                return;
            }
            if (!CHALLENGE.matcher(challenge).matches()) {
                refuse(request, response, callback, 400, "invalid_request",
                        "code_challenge must be 43 characters of base64url (the S256 of the verifier)");
                return;
            }
            String scope;
            try {
                scope = Scopes.parse(p.get("scope"));
            } catch (Scopes.Unknown unknown) {
                refuse(request, response, callback, 400, "invalid_scope", unknown.getMessage());
                return;
            }
            String resource = p.get("resource");
            if (resource != null && !sameResource(resource)) {
                refuse(request, response, callback, 400, "invalid_target", "resource must be " + settings.resource());
                return;
            }
            String loginHint = p.get("login_hint");
            Asked asked = new Asked(clientId, redirect, clientState, challenge, scope, settings.resource(),
                    loginHint == null || loginHint.length() > MAX_LOGIN_HINT_LENGTH ? null : loginHint);
            Instant now = clock.instant();
            String remembered = cookies.remembered(request, now);
            if (remembered != null && store.approved(remembered, clientId, now)) {
                // approved before by the account this browser was last signed in as: checked again at the callback
                toGoogle(response, callback, 302, asked, false, asked.loginHint() != null ? asked.loginHint() : remembered);
            } else {
                showConsent(request, response, callback, client, asked, null);
            }
        } catch (Params.Bad bad) {
            refuse(request, response, callback, 400, "invalid_request", bad.getMessage());
        }
    }

    /**
     * {@code POST /oauth/consent}: the user's answer on the consent page. It must come from our page (its
     * {@code Sec-Fetch-Site} and {@code Origin}, when sent, say so), carry a request id still waiting, and come from the browser the
     * page was shown in (the binding cookie whose digest the request keeps). Deny: {@code access_denied} to the
     * client. Approve: on to Google, or, when Google has named the account already, the approval kept and the code
     * issued.
     */
    void consent(Request request, Response response, Callback callback) throws SQLException {
        // a browser says where the form was posted from: Sec-Fetch-Site (same-origin from our page), and Origin, which
        // is "null" under our Referrer-Policy no-referrer; a client that sends neither must still hold the cookie
        String site = request.getHeaders().get("Sec-Fetch-Site");
        String from = request.getHeaders().get(HttpHeader.ORIGIN);
        if ((site != null && !site.equals("same-origin")) || (from != null && !from.equals("null") && !from.equals(origin))) {
            refuse(request, response, callback, 403, "access_denied", "the answer did not come from this server's consent page");
            return;
        }
        String id;
        String decision;
        try {
            Params form = Params.form(request);
            id = form.get(ConsentPage.REQUEST_FIELD);
            decision = form.get(ConsentPage.DECISION_FIELD);
        } catch (Params.Bad bad) {
            refuse(request, response, callback, 400, "invalid_request", bad.getMessage());
            return;
        }
        if (!ConsentPage.APPROVE.equals(decision) && !ConsentPage.DENY.equals(decision)) {
            refuse(request, response, callback, 400, "invalid_request", "decision must be approve or deny");
            return;
        }
        Instant now = clock.instant();
        OAuthStore.Consent consent = id == null || id.length() > Secrets.MAX_LENGTH ? null : store.takeConsent(Secrets.digest(id), now);
        if (consent == null) {
            refuse(request, response, callback, 400, "invalid_request",
                    "this consent page has expired or was answered already; start the sign-in again from the application");
            return;
        }
        String binding = cookies.binding(request);
        if (binding == null || !Secrets.same(Secrets.digest(binding), consent.browser())) {
            refuse(request, response, callback, 403, "access_denied", "this consent page was not opened in this browser"
                    + " (or its cookie was lost); start the sign-in again from the application");
            return;
        }
        if (store.client(consent.clientId(), clock.instant()) == null) {
            refuse(request, response, callback, 400, "invalid_request", "the client is no longer registered here");
            return;
        }
        Asked asked = new Asked(consent.clientId(), consent.redirectUri(), consent.clientState(), consent.challenge(),
                consent.scope(), consent.resource(), consent.loginHint());
        if (decision.equals(ConsentPage.DENY)) {
            back(response, callback, 303, asked.redirectUri(), asked.clientState(), "access_denied", "the user denied access");
        } else if (consent.account() == null) {
            toGoogle(response, callback, 303, asked, true, asked.loginHint());
        } else {
            issue(response, callback, 303, asked, consent.account(), now);
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
            refuse(request, response, callback, 400, "invalid_request", bad.getMessage());
            return;
        }
        String stateDigest = state == null || state.length() > Secrets.MAX_LENGTH ? null : Secrets.digest(state);
        OAuthStore.Pending pending = stateDigest == null ? null : store.takePending(stateDigest, clock.instant());
        if (pending == null) {
            refuse(request, response, callback, 400, "invalid_request", (state == null ? "state is missing"
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
            Diagnostics.line("agent-tools server: a sign-in failed: " + unavailable.getMessage());
            back(response, callback, pending.redirectUri(), pending.clientState(), "temporarily_unavailable",
                    "Google could not be reached to finish the sign-in; try again");
            return;
        } catch (TokenCipher.Unreadable unreadable) {
            Diagnostics.line("agent-tools server: a sign-in failed: the pending sign-in " + unreadable.getMessage());
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
        Instant now = clock.instant();
        Asked asked = new Asked(pending.clientId(), pending.redirectUri(), pending.clientState(), pending.challenge(),
                pending.scope(), pending.resource(), null);
        if (pending.consented() || store.approved(account, pending.clientId(), now)) {
            issue(response, callback, 302, asked, account, now);
            return;
        }
        // the browser skipped the page as an account that approved the client, but Google signed in another one
        OAuthStore.Client client = store.client(pending.clientId(), clock.instant());
        if (client == null) {
            refuse(request, response, callback, 400, "invalid_request", "the client is no longer registered here");
            return;
        }
        showConsent(request, response, callback, client, asked, account);
    }

    /** RFC 8707's resource as this server names {@code /mcp} (a trailing slash is the same resource). */
    boolean sameResource(String resource) {
        return resource.equals(settings.resource()) || resource.equals(settings.resource() + "/");
    }

    /** Shows the consent page for {@code asked}, bound to this browser. */
    private void showConsent(Request request, Response response, Callback callback, OAuthStore.Client client, Asked asked,
                             String account) throws SQLException {
        String binding = cookies.bind(request, response, PENDING_LIFETIME);
        String id = Secrets.next(CONSENT_REQUEST);
        store.putConsent(Secrets.digest(id), new OAuthStore.Consent(asked.clientId(), asked.redirectUri(), asked.clientState(),
                asked.challenge(), asked.scope(), asked.resource(), asked.loginHint(), Secrets.digest(binding), account,
                clock.instant().plus(PENDING_LIFETIME)));
        ConsentPage.consent(response, callback, settings.issuer() + Metadata.CONSENT,
                new ConsentPage.Shown(client.name(), asked.redirectUri(), asked.scope(), account, id));
    }

    /** On to Google's consent with our own state and PKCE; {@code consented}: the user approved on our page. */
    private void toGoogle(Response response, Callback callback, int status, Asked asked, boolean consented, String loginHint)
            throws SQLException {
        String state = Secrets.next(Secrets.STATE);
        String stateDigest = Secrets.digest(state);
        String verifier = Secrets.verifier();
        store.putPending(stateDigest, new OAuthStore.Pending(asked.clientId(), asked.redirectUri(), asked.clientState(),
                asked.challenge(), asked.scope(), asked.resource(), cipher.seal(verifier, stateDigest),
                clock.instant().plus(PENDING_LIFETIME), consented));
        ConsentPage.secure(response);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.LOCATION, google.consent(state, Secrets.s256(verifier), loginHint).toString());
        response.write(true, null, callback);
    }

    /**
     * The approval of {@code account} for the client kept (or its time renewed), the browser remembered as the
     * account's, and the browser sent back to the client with a code of ours.
     */
    private void issue(Response response, Callback callback, int status, Asked asked, String account, Instant now)
            throws SQLException {
        store.putApproval(account, asked.clientId(), now.plus(BrowserCookies.REMEMBERED_LIFETIME));
        String ours = Secrets.next(Secrets.CODE);
        store.putCode(Secrets.digest(ours), new OAuthStore.Code(asked.clientId(), asked.redirectUri(), asked.challenge(),
                asked.scope(), asked.resource(), account, now.plus(CODE_LIFETIME)));
        cookies.remember(response, account, now);
        Map<String, String> q = new LinkedHashMap<>();
        q.put("code", ours);
        if (asked.clientState() != null) {
            q.put("state", asked.clientState());
        }
        q.put("iss", settings.issuer()); // RFC 9207: the client can tell which server answered
        ConsentPage.secure(response);
        OAuthAnswers.redirect(response, callback, status, asked.redirectUri(), q);
    }

    /** An error shown on our page, never sent to a redirect URI. */
    private static void refuse(Request request, Response response, Callback callback, int status, String error, String description) {
        ConsentPage.error(request, response, callback, status, error, description);
    }

    private void back(Response response, Callback callback, String redirect, String clientState, String error, String description) {
        back(response, callback, 302, redirect, clientState, error, description);
    }

    private void back(Response response, Callback callback, int status, String redirect, String clientState, String error,
                      String description) {
        Map<String, String> q = new LinkedHashMap<>();
        q.put("error", error);
        q.put("error_description", description);
        if (clientState != null) {
            q.put("state", clientState);
        }
        q.put("iss", settings.issuer());
        OAuthAnswers.redirect(response, callback, status, redirect, q);
    }
}
