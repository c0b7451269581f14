package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The emulated OAuth endpoints check PKCE as Google does (RFC 7636): a code issued for a {@code code_challenge} is
 * traded at {@code /token} only with the matching {@code code_verifier}, else 400 {@code invalid_grant}.
 */
class OAuthPkceTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REDIRECT = "http://127.0.0.1:9/Callback";
    private static final String VERIFIER = "dBjftJeZ4CVP-mJ0kS3Hn1oAW3aS1l5hlvZ0sb6sm5h5E1MpL0xDN7FSaQZSWtwZ";
    private static Emulator emulator;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        emulator = emulators.start(JavaGmailClient.fastConfig().build());
        http = HttpClient.newHttpClient(); // does not follow redirects: the code is read from Location
    }

    @Test
    void aCodeIssuedForAnS256ChallengeNeedsTheMatchingVerifier() throws Exception {
        assertThat(token(code(s256(VERIFIER), "S256"), VERIFIER).statusCode()).isEqualTo(200);
        assertInvalidGrant(token(code(s256(VERIFIER), "S256"), null), "Missing code verifier.");
        assertInvalidGrant(token(code(s256(VERIFIER), "S256"), VERIFIER.replace('d', 'e')), "Invalid code verifier.");
        assertInvalidGrant(token(code(s256(VERIFIER), "S256"), "short"), "Invalid code verifier.");
    }

    @Test
    void aPlainChallengeIsTheVerifierItself() throws Exception {
        assertThat(token(code(VERIFIER, null), VERIFIER).statusCode()).as("plain is the default method").isEqualTo(200);
        assertInvalidGrant(token(code(VERIFIER, "plain"), s256(VERIFIER)), "Invalid code verifier.");
    }

    @Test
    void aCodeIssuedWithoutAChallengeNeedsNoVerifier() throws Exception {
        assertThat(token(code(null, null), null).statusCode()).isEqualTo(200);
    }

    @Test
    void aMalformedChallengeIsRefusedAtTheConsentPage() throws Exception {
        assertThat(authorize("short", "S256").statusCode()).isEqualTo(400);
        assertThat(authorize(s256(VERIFIER), "S512").body()).contains("invalid_request").contains("code_challenge_method");
    }

    private static String s256(String verifier) throws Exception {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    }

    private static HttpResponse<String> authorize(String challenge, String method) throws Exception {
        String query = "client_id=c&response_type=code&scope=" + enc("https://www.googleapis.com/auth/gmail.readonly")
                + "&redirect_uri=" + enc(REDIRECT) + "&state=s"
                + (challenge == null ? "" : "&code_challenge=" + enc(challenge))
                + (method == null ? "" : "&code_challenge_method=" + method);
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("o/oauth2/auth?" + query)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String code(String challenge, String method) throws Exception {
        HttpResponse<String> r = authorize(challenge, method);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(302);
        String location = r.headers().firstValue("Location").orElseThrow();
        for (String pair : URI.create(location).getRawQuery().split("&")) {
            if (pair.startsWith("code=")) {
                return URLDecoder.decode(pair.substring(5), StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no code in " + location);
    }

    private static HttpResponse<String> token(String code, String verifier) throws Exception {
        String form = "grant_type=authorization_code&client_id=c&client_secret=s&redirect_uri=" + enc(REDIRECT)
                + "&code=" + enc(code) + (verifier == null ? "" : "&code_verifier=" + enc(verifier));
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertInvalidGrant(HttpResponse<String> r, String description) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("error").asText()).isEqualTo("invalid_grant");
        assertThat(body.get("error_description").asText()).isEqualTo(description);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
