package dev.agenttools.emulator.oauth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Json;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Google's OAuth 2.0 endpoints for installed apps, enough to run the whole sign-in headless: the authorization
 * endpoint approves at once and redirects to the app's loopback address with a code; the token endpoint trades
 * codes and refresh tokens for access tokens (which expire); the revoke endpoint revokes. Access tokens it
 * issued are then checked by the API called: expired or revoked is 401, missing a scope of that API (Gmail's or
 * Calendar's) is 403.
 * Every code, refresh token and access token belongs to one user: the one {@code login_hint} names (user 1 without
 * a hint), so a refreshed token is a new string for the same user, and no token ever reaches another user's data.
 * Thread-safe.
 */
public final class OAuthServer {
    static final String AUTH_PATH = "/o/oauth2/auth";
    static final String TOKEN_PATH = "/token";
    static final String REVOKE_PATH = "/revoke";
    private static final String TOKEN_PREFIX = "ya29.emulator-";
    private static final Set<String> GMAIL_READ_SCOPES = Set.of("https://www.googleapis.com/auth/gmail.readonly",
            "https://www.googleapis.com/auth/gmail.modify", "https://mail.google.com/");
    /** Calendar scopes that allow its read methods (each method accepts a subset; the emulator takes any of them). */
    private static final Set<String> CALENDAR_READ_SCOPES = Set.of("https://www.googleapis.com/auth/calendar",
            "https://www.googleapis.com/auth/calendar.readonly", "https://www.googleapis.com/auth/calendar.events",
            "https://www.googleapis.com/auth/calendar.events.readonly", "https://www.googleapis.com/auth/calendar.calendarlist.readonly",
            "https://www.googleapis.com/auth/calendar.freebusy");

    /** An issued authorization code; {@code challenge} and {@code method} are PKCE's (RFC 7636), or null without. */
    private record Code(String clientId, String redirectUri, Set<String> scopes, String challenge, String method, String user) {
    }

    /** RFC 7636 section 4.1: 43 to 128 characters of the unreserved set, for verifiers and S256/plain challenges alike. */
    private static final Pattern PKCE_VALUE = Pattern.compile("[A-Za-z0-9._~-]{43,128}");

    private record Refresh(String clientId, Set<String> scopes, String user) {
    }

    private record Access(long expiresAtNanos, Set<String> scopes, String refreshToken, String user) {
    }

    /** What the Gmail API makes of a bearer token. */
    public enum TokenState { NOT_OURS, VALID, EXPIRED_OR_REVOKED, NO_SCOPE }

    /** A token's state and, when {@link TokenState#VALID}, the address of the user it was issued to (else null). */
    public record Grant(TokenState state, String user) {
    }

    private final Duration lifetime;
    private final String defaultUser;
    /** A {@code login_hint}'s user (the address as the emulator spells it), or null when it names none of them. */
    private final UnaryOperator<String> userOfHint;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Code> codes = new ConcurrentHashMap<>();
    private final Map<String, Refresh> refreshTokens = new ConcurrentHashMap<>();
    private final Map<String, Access> accessTokens = new ConcurrentHashMap<>();
    public final LongAdder refreshGrants = new LongAdder();
    public final LongAdder codeGrants = new LongAdder();

    /**
     * @param defaultUser the user signed in when the authorization request has no {@code login_hint}
     * @param userOfHint  the user a {@code login_hint} names, or null when it names none (then 400); with one user the
     *                    hint is not checked, as before the emulator had users
     */
    public OAuthServer(Duration lifetime, String defaultUser, UnaryOperator<String> userOfHint) {
        this.lifetime = lifetime;
        this.defaultUser = defaultUser;
        this.userOfHint = userOfHint;
    }

    public static boolean handles(String path) {
        return path.equals(AUTH_PATH) || path.equals(TOKEN_PATH) || path.equals(REVOKE_PATH);
    }

    public ApiResponse handle(ApiRequest r) {
        return switch (r.path()) {
            case AUTH_PATH -> authorize(r);
            case TOKEN_PATH -> token(r);
            default -> revoke(r);
        };
    }

    /** What a token is worth for a call to Gmail, or to Calendar when {@code calendar}, and whose it is. */
    public Grant check(String token, boolean calendar) {
        if (!token.startsWith(TOKEN_PREFIX)) {
            return new Grant(TokenState.NOT_OURS, null);
        }
        Access access = accessTokens.get(token);
        if (access == null || System.nanoTime() - access.expiresAtNanos() > 0
                || (access.refreshToken() != null && !refreshTokens.containsKey(access.refreshToken()))) {
            return new Grant(TokenState.EXPIRED_OR_REVOKED, null);
        }
        Set<String> allowed = calendar ? CALENDAR_READ_SCOPES : GMAIL_READ_SCOPES;
        return access.scopes().stream().anyMatch(allowed::contains)
                ? new Grant(TokenState.VALID, access.user()) : new Grant(TokenState.NO_SCOPE, null);
    }

    /** Revokes every grant of {@code user}: its refresh tokens and the access tokens issued with them or from a code. */
    public void revokeUser(String user) {
        refreshTokens.values().removeIf(r -> r.user().equals(user));
        accessTokens.values().removeIf(a -> a.user().equals(user));
    }

    /** Approves at once (no consent screen to click) and sends the browser back to the app with a code. */
    private ApiResponse authorize(ApiRequest r) {
        String clientId = r.param("client_id");
        String redirect = r.param("redirect_uri");
        if (clientId == null || clientId.isBlank()) {
            return oauthError(400, "invalid_request", "Missing required parameter: client_id");
        }
        if (redirect == null || !redirect.matches("http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:\\d+)?(/.*)?")) {
            return oauthError(400, "invalid_request", "redirect_uri must be a loopback address for installed apps, got " + redirect);
        }
        if (!"code".equals(r.param("response_type"))) {
            return oauthError(400, "unsupported_response_type", "response_type must be code");
        }
        Set<String> scopes = scopes(r.param("scope"));
        if (scopes.isEmpty()) {
            return oauthError(400, "invalid_scope", "Missing required parameter: scope");
        }
        // PKCE as Google checks it: a challenge of the right form, S256 or plain (the default when no method is named).
        String challenge = r.param("code_challenge");
        String method = r.param("code_challenge_method");
        if (challenge == null && method != null) {
            return oauthError(400, "invalid_request", "code_challenge_method was given without code_challenge");
        }
        if (challenge != null) {
            method = method == null ? "plain" : method;
            if (!method.equals("S256") && !method.equals("plain")) {
                return oauthError(400, "invalid_request", "Invalid code_challenge_method: " + method + " (S256 or plain)");
            }
            if (!PKCE_VALUE.matcher(challenge).matches()) {
                return oauthError(400, "invalid_request", "Invalid code_challenge: 43 to 128 characters of A-Z a-z 0-9 - . _ ~");
            }
        }
        // Google's login_hint picks the account to sign in: here it picks the emulator's user (no account chooser)
        String user = defaultUser;
        String hint = r.param("login_hint");
        if (hint != null && !hint.isBlank()) {
            user = userOfHint.apply(hint.strip());
            if (user == null) {
                return oauthError(400, "invalid_request", "login_hint names no user of this emulator: " + hint.strip());
            }
        }
        String code = "4/emulator-" + secret();
        codes.put(code, new Code(clientId, redirect, scopes, challenge, method, user));
        String state = r.param("state");
        String location = redirect + (redirect.contains("?") ? "&" : "?") + "code=" + enc(code)
                + (state == null ? "" : "&state=" + enc(state)) + "&scope=" + enc(String.join(" ", scopes));
        return ApiResponse.raw(302, "text/html; charset=UTF-8", ("<a href=\"" + location + "\">continue</a>")
                .getBytes(StandardCharsets.UTF_8)).withHeader("Location", location);
    }

    private ApiResponse token(ApiRequest r) {
        Map<String, List<String>> form = ApiRequest.parseQuery(new String(r.body(), StandardCharsets.UTF_8));
        String grant = first(form, "grant_type");
        String clientId = first(form, "client_id");
        if (clientId == null || first(form, "client_secret") == null) {
            return oauthError(401, "invalid_client", "The OAuth client was not found.");
        }
        if ("authorization_code".equals(grant)) {
            Code code = codes.remove(first(form, "code") == null ? "" : first(form, "code"));
            if (code == null || !code.clientId().equals(clientId) || !code.redirectUri().equals(first(form, "redirect_uri"))) {
                return oauthError(400, "invalid_grant", "Malformed auth code.");
            }
            // The code is spent either way (codes are single-use): a wrong verifier cannot be retried.
            if (code.challenge() != null) {
                String verifier = first(form, "code_verifier");
                if (verifier == null) {
                    return oauthError(400, "invalid_grant", "Missing code verifier.");
                }
                if (!PKCE_VALUE.matcher(verifier).matches() || !code.challenge().equals(challenge(verifier, code.method()))) {
                    return oauthError(400, "invalid_grant", "Invalid code verifier.");
                }
            }
            codeGrants.increment();
            String refresh = "1//emulator-" + secret();
            refreshTokens.put(refresh, new Refresh(clientId, code.scopes(), code.user()));
            return tokens(issue(code.scopes(), refresh, code.user()), code.scopes(), refresh);
        }
        if ("refresh_token".equals(grant)) {
            Refresh refresh = refreshTokens.get(first(form, "refresh_token") == null ? "" : first(form, "refresh_token"));
            if (refresh == null || !refresh.clientId().equals(clientId)) {
                return oauthError(400, "invalid_grant", "Token has been expired or revoked.");
            }
            refreshGrants.increment();
            return tokens(issue(refresh.scopes(), first(form, "refresh_token"), refresh.user()), refresh.scopes(), null);
        }
        return oauthError(400, "unsupported_grant_type", "Invalid grant_type: " + grant);
    }

    private ApiResponse revoke(ApiRequest r) {
        String token = r.param("token");
        if (token == null) {
            token = first(ApiRequest.parseQuery(new String(r.body(), StandardCharsets.UTF_8)), "token");
        }
        if (token == null) {
            return oauthError(400, "invalid_request", "Missing required parameter: token");
        }
        boolean known = refreshTokens.remove(token) != null || accessTokens.remove(token) != null;
        return known ? ApiResponse.ok(Json.MAPPER.createObjectNode()) : oauthError(400, "invalid_token", "Token expired or revoked");
    }

    private String issue(Set<String> scopes, String refreshToken, String user) {
        String token = TOKEN_PREFIX + secret();
        accessTokens.put(token, new Access(System.nanoTime() + lifetime.toNanos(), scopes, refreshToken, user));
        return token;
    }

    private ApiResponse tokens(String access, Set<String> scopes, String refresh) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("access_token", access);
        node.put("expires_in", lifetime.toSeconds());
        if (refresh != null) {
            node.put("refresh_token", refresh);
        }
        node.put("scope", String.join(" ", scopes));
        node.put("token_type", "Bearer");
        return ApiResponse.ok(node);
    }

    /** RFC 7636 section 4.2: S256 is BASE64URL(SHA-256(ASCII(verifier))) without padding; plain is the verifier. */
    private static String challenge(String verifier, String method) {
        if (method.equals("plain")) {
            return verifier;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static ApiResponse oauthError(int status, String error, String description) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("error", error);
        node.put("error_description", description);
        return ApiResponse.json(status, node);
    }

    private static Set<String> scopes(String scope) {
        return scope == null ? Set.of() : new LinkedHashSet<>(Arrays.stream(scope.split("[ ,]+")).filter(s -> !s.isBlank()).toList());
    }

    private static String first(Map<String, List<String>> form, String name) {
        List<String> v = form.get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }

    private String secret() {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
