package dev.agenttools.server.oauth;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The encryption of Google refresh tokens, key rotation, and the settings that carry the keys and the public URL. */
class TokenCipherTest {
    private static OAuthSettings.Key key(String id) {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return new OAuthSettings.Key(id, b);
    }

    @Test
    void aRotatedKeyStillOpensWhatTheOldOneSealedAndNewSecretsUseTheNewKey() throws Exception {
        OAuthSettings.Key old = key("2026-01");
        OAuthSettings.Key next = key("2026-07");
        TokenCipher before = new TokenCipher(List.of(old));
        TokenCipher.Sealed sealed = before.seal("1//google-refresh-token", "me@example.com");
        assertThat(sealed.keyId()).isEqualTo("2026-01");
        assertThat(new String(sealed.bytes(), StandardCharsets.ISO_8859_1)).doesNotContain("google-refresh-token");

        TokenCipher after = new TokenCipher(List.of(next, old)); // the new key first, the old one still listed
        assertThat(after.open(sealed, "me@example.com")).isEqualTo("1//google-refresh-token");
        assertThat(after.seal("x", "me@example.com").keyId()).isEqualTo("2026-07");
        // the old key removed: what it sealed is unreadable, and the message names the key, not the secret
        assertThatThrownBy(() -> new TokenCipher(List.of(next)).open(sealed, "me@example.com"))
                .isInstanceOf(TokenCipher.Unreadable.class).hasMessageContaining("2026-01").hasMessageNotContaining("google");
    }

    @Test
    void aCiphertextMovedToAnotherAccountOrAlteredDoesNotOpen() {
        TokenCipher cipher = new TokenCipher(List.of(key("k")));
        TokenCipher.Sealed sealed = cipher.seal("1//token", "me@example.com");
        assertThatThrownBy(() -> cipher.open(sealed, "user2@example.com")).isInstanceOf(TokenCipher.Unreadable.class);
        byte[] altered = sealed.bytes().clone();
        altered[altered.length - 1] ^= 1;
        assertThatThrownBy(() -> cipher.open(new TokenCipher.Sealed("k", altered), "me@example.com"))
                .isInstanceOf(TokenCipher.Unreadable.class);
        assertThat(cipher.seal("1//token", "me@example.com").bytes()).as("a fresh nonce each time").isNotEqualTo(sealed.bytes());
    }

    @Test
    void settingsTakeKeysAsIdColonBase64AndRefuseBadOnesAndPublicUrlsWithAPathOrPlainHttp() {
        String k1 = Base64.getEncoder().encodeToString(new byte[32]);
        List<OAuthSettings.Key> keys = OAuthSettings.parseKeys("new:" + k1 + ",old:" + k1, "AGENT_TOOLS_SERVER_TOKEN_KEY");
        assertThat(keys).extracting(OAuthSettings.Key::id).containsExactly("new", "old");
        assertThat(keys.getFirst().toString()).doesNotContain(k1);
        assertThatThrownBy(() -> OAuthSettings.parseKeys("k:" + Base64.getEncoder().encodeToString(new byte[16]), "AGENT_TOOLS_SERVER_TOKEN_KEY"))
                .hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> OAuthSettings.parseKeys("k:not base64!", "AGENT_TOOLS_SERVER_TOKEN_KEY"))
                .hasMessageContaining("AGENT_TOOLS_SERVER_TOKEN_KEY entry 1").hasMessageContaining("base64");

        assertThat(settings("https://tools.example.com/").publicUrl()).hasToString("https://tools.example.com");
        assertThat(settings("https://tools.example.com").toString()).doesNotContain("server-secret");
        assertThatThrownBy(() -> settings("http://tools.example.com")).hasMessageContaining("https");
        // a path is the prefix a proxy publishes the server under; everything is derived from it
        OAuthSettings prefixed = settings("https://tools.example.com/agent-tools/");
        assertThat(prefixed.publicUrl()).hasToString("https://tools.example.com/agent-tools");
        assertThat(prefixed.pathPrefix()).isEqualTo("/agent-tools");
        assertThat(prefixed.resource()).isEqualTo("https://tools.example.com/agent-tools/mcp");
        assertThat(prefixed.callbackUrl()).isEqualTo("https://tools.example.com/agent-tools/oauth/callback");
        assertThat(prefixed.protectedResourceMetadataUrl())
                .isEqualTo("https://tools.example.com/.well-known/oauth-protected-resource/agent-tools/mcp");
        assertThat(prefixed.authorizationServerMetadataUrl())
                .isEqualTo("https://tools.example.com/.well-known/oauth-authorization-server/agent-tools");
        assertThat(settings("http://127.0.0.1:0/a/b").withBoundPort(8123).resource()).isEqualTo("http://127.0.0.1:8123/a/b/mcp");
        for (String bad : List.of("https://tools.example.com/a/../b", "https://tools.example.com/%2e%2e",
                "https://tools.example.com/.well-known/x", "https://tools.example.com/a?x=1")) {
            assertThatThrownBy(() -> settings(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("AGENT_TOOLS_SERVER_PUBLIC_URL");
        }
        assertThat(settings("https://tools.example.com").protectedResourceMetadataUrl())
                .as("without a prefix, the root form clients have been told").isEqualTo("https://tools.example.com/.well-known/oauth-protected-resource");
        assertThatThrownBy(() -> settings("https://tools.example.com:0")).hasMessageContaining("port 0");
        assertThat(settings("http://127.0.0.1:0").withBoundPort(8123).resource()).isEqualTo("http://127.0.0.1:8123/mcp");
    }

    private static OAuthSettings settings(String publicUrl) {
        URI google = URI.create("https://accounts.example/");
        return new OAuthSettings(URI.create(publicUrl), "client", "server-secret", google, google, google, Path.of("x.db"),
                List.of(key("k")), Duration.ofHours(1), Duration.ofDays(30));
    }
}
