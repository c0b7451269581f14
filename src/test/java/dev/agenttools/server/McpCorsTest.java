package dev.agenttools.server;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CORS on {@code /mcp} for a browser-based MCP client, over real HTTP, with MCP authorization on: a page of an allowed
 * origin gets its preflight answered (it carries no token) and can read the 401's {@code WWW-Authenticate} that starts
 * its sign-in; any other origin is refused, preflight included.
 */
class McpCorsTest {
    private static final String APP = "https://app.example";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static OAuthServer server;
    private static URI base;
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(1).seedMessages(5).build());
        server = new OAuthServer(emulator, OAuthServer.settings(emulator, URI.create("http://127.0.0.1:0"), dir.resolve("oauth.db")),
                Set.of(APP));
        base = server.base;
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aPreflightFromAnAllowedOriginIsAnsweredWithTheHeadersOfMcpsTransport() throws Exception {
        HttpResponse<String> answer = preflight(APP, "POST", "authorization, content-type, mcp-protocol-version");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(204);
        assertThat(answer.headers().firstValue("Access-Control-Allow-Origin")).hasValue(APP);
        assertThat(answer.headers().allValues("Vary")).anySatisfy(v -> assertThat(v).containsIgnoringCase("Origin"));
        assertThat(list(answer, "Access-Control-Allow-Methods")).contains("GET", "POST", "DELETE");
        assertThat(list(answer, "Access-Control-Allow-Headers")).extracting(String::toLowerCase)
                .contains("authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id");
        assertThat(answer.headers().firstValue("Access-Control-Max-Age")).isPresent();
        assertThat(answer.headers().firstValue("Access-Control-Allow-Credentials")).as("no cookies are involved").isEmpty();
    }

    @Test
    void aPreflightOrARequestFromAnotherOriginIsRefused() throws Exception {
        HttpResponse<String> preflight = preflight("https://evil.example", "POST", "authorization");
        assertThat(preflight.statusCode()).isEqualTo(403);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        HttpResponse<String> post = post("https://evil.example", null);
        assertThat(post.statusCode()).isEqualTo(403);
        assertThat(post.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    }

    @Test
    void aPageOfAnAllowedOriginCanReadThe401ChallengeAndThenCallTheToolsWithItsToken() throws Exception {
        HttpResponse<String> unauthorized = post(APP, null);
        assertThat(unauthorized.statusCode()).isEqualTo(401);
        assertThat(unauthorized.headers().firstValue("Access-Control-Allow-Origin")).hasValue(APP);
        assertThat(list(unauthorized, "Access-Control-Expose-Headers")).extracting(String::toLowerCase)
                .contains("www-authenticate", "mcp-session-id");
        assertThat(unauthorized.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).contains("resource_metadata="));

        OAuthClient.Tokens tokens = OAuthClient.register(base).signIn("me@example.com");
        HttpResponse<String> call = post(APP, tokens.access());
        assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
        assertThat(call.body()).contains("\"emails\"");
        assertThat(call.headers().firstValue("Access-Control-Allow-Origin")).hasValue(APP);
        assertThat(list(call, "Access-Control-Expose-Headers")).extracting(String::toLowerCase).contains("mcp-session-id");
    }

    @Test
    void aRequestWithoutAnOriginGetsNoCorsHeaders() throws Exception {
        HttpResponse<String> answer = post(null, null);
        assertThat(answer.statusCode()).isEqualTo(401);
        assertThat(answer.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    }

    private static HttpResponse<String> preflight(String origin, String method, String headers) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve("/mcp")).method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", origin).header("Access-Control-Request-Method", method)
                .header("Access-Control-Request-Headers", headers).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String origin, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("/mcp")).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2025-11-25")
                .POST(HttpRequest.BodyPublishers.ofString(OAuthClient.listEmails(1)));
        if (origin != null) {
            b.header("Origin", origin);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> list(HttpResponse<String> answer, String header) {
        return answer.headers().allValues(header).stream().flatMap(v -> Arrays.stream(v.split(","))).map(String::strip).toList();
    }
}
