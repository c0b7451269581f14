package dev.agenttools.server.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The server's calls to Google's OAuth token endpoint (a code traded, a refresh token used) and to Gmail's profile (whose
 * account a token is). Written on the JDK's HTTP client rather than google-oauth-client's token requests so that a
 * failure is told apart exactly as the caller needs it (refused grant, or Google unreachable) and its message carries
 * Google's error code and the HTTP status, never a body that could echo a token. Thread-safe.
 */
final class Google {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** Token answers are small; a larger one is not Google's. */
    private static final int MAX_ANSWER_CHARS = 64 * 1024;

    /** Tokens Google issued: {@code refreshToken} is null when it sent none (a refresh, or an earlier consent). */
    record Tokens(String accessToken, Duration lifetime, String refreshToken) {
        @Override
        public String toString() {
            return "Tokens[lifetime=" + lifetime + ", (tokens not shown)]";
        }
    }

    /** Google refused the grant (invalid_grant: the code is bad, or the user revoked the refresh token). */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** Google could not be asked, or answered something else than tokens: worth a retry later. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final OAuthSettings settings;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    Google(OAuthSettings settings) {
        this.settings = settings;
    }

    /** The authorization request that sends the browser to Google's consent. */
    URI consent(String state, String challenge, String loginHint) {
        Map<String, String> q = new LinkedHashMap<>();
        q.put("client_id", settings.googleClientId());
        q.put("redirect_uri", settings.callbackUrl());
        q.put("response_type", "code");
        q.put("scope", String.join(" ", OAuthSettings.GOOGLE_SCOPES));
        q.put("state", state);
        q.put("code_challenge", challenge);
        q.put("code_challenge_method", "S256");
        q.put("access_type", "offline"); // a refresh token, so that the user is not sent back every hour
        q.put("prompt", "consent"); // Google sends the refresh token again only after a consent
        q.put("include_granted_scopes", "true");
        if (loginHint != null) {
            q.put("login_hint", loginHint);
        }
        String base = settings.googleAuthUrl().toString();
        return URI.create(base + (base.contains("?") ? "&" : "?") + form(q));
    }

    Tokens exchange(String code, String verifier) throws Refused, Unavailable {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("grant_type", "authorization_code");
        f.put("code", code);
        f.put("redirect_uri", settings.callbackUrl());
        f.put("code_verifier", verifier);
        return tokens(f, "trading Google's code");
    }

    Tokens refresh(String refreshToken) throws Refused, Unavailable {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("grant_type", "refresh_token");
        f.put("refresh_token", refreshToken);
        return tokens(f, "refreshing the Google access token");
    }

    /** The address of the account {@code accessToken} belongs to, from Gmail's profile. */
    String account(String accessToken) throws Unavailable {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(settings.profileUrl()).timeout(TIMEOUT)
                .header("Authorization", "Bearer " + accessToken).GET().build(), "reading the account's Gmail profile");
        JsonNode address = parse(answer, "reading the account's Gmail profile").path("emailAddress");
        if (answer.statusCode() != 200 || !address.isTextual() || address.asText().isBlank()) {
            throw new Unavailable("reading the account's Gmail profile: HTTP " + answer.statusCode() + " without an emailAddress", null);
        }
        return address.asText();
    }

    private Tokens tokens(Map<String, String> form, String what) throws Refused, Unavailable {
        form.put("client_id", settings.googleClientId());
        form.put("client_secret", settings.googleClientSecret());
        HttpResponse<String> answer = send(HttpRequest.newBuilder(settings.googleTokenUrl()).timeout(TIMEOUT)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(form))).build(), what);
        JsonNode json = parse(answer, what);
        if (answer.statusCode() == 400 && "invalid_grant".equals(json.path("error").asText())) {
            throw new Refused(what + ": Google answered invalid_grant (the grant was revoked or has expired)");
        }
        JsonNode access = json.path("access_token");
        if (answer.statusCode() != 200 || !access.isTextual()) {
            throw new Unavailable(what + ": Google answered HTTP " + answer.statusCode()
                    + (json.path("error").isTextual() ? " " + code(json.path("error").asText()) : " without an access token"), null);
        }
        long seconds = json.path("expires_in").asLong(3600);
        String refresh = json.path("refresh_token").isTextual() ? json.path("refresh_token").asText() : null;
        return new Tokens(access.asText(), Duration.ofSeconds(Math.max(1, seconds)), refresh);
    }

    private HttpResponse<String> send(HttpRequest request, String what) throws Unavailable {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Unavailable(what + ": Google is unreachable (" + e.getClass().getSimpleName() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable(what + ": interrupted", e);
        }
    }

    private static JsonNode parse(HttpResponse<String> answer, String what) throws Unavailable {
        if (answer.body().length() > MAX_ANSWER_CHARS) {
            throw new Unavailable(what + ": Google's answer is over " + MAX_ANSWER_CHARS + " characters", null);
        }
        try {
            return Json.MAPPER.readTree(answer.body());
        } catch (IOException e) {
            throw new Unavailable(what + ": Google answered HTTP " + answer.statusCode() + " with something else than JSON", null);
        }
    }

    /** An OAuth error code as Google spells them (letters and underscores); anything else is not repeated. */
    private static String code(String error) {
        return error.matches("[a-z_]{1,40}") ? error : "(an error)";
    }

    static String form(Map<String, String> fields) {
        return fields.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue())).collect(Collectors.joining("&"));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
