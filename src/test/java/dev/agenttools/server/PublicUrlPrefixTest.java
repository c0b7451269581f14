package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A public URL with a path ({@code http://127.0.0.1:PORT/agent-tools}, as a reverse proxy publishes the server under
 * a prefix): everything a client is told is derived from it, the well-known metadata is where RFC 9728 and RFC 8414
 * put it for that path, and the server answers under the prefix and without it (a proxy that passes it on, or strips
 * it). The official MCP TypeScript SDK client finds and signs in through it by its own discovery.
 */
@Tag("process")
class PublicUrlPrefixTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static OAuthServer server;
    /** The host's root, as the proxy's clients see it. */
    private static URI root;
    /** The public URL: the root and the prefix. */
    private static URI publicUrl;

    @BeforeAll
    static void start() throws Exception {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(2).seedMessages(20).build());
        server = new OAuthServer(emulator, OAuthServer.settings(emulator, URI.create("http://127.0.0.1:0/agent-tools/"),
                dir.resolve("oauth.db"), Duration.ofSeconds(2), List.of(OAuthServer.newKey("k1"))));
        root = server.base;
        publicUrl = URI.create(root + "/agent-tools");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theMetadataIsAtTheWellKnownPathsOfThePrefixAndNamesEverythingUnderIt() throws Exception {
        HttpResponse<String> unauthorized = OAuthClient.post(URI.create(publicUrl + "/mcp"), "application/json", OAuthClient.listEmails(1));
        assertThat(unauthorized.statusCode()).isEqualTo(401);
        String prm = root + "/.well-known/oauth-protected-resource/agent-tools/mcp";
        assertThat(unauthorized.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v ->
                assertThat(v).contains("resource_metadata=\"" + prm + "\""));

        JsonNode resource = Json.MAPPER.readTree(OAuthClient.get(URI.create(prm)).body());
        assertThat(resource.get("resource").asText()).isEqualTo(publicUrl + "/mcp");
        assertThat(resource.get("authorization_servers").get(0).asText()).isEqualTo(publicUrl.toString());

        HttpResponse<String> as = OAuthClient.get(URI.create(root + "/.well-known/oauth-authorization-server/agent-tools"));
        assertThat(as.statusCode()).isEqualTo(200);
        JsonNode metadata = Json.MAPPER.readTree(as.body());
        assertThat(metadata.get("issuer").asText()).isEqualTo(publicUrl.toString());
        for (String endpoint : List.of("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint")) {
            assertThat(metadata.get(endpoint).asText()).as(endpoint).startsWith(publicUrl + "/oauth/");
        }
    }

    @Test
    void theServerAnswersUnderThePrefixAndWithoutItSoAProxyMayPassItOnOrStripIt() throws Exception {
        for (URI base : List.of(publicUrl, root)) {
            HttpResponse<String> registered = OAuthClient.post(URI.create(base + "/oauth/register"), "application/json",
                    "{\"redirect_uris\": [\"" + OAuthClient.REDIRECT + "\"]}");
            assertThat(registered.statusCode()).as(base + ": " + registered.body()).isEqualTo(201);
            assertThat(OAuthClient.get(URI.create(base + "/healthz")).statusCode()).as(base + "/healthz").isEqualTo(200);
            assertThat(OAuthClient.post(URI.create(base + "/mcp"), "application/json", OAuthClient.listEmails(1)).statusCode())
                    .as(base + "/mcp").isEqualTo(401);
        }
        // a path that only starts with the same letters is not under the prefix
        assertThat(OAuthClient.get(URI.create(root + "/agent-toolsX/healthz")).statusCode()).isEqualTo(404);
    }

    @Test
    void theMcpTypeScriptSdkClientDiscoversAndSignsInThroughThePrefix() throws Exception {
        Path node = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        ProcessBuilder builder = new ProcessBuilder("node", "mcp-oauth-check.mjs", publicUrl.toString(), "me@example.com")
                .directory(node.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("WAIT_FOR_EXPIRY_MS", "2500"); // the access token lives 2 s: the SDK refreshes through the prefix too
        Process process = builder.start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("node's exit status; output: %s", new String(out, StandardCharsets.UTF_8)).isZero();
        JsonNode r = Json.MAPPER.readTree(out).get("me@example.com");
        assertThat(r.get("ids")).hasSize(5);
        assertThat(r.get("idsAfterRefresh")).isEqualTo(r.get("ids"));
        assertThat(r.get("refreshed").asBoolean()).isTrue();
    }
}
