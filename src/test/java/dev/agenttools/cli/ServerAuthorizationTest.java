package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.server.oauth.OAuthSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code agent-tools server}'s MCP authorization settings, as the environment gives them. */
class ServerAuthorizationTest {
    private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);
    @TempDir
    Path dir;

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("XDG_DATA_HOME", dir.resolve("data").toString());
        env.put("AGENT_TOOLS_SERVER_PUBLIC_URL", "https://tools.example.com");
        env.put("AGENT_TOOLS_SERVER_GOOGLE_CLIENT_ID", "id.apps.googleusercontent.com");
        env.put("AGENT_TOOLS_SERVER_GOOGLE_CLIENT_SECRET", "GOCSPX-secret");
        env.put("AGENT_TOOLS_SERVER_TOKEN_KEY", "k1:" + KEY);
        env.put("AGENT_TOOLS_OAUTH_ROOT_URL", "http://127.0.0.1:7777/");
        env.put("AGENT_TOOLS_GMAIL_ROOT_URL", "http://127.0.0.1:7777/");
        return env;
    }

    @Test
    void isOffWithoutAPublicUrlAndDerivesEverythingFromTheSettingsWithOne() {
        Map<String, String> env = env();
        env.remove("AGENT_TOOLS_SERVER_PUBLIC_URL");
        assertThat(ServerAuthorization.from(Settings.from(env), env)).isNull();

        env = env();
        env.put("AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME", "5m");
        OAuthSettings s = ServerAuthorization.from(Settings.from(env), env);
        assertThat(s.publicUrl()).hasToString("https://tools.example.com");
        assertThat(s.googleAuthUrl()).hasToString("http://127.0.0.1:7777/o/oauth2/auth");
        assertThat(s.googleTokenUrl()).hasToString("http://127.0.0.1:7777/token");
        assertThat(s.store()).isEqualTo(dir.resolve("data/agent-tools/server-oauth.db"));
        assertThat(s.accessTokenLifetime()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.refreshTokenLifetime()).isEqualTo(Duration.ofDays(30));
        assertThat(s.refreshTokenReuseGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.toString()).doesNotContain("GOCSPX-secret").doesNotContain(KEY);
    }

    @Test
    void putsTheOAuthStoreInDynamoDbWhenItsTableIsSetOrTheInstancesShareTheirStateThere() {
        Map<String, String> env = env();
        assertThat(ServerAuthorization.from(Settings.from(env), env).dynamo()).as("SQLite by default").isNull();

        env.put("AGENT_TOOLS_SHARED_STATE", "dynamodb");
        env.put("AGENT_TOOLS_DYNAMODB_ENDPOINT", "http://127.0.0.1:8000");
        env.put("AWS_REGION", "eu-west-1");
        OAuthSettings.DynamoTable shared = ServerAuthorization.from(Settings.from(env), env).dynamo();
        assertThat(shared).isEqualTo(new OAuthSettings.DynamoTable("agent-tools-oauth", URI.create("http://127.0.0.1:8000"), "eu-west-1"));

        Map<String, String> table = env();
        table.put("AGENT_TOOLS_SERVER_OAUTH_TABLE", "tools-oauth");
        OAuthSettings s = ServerAuthorization.from(Settings.from(table), table);
        assertThat(s.dynamo().table()).isEqualTo("tools-oauth");
        assertThat(s.dynamo().endpoint()).as("AWS's").isNull();
        assertThat(s.toString()).contains("tools-oauth");

        // a SQLite file named as well is a contradiction, not a silent choice
        table.put("AGENT_TOOLS_SERVER_OAUTH_STORE", dir.resolve("oauth.db").toString());
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(table), table))
                .hasMessageContaining("AGENT_TOOLS_SERVER_OAUTH_STORE").hasMessageContaining("AGENT_TOOLS_SERVER_OAUTH_TABLE");
        Map<String, String> badName = env();
        badName.put("AGENT_TOOLS_SERVER_OAUTH_TABLE", "a b");
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(badName), badName))
                .hasMessageContaining("table name").hasMessageContaining("a b");
    }

    @Test
    void namesTheMissingSettingAndRefusesAKeyFileOthersMayRead() throws Exception {
        Map<String, String> noClient = env();
        noClient.remove("AGENT_TOOLS_SERVER_GOOGLE_CLIENT_ID");
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(noClient), noClient))
                .hasMessageContaining("AGENT_TOOLS_SERVER_GOOGLE_CLIENT_ID").hasMessageContaining("AGENT_TOOLS_CLIENT_SECRETS");
        Map<String, String> noKey = env();
        noKey.remove("AGENT_TOOLS_SERVER_TOKEN_KEY");
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(noKey), noKey)).hasMessageContaining("AGENT_TOOLS_SERVER_TOKEN_KEY");

        Path keys = dir.resolve("keys");
        Files.writeString(keys, "# newest first\nk2 " + KEY + "\nk1 " + KEY + "\n");
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-r--r--"));
        Map<String, String> fromFile = env();
        fromFile.remove("AGENT_TOOLS_SERVER_TOKEN_KEY");
        fromFile.put("AGENT_TOOLS_SERVER_TOKEN_KEY_FILE", keys.toString());
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(fromFile), fromFile)).hasMessageContaining("chmod 600");
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
        assertThat(ServerAuthorization.from(Settings.from(fromFile), fromFile).keys()).extracting(OAuthSettings.Key::id).containsExactly("k2", "k1");

        Map<String, String> plain = env();
        plain.put("AGENT_TOOLS_SERVER_PUBLIC_URL", "http://tools.example.com");
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(plain), plain)).hasMessageContaining("AGENT_TOOLS_SERVER_PUBLIC_URL");
        Map<String, String> badLifetime = env();
        badLifetime.put("AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME", "soon");
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(badLifetime), badLifetime)).hasMessageContaining("AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME");
    }

    @Test
    void readsTheGraceForARefreshTokensReuseFromZeroToFiveMinutesAndRefusesOthersNamingIt() {
        for (Map.Entry<String, Duration> ok : Map.of("0", Duration.ZERO, "5m", Duration.ofMinutes(5), "10s", Duration.ofSeconds(10)).entrySet()) {
            Map<String, String> env = env();
            env.put("AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE", ok.getKey());
            assertThat(ServerAuthorization.from(Settings.from(env), env).refreshTokenReuseGrace()).as(ok.getKey()).isEqualTo(ok.getValue());
        }
        for (String bad : new String[] {"301s", "1h", "soon", "-1s"}) {
            Map<String, String> env = env();
            env.put("AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE", bad);
            assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(env), env)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE");
        }
        Map<String, String> tooLong = env();
        tooLong.put("AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE", "6m");
        assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(tooLong), tooLong)).hasMessageContaining("from 0").hasMessageContaining("300s");
    }

    @Test
    void readsTheTrustedProxiesAsAddressesAndCidrRangesAndRefusesABadEntryNamingItEvenWithAuthorizationOff() {
        Map<String, String> env = env();
        assertThat(ServerAuthorization.from(Settings.from(env), env).trustedProxies()).as("unset: none").isEmpty();
        env.put("AGENT_TOOLS_SERVER_TRUSTED_PROXIES", " 127.0.0.1, 10.0.0.0/8,fd00::/8 ,::1,192.168.1.0/24,");
        assertThat(ServerAuthorization.from(Settings.from(env), env).trustedProxies())
                .containsExactly("127.0.0.1/32", "10.0.0.0/8", "fd00:0:0:0:0:0:0:0/8", "0:0:0:0:0:0:0:1/128", "192.168.1.0/24");
        for (String bad : new String[] {"proxy.internal", "10.0.0.0/33", "fd00::/129", "10.0.0.1/8", "10.0.0", "10.0.0.0/x",
                "10.0.0.0/", "256.1.1.1", "10.0.0.0-10.0.0.9", "fe80::1%eth0"}) {
            for (boolean authorizationOn : new boolean[] {true, false}) {
                Map<String, String> withBad = env();
                if (!authorizationOn) {
                    withBad.remove("AGENT_TOOLS_SERVER_PUBLIC_URL");
                }
                withBad.put("AGENT_TOOLS_SERVER_TRUSTED_PROXIES", "127.0.0.1," + bad);
                assertThatThrownBy(() -> ServerAuthorization.from(Settings.from(withBad), withBad)).as(bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("AGENT_TOOLS_SERVER_TRUSTED_PROXIES").hasMessageContaining("\"" + bad + "\"");
            }
        }
    }
}
