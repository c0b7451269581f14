package dev.agenttools.google;

import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

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
            assertThat(new String(connection.get(call, url, "test", false, BoundedBody.MAX_BYTES, java.io.InputStream::readAllBytes), StandardCharsets.UTF_8)).contains("me@example.com");
            // the emulator takes only call-token: the configured one is refused as Google refuses, in the client's exception
            assertThatThrownBy(() -> connection.get(configured, url, "test", false, BoundedBody.MAX_BYTES, java.io.InputStream::readAllBytes))
                    .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> {
                        assertThat(e.getStatusCode()).isEqualTo(401);
                        assertThat(e.getDetails().getErrors().getFirst().getReason()).isEqualTo("authError");
                        assertThat(e.getMessage()).doesNotContain("configured-token");
                    });
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
