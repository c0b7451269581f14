package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code POST /oauth/register} takes (issue 43, item 7 and the client name's bound): redirect URIs by RFC 8252's
 * rules, each refusal naming its rule; a body with a key given twice; client names the consent page can show as they
 * are. Over real HTTP.
 */
class RegistrationRulesTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static OAuthServer server;
    private static final AtomicInteger registrations = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        var emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .users(1).seedMessages(1).build());
        server = new OAuthServer(emulator, OAuthServer.settings(emulator, URI.create("http://127.0.0.1:0"), dir.resolve("oauth.db")));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /**
     * From another loopback address every 15 registrations: the endpoint's limit per address (20 per 10 minutes) is
     * SignInLimitsTest's subject, not this one's.
     */
    private static HttpResponse<String> register(String body) throws Exception {
        int n = registrations.getAndIncrement();
        HttpClient from = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .localAddress(InetAddress.getByName("127.0.0." + (10 + n / 15))).build();
        return from.send(HttpRequest.newBuilder(server.base.resolve("/oauth/register")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> registerUri(String uri) throws Exception {
        return register("{\"redirect_uris\": [" + Json.MAPPER.writeValueAsString(uri) + "]}");
    }

    private static JsonNode json(HttpResponse<String> answer) throws Exception {
        return Json.MAPPER.readTree(answer.body());
    }

    @Test
    void takesHttpsLoopbackHttpOnAnyPortAndReverseDomainPrivateSchemes() throws Exception {
        for (String uri : List.of("https://app.example/cb", "https://app.example:8443/cb?x=1", "http://127.0.0.1/cb",
                "http://127.0.0.1:53127/callback", "http://[::1]:1/cb", "http://localhost:65535/cb", "com.example.app:/oauth2redirect",
                "com.example.app:callback", "io.github.someone.tool:/cb")) {
            HttpResponse<String> answer = registerUri(uri);
            assertThat(answer.statusCode()).as(uri + ": " + answer.body()).isEqualTo(201);
            assertThat(json(answer).get("redirect_uris").get(0).asText()).isEqualTo(uri);
        }
    }

    @Test
    void refusesOtherSchemesUserinfoFragmentsAndPortsOutOfRangeNamingTheRule() throws Exception {
        Map<String, String> refused = Map.ofEntries(
                Map.entry("view-source:https://app.example/cb", "reverse-domain"),
                Map.entry("jar:https://app.example/x.jar!/", "reverse-domain"),
                Map.entry("chrome://settings/", "reverse-domain"),
                Map.entry("ms-settings:privacy", "reverse-domain"),
                Map.entry("mailto:me@example.com", "reverse-domain"),
                Map.entry("javascript:alert(1)", "reverse-domain"),
                Map.entry("data:text/html,hi", "reverse-domain"),
                Map.entry("file:///etc/passwd", "reverse-domain"),
                Map.entry("http://example.com/cb", "127.0.0.1, [::1] or localhost"),
                Map.entry("http://127.0.0.2/cb", "127.0.0.1, [::1] or localhost"),
                Map.entry("https://user:pw@app.example/cb", "user information"),
                Map.entry("https://app.example@attacker.example/cb", "user information"),
                Map.entry("com.example.app://user@host/cb", "user information"),
                Map.entry("https://app.example/cb#frag", "fragment"),
                Map.entry("https://app.example:99999/cb", "outside 1..65535"),
                Map.entry("https://app.example:0/cb", "outside 1..65535"),
                Map.entry("http://127.0.0.1:99999999999/cb", "1..65535"),
                Map.entry("/relative/cb", "absolute"));
        for (Map.Entry<String, String> e : refused.entrySet()) {
            HttpResponse<String> answer = registerUri(e.getKey());
            assertThat(answer.statusCode()).as(e.getKey() + ": " + answer.body()).isEqualTo(400);
            assertThat(json(answer).get("error").asText()).as(e.getKey()).isEqualTo("invalid_redirect_uri");
            assertThat(json(answer).get("error_description").asText()).as(e.getKey()).startsWith("redirect_uris[0] ")
                    .contains(e.getValue());
        }
    }

    @Test
    void aBodyWithAKeyGivenTwiceIsRefusedNamingTheKey() throws Exception {
        HttpResponse<String> twice = register("{\"redirect_uris\": [\"https://app.example/cb\"],"
                + " \"redirect_uris\": [\"https://attacker.example/cb\"]}");
        assertThat(twice.statusCode()).as(twice.body()).isEqualTo(400);
        assertThat(json(twice).get("error").asText()).isEqualTo("invalid_client_metadata");
        assertThat(json(twice).get("error_description").asText()).contains("more than once").contains("redirect_uris");
        HttpResponse<String> nameTwice = register("{\"client_name\": \"a\", \"redirect_uris\": [\"https://app.example/cb\"],"
                + " \"client_name\": \"b\"}");
        assertThat(json(nameTwice).get("error").asText()).isEqualTo("invalid_client_metadata");
        HttpResponse<String> nested = register("{\"redirect_uris\": [\"https://app.example/cb\"], \"x\": {\"k\": 1, \"k\": 2}}");
        assertThat(nested.statusCode()).as("within a nested object too").isEqualTo(400);
    }

    @Test
    void aClientNameIsAtMostAHundredCharactersWithoutControlBidiOrZeroWidthCharacters() throws Exception {
        String hundred = "\uD83C\uDFC3".repeat(100); // 100 runners: 100 characters, 200 UTF-16 units
        HttpResponse<String> fits = register("{\"client_name\": \"" + hundred + "\", \"redirect_uris\": [\"https://app.example/cb\"]}");
        assertThat(fits.statusCode()).as(fits.body()).isEqualTo(201);
        assertThat(json(fits).get("client_name").asText()).isEqualTo(hundred);
        HttpResponse<String> tooLong = register("{\"client_name\": \"" + "a".repeat(101) + "\", \"redirect_uris\": [\"https://app.example/cb\"]}");
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(json(tooLong).get("error").asText()).isEqualTo("invalid_client_metadata");
        assertThat(json(tooLong).get("error_description").asText()).isEqualTo("client_name is 101 characters; at most 100 are allowed");
        for (String bad : List.of("Good\\u202Etnatsissa", "Zero\\u200Bwidth", "Line\\nbreak", "Nul\\u0000", "Isolate\\u2066x\\u2069")) {
            HttpResponse<String> answer = register("{\"client_name\": \"" + bad + "\", \"redirect_uris\": [\"https://app.example/cb\"]}");
            assertThat(answer.statusCode()).as(bad).isEqualTo(400);
            assertThat(json(answer).get("error").asText()).isEqualTo("invalid_client_metadata");
            assertThat(json(answer).get("error_description").asText()).as(bad).startsWith("client_name has the character U+")
                    .contains("bidi");
        }
        HttpResponse<String> notText = register("{\"client_name\": 7, \"redirect_uris\": [\"https://app.example/cb\"]}");
        assertThat(json(notText).get("error_description").asText()).isEqualTo("client_name must be a string");
    }
}
