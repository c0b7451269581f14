package dev.agenttools.google;

import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The connection Gmail and Calendar share: which token a session acts as, and GETs answered as a Google client would. */
class GoogleConnectionTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    private static Emulator emulator(String token) {
        return emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .token(token).build());
    }

    @Test
    void aCallsTokenWinsOverTheConfiguredOneAndEachIsItsOwnAccount() throws Exception {
        Emulator emulator = emulator("call-token");
        try (GoogleConnection connection = new GoogleConnection(null, "configured-token", null, "not signed in")) {
            GoogleConnection.Session call = connection.sessionFor("call-token");
            GoogleConnection.Session configured = connection.sessionFor(null);
            assertThat(call.account()).isNotEqualTo(configured.account());
            String url = emulator.rootUri() + "gmail/v1/users/me/profile";
            assertThat(new String(connection.get(call, url, "test", false, BoundedBody.MAX_BYTES, InputStream::readAllBytes), StandardCharsets.UTF_8)).contains("me@example.com");
            // the emulator takes only call-token: the configured one is refused as Google refuses, in the client's exception
            assertThatThrownBy(() -> connection.get(configured, url, "test", false, BoundedBody.MAX_BYTES, InputStream::readAllBytes))
                    .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> {
                        assertThat(e.getStatusCode()).isEqualTo(401);
                        assertThat(e.getDetails().getErrors().getFirst().getReason()).isEqualTo("authError");
                        assertThat(e.getMessage()).doesNotContain("configured-token");
                    });
        }
    }

    @Test
    void whoACredentialIsStandsFiveMinutesThenGoogleIsAskedAgainSoARevokedOneIsRefused() throws Exception {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).build());
        String url = emulator.rootUri() + "gmail/v1/users/me/profile";
        AtomicInteger asked = new AtomicInteger();
        String token = Emulators.signIn(emulator, "me@example.com").accessToken();
        try (GoogleConnection lately = new GoogleConnection(null, new Addresses());
             GoogleConnection stale = new GoogleConnection(null, new Addresses(Addresses.RETRY_AFTER, Duration.ZERO))) {
            for (GoogleConnection c : List.of(lately, lately, stale, stale)) {
                GoogleConnection.WhoIs profile = (s, deadline) -> {
                    asked.incrementAndGet();
                    return Json.MAPPER.readTree(c.get(s, url, "test", false, BoundedBody.MAX_BYTES,
                            InputStream::readAllBytes)).path("emailAddress").asText();
                };
                assertThat(c.addressOf(token, profile, Deadline.in(Duration.ofSeconds(10)))).isEqualTo("me@example.com");
            }
            assertThat(asked.get()).as("once for the connection that trusts it 5 minutes, each time for the other").isEqualTo(3);
            emulator.revokeAccess("me@example.com");
            GoogleConnection.WhoIs profile = (s, deadline) -> Json.MAPPER.readTree(stale.get(s, url, "test",
                    false, BoundedBody.MAX_BYTES, InputStream::readAllBytes)).path("emailAddress").asText();
            assertThatThrownBy(() -> stale.addressOf(token, profile, Deadline.in(Duration.ofSeconds(10))))
                    .as("revoked: asked again, and refused").isInstanceOf(ToolException.class).hasMessageNotContaining(token);
        }
    }

    @Test
    void withoutATokenOrAStoredSignInACallIsUnauthenticatedWithWhatToRun() {
        try (GoogleConnection connection = new GoogleConnection(null, null, null, "not signed in: run 'agent-tools auth login'")) {
            assertThatThrownBy(() -> connection.sessionFor(" ")).isInstanceOfSatisfying(ToolException.class, e -> {
                assertThat(e.kind()).isEqualTo(ToolException.Kind.UNAUTHENTICATED);
                assertThat(e.getMessage()).contains("agent-tools auth login");
            });
        }
    }

    @Test
    void anUnreadableCertificateIsRefusedAtOnceNamingTheFile() {
        Path missing = Path.of("/nonexistent/ca.pem");
        assertThatThrownBy(() -> new GoogleConnection(missing, null, null, "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/nonexistent/ca.pem");
    }
}
