package dev.agenttools.emulator;

import org.junit.jupiter.api.extension.RegisterExtension;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official Node client ({@code @googleapis/gmail}, installed by the build from src/test/node's lock file)
 * against the emulator. The script makes each call and reports what the client returned or threw.
 */
@Tag("process")
class NodeClientTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    private static Emulator tlsEmulator;
    private static JsonNode results;

    @BeforeAll
    static void runTheNodeClient() throws Exception {
        Path dir = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        assertThat(dir.resolve("node_modules/@googleapis/gmail"))
                .as("npm packages of the Node client test (the build runs 'npm ci' in %s)", dir).exists();
        emulator = emulators.start(JavaGmailClient.fastConfig().token("node-token").build());
        tlsEmulator = emulators.start(JavaGmailClient.fastConfig().token("node-token").tls(true).build());
        ProcessBuilder builder = new ProcessBuilder("node", "gmail-client-check.mjs", emulator.rootUri().toString(),
                "node-token", tlsEmulator.rootUri().toString())
                .directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("NODE_EXTRA_CA_CERTS", tlsEmulator.certificate().toString());
        Process node = builder.start();
        byte[] out = node.getInputStream().readAllBytes();
        assertThat(node.waitFor(60, TimeUnit.SECONDS)).as("node finished").isTrue();
        assertThat(node.exitValue()).as("node exit status, output: %s", new String(out, StandardCharsets.UTF_8)).isZero();
        results = new ObjectMapper().readTree(out);
    }

    @AfterAll
    static void stop() {
        if (emulator != null) {
            emulator.close();
        }
        if (tlsEmulator != null) {
            tlsEmulator.close();
        }
    }

    private static JsonNode ok(String check) {
        JsonNode r = results.get(check);
        assertThat(r).as("check %s ran", check).isNotNull();
        assertThat(r.get("ok").asBoolean()).as("check %s succeeded: %s", check, r).isTrue();
        return r.get("value");
    }

    private static JsonNode failed(String check) {
        JsonNode r = results.get(check);
        assertThat(r).as("check %s ran", check).isNotNull();
        assertThat(r.get("ok").asBoolean()).as("check %s failed as it should: %s", check, r).isFalse();
        return r;
    }

    @Test
    void readsProfileAndLabels() {
        assertThat(ok("profile").get("emailAddress").asText()).isEqualTo("me@example.com");
        assertThat(ok("profile").get("historyId").isTextual()).isTrue();
        assertThat(ok("labels").asInt()).isGreaterThan(14);
    }

    @Test
    void listsPagesAndSearches() {
        assertThat(ok("listPage1").get("count").asInt()).isEqualTo(7);
        assertThat(ok("listPage1").get("hasNext").asBoolean()).isTrue();
        assertThat(ok("listPage2").get("count").asInt()).isEqualTo(7);
        assertThat(ok("listPage2").get("overlap").asInt()).isZero();
        assertThat(ok("listByLabels").asInt()).isPositive();
        assertThat(ok("searchEmpty").has("messages")).isFalse();
        assertThat(ok("searchEmpty").get("resultSizeEstimate").asInt()).isZero();
        assertThat(ok("searchAttachment").asInt()).isEqualTo(5);
    }

    @Test
    void getsEveryFormatWithGmailsJsonTypes() {
        assertThat(ok("getFull").get("hasPayload").asBoolean()).isTrue();
        assertThat(ok("getFull").get("internalDateType").asText()).isEqualTo("string");
        assertThat(ok("getFull").get("sizeType").asText()).isEqualTo("number");
        assertThat(ok("getMetadata").toString()).isEqualTo("[\"From\",\"Subject\"]");
        assertThat(ok("getRaw").asBoolean()).isTrue();
        // Gmail's minimal (captured): an empty-partId payload, labels, no snippet
        assertThat(ok("getMinimal").toString()).contains("payload", "labelIds").doesNotContain("snippet");
        assertThat(ok("japanese").asBoolean()).isTrue();
        assertThat(ok("attachment").asBoolean()).isTrue();
    }

    @Test
    void modifiesAndReadsThreadsAndHistory() {
        assertThat(ok("modify").asBoolean()).isTrue();
        assertThat(ok("threads").asBoolean()).isTrue();
        assertThat(ok("history").asInt()).isEqualTo(1);
    }

    /** Through a relay that makes the TLS set-up take 700 ms, where the client's own 500 ms idle close used to fail it. */
    @Test
    void http2ModeMultiplexesOverOneTlsConnection() {
        assertThat(ok("http2").asInt()).isEqualTo(10);
        assertThat(tlsEmulator.counters().connectionsOpened()).isEqualTo(1);
        assertThat(tlsEmulator.counters().apiCalls()).isEqualTo(10);
    }

    @Test
    void errorsReachTheClientAsItsOwnErrors() {
        assertThat(failed("historyTooOld").get("status").asInt()).isEqualTo(404);
        assertThat(failed("notFound").get("status").asInt()).isEqualTo(404);
        assertThat(failed("notFound").get("reason").asText()).isEqualTo("notFound");
        assertThat(failed("invalidId").get("status").asInt()).isEqualTo(400);
        assertThat(failed("invalidId").get("message").asText()).isEqualTo("Invalid id value");
        assertThat(failed("badToken").get("status").asInt()).isEqualTo(401);
    }
}
