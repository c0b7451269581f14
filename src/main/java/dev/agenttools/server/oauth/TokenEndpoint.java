package dev.agenttools.server.oauth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code POST /oauth/token} (a code traded once with its PKCE verifier; a refresh token used once and replaced, or
 * again by its client within {@link OAuthSettings#refreshTokenReuseGrace()}, a retry, for another pair) and
 * {@code POST /oauth/revoke} (RFC 7009). Clients are public: {@code client_id} in the form names them, and a code or
 * token works only for the client it was issued to (revoking one included, RFC 7009 section 2.1). A code used twice
 * ends the tokens of its first use (RFC 6749 section 4.1.2); a refresh may narrow the access token's scope, never the
 * grant's, which its refresh tokens keep (section 6).
 */
final class TokenEndpoint {
    /** RFC 7636 section 4.1: 43 to 128 characters of the unreserved set. */
    private static final Pattern VERIFIER = Pattern.compile("[A-Za-z0-9._~-]{43,128}");

    private final OAuthSettings settings;
    private final OAuthStore store;
    private final Authorization authorization;
    private final StepUps stepUps;
    private final Clock clock;

    TokenEndpoint(OAuthSettings settings, OAuthStore store, Authorization authorization, StepUps stepUps, Clock clock) {
        this.settings = settings;
        this.store = store;
        this.authorization = authorization;
        this.stepUps = stepUps;
        this.clock = clock;
    }

    /**
     * The client the form names, or null when it has answered 401 {@code invalid_client} (no {@code client_id}, or not
     * one registered here).
     */
    private String client(Params p, Response response, Callback callback) throws Params.Bad, SQLException {
        String clientId = p.get("client_id");
        if (clientId == null || clientId.length() > Secrets.MAX_LENGTH || store.client(clientId, clock.instant()) == null) {
            OAuthAnswers.error(response, callback, 401, "invalid_client", clientId == null
                    ? "client_id is missing (clients of this server are public: send client_id in the form)"
                    : "client_id is not a client registered here");
            return null;
        }
        return clientId;
    }

    void token(Request request, Response response, Callback callback) throws SQLException {
        try {
            Params p = Params.form(request);
            String clientId = client(p, response, callback);
            if (clientId == null) {
                return;
            }
            String resource = p.get("resource");
            if (resource != null && !authorization.sameResource(resource)) {
                OAuthAnswers.error(response, callback, 400, "invalid_target", "resource must be " + settings.resource());
                return;
            }
            String grant = p.get("grant_type");
            if ("authorization_code".equals(grant)) {
                code(p, clientId, response, callback);
            } else if ("refresh_token".equals(grant)) {
                refresh(p, clientId, response, callback);
            } else {
                OAuthAnswers.error(response, callback, 400, grant == null ? "invalid_request" : "unsupported_grant_type",
                        grant == null ? "grant_type is missing" : "grant_type must be authorization_code or refresh_token");
            }
        } catch (Params.Bad bad) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", bad.getMessage());
        }
    }

    private void code(Params p, String clientId, Response response, Callback callback) throws Params.Bad, SQLException {
        String code = p.get("code");
        String verifier = p.get("code_verifier");
        String redirect = p.get("redirect_uri");
        if (code == null || verifier == null) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", (code == null ? "code" : "code_verifier") + " is missing");
            return;
        }
        // spent before anything else is checked: a code is tried once, right or wrong; the grant its tokens will be of
        // is named now, so that a second use, even one racing this, ends them (RFC 6749 section 4.1.2)
        String grant = Secrets.next("grant_");
        Instant now = clock.instant();
        OAuthStore.Redeemed redeemed = code.length() > Secrets.MAX_LENGTH ? new OAuthStore.Redeemed.None()
                : store.redeemCode(Secrets.digest(code), grant, now, now.plus(settings.refreshTokenLifetime()));
        OAuthStore.Code issued;
        switch (redeemed) {
            case OAuthStore.Redeemed.None none -> {
                OAuthAnswers.error(response, callback, 400, "invalid_grant", "code is unknown, expired or already used");
                return;
            }
            case OAuthStore.Redeemed.Reused reused -> {
                OAuthAnswers.error(response, callback, 400, "invalid_grant", "code is unknown, expired or already used:"
                        + " it was used before, so every token issued for it is now revoked");
                return;
            }
            case OAuthStore.Redeemed.Fresh fresh -> issued = fresh.code();
        }
        if (!issued.clientId().equals(clientId)) {
            OAuthAnswers.error(response, callback, 400, "invalid_grant", "code was issued to another client_id");
            return;
        }
        if (redirect != null && !redirect.equals(issued.redirectUri())) {
            OAuthAnswers.error(response, callback, 400, "invalid_grant", "redirect_uri is not the one of the authorization request");
            return;
        }
        if (!VERIFIER.matcher(verifier).matches() || !Secrets.same(Secrets.s256(verifier), issued.challenge())) {
            OAuthAnswers.error(response, callback, 400, "invalid_grant", "code_verifier does not match the code_challenge");
            return;
        }
        issue(issued.account(), clientId, issued.scope(), issued.scope(), issued.resource(), grant, response, callback);
    }

    private void refresh(Params p, String clientId, Response response, Callback callback) throws Params.Bad, SQLException {
        String token = p.get("refresh_token");
        if (token == null) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", "refresh_token is missing");
            return;
        }
        String asked = p.get("scope");
        if (asked == null && !stepUps.isEmpty() && token.length() <= Secrets.MAX_LENGTH && stepUpAsked(token, clientId, response, callback)) {
            return;
        }
        OAuthStore.Spent spent = token.length() > Secrets.MAX_LENGTH ? new OAuthStore.Spent.None()
                : store.spendRefreshToken(Secrets.digest(token), clientId, clock.instant(), settings.refreshTokenReuseGrace());
        OAuthStore.Grant g;
        switch (spent) {
            case OAuthStore.Spent.None none -> {
                OAuthAnswers.error(response, callback, 400, "invalid_grant", "refresh_token is unknown, expired or revoked");
                return;
            }
            case OAuthStore.Spent.Reused reused -> {
                OAuthAnswers.error(response, callback, 400, "invalid_grant",
                        "refresh_token was already used; every token of its sign-in is now revoked (sign in again)");
                return;
            }
            case OAuthStore.Spent.Fresh fresh -> {
                g = fresh.grant();
                if (!g.clientId().equals(clientId)) {
                    store.endGrant(g.grant()); // another client holds this client's token: neither goes on with it
                    OAuthAnswers.error(response, callback, 400, "invalid_grant", "refresh_token was issued to another client_id");
                    return;
                }
            }
            // its own client again within the grace (the store checked both): another pair of the same grant, the
            // pair of the first spending still valid (which of them the client keeps is its choice)
            case OAuthStore.Spent.Again again -> g = again.grant();
        }
        String scope = g.scope();
        if (asked != null) {
            try {
                scope = Scopes.parse(asked);
            } catch (Scopes.Unknown unknown) {
                OAuthAnswers.error(response, callback, 400, "invalid_scope", unknown.getMessage());
                return;
            }
            if (!Scopes.covers(g.scope(), List.of(scope.split(" ")))) {
                // RFC 6749 section 6: a refresh never widens; a wider scope takes a new authorization
                OAuthAnswers.error(response, callback, 400, "invalid_scope", "scope may only narrow the sign-in's scope: " + g.scope());
                return;
            }
        }
        // the access token may be narrower; the new refresh token keeps the grant's scope (RFC 6749 section 6)
        issue(g.account(), clientId, scope, g.scope(), g.resource(), g.grant(), response, callback);
    }

    /**
     * Whether the refresh token's grant was refused a tool for want of scope a moment ago ({@link StepUps}), a scope the
     * grant does not have: then the refresh is answered {@code invalid_grant}, naming the scope to authorize with, and the token is left unspent (a
     * client that keeps it goes on with the scope it has). A refresh never widens a scope; this tells a client that
     * answers the 403 with a refresh (MCP TypeScript SDK 1.x) to authorize again, which that SDK does on
     * {@code invalid_grant}.
     */
    private boolean stepUpAsked(String token, String clientId, Response response, Callback callback) throws SQLException {
        OAuthStore.Grant g = store.refreshToken(Secrets.digest(token));
        if (g == null || !g.clientId().equals(clientId)) {
            return false;
        }
        String wider = stepUps.take(g.grant(), clock.instant());
        if (wider == null || Scopes.covers(g.scope(), List.of(wider.split(" ")))) {
            return false; // none asked, or the grant has it (its access token was narrowed): the refresh gives it
        }
        OAuthAnswers.error(response, callback, 400, "invalid_grant", "the sign-in's scope (" + g.scope() + ") lacks what a"
                + " call was just refused for, and a refresh never widens a scope: authorize again with scope " + wider);
        return true;
    }

    private void issue(String account, String clientId, String scope, String grantScope, String resource, String grant,
                       Response response, Callback callback) throws SQLException {
        Instant now = clock.instant();
        String access = Secrets.next(Secrets.ACCESS_TOKEN);
        String refresh = Secrets.next(Secrets.REFRESH_TOKEN);
        store.putTokens(Secrets.digest(access), new OAuthStore.Grant(account, clientId, scope, resource, grant,
                        now.plus(settings.accessTokenLifetime())),
                Secrets.digest(refresh), new OAuthStore.Grant(account, clientId, grantScope, resource, grant,
                        now.plus(settings.refreshTokenLifetime())));
        // the scope of the access token (RFC 6749 section 5.1)
        ObjectNode answer = Json.object().put("access_token", access).put("token_type", "Bearer")
                .put("expires_in", settings.accessTokenLifetime().toSeconds()).put("refresh_token", refresh).put("scope", scope);
        OAuthAnswers.json(response, callback, 200, answer);
    }

    /**
     * RFC 7009: a refresh token ends its whole sign-in, an access token itself; unknown tokens are answered alike (200).
     * The client names itself ({@code client_id}: clients are public) and may revoke only what was issued to it
     * (section 2.1): another client's token is refused, 400 {@code invalid_grant}, and left as it is.
     */
    void revoke(Request request, Response response, Callback callback) throws SQLException {
        try {
            Params p = Params.form(request);
            String clientId = client(p, response, callback);
            if (clientId == null) {
                return;
            }
            String token = p.get("token");
            if (token == null) {
                OAuthAnswers.error(response, callback, 400, "invalid_request", "token is missing");
                return;
            }
            if (token.length() <= Secrets.MAX_LENGTH) {
                String digest = Secrets.digest(token);
                boolean refresh = token.startsWith(Secrets.REFRESH_TOKEN);
                OAuthStore.Grant g = refresh ? store.refreshToken(digest) : store.accessToken(digest, clock.instant());
                if (g != null && !g.clientId().equals(clientId)) {
                    OAuthAnswers.error(response, callback, 400, "invalid_grant", "token was issued to another client_id");
                    return;
                }
                if (g != null && refresh) {
                    store.endGrant(g.grant());
                } else if (g != null) {
                    store.endAccessToken(digest);
                }
            }
            OAuthAnswers.json(response, callback, 200, Json.object());
        } catch (Params.Bad bad) {
            OAuthAnswers.error(response, callback, 400, "invalid_request", bad.getMessage());
        }
    }
}
