package dev.agenttools.server;

import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.habit.HabitSettings;
import dev.agenttools.server.oauth.OAuthSettings;
import dev.agenttools.tool.ToolRegistry;

import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code agent-tools server}'s HTTP service with MCP authorization, started in the test's JVM on a loopback port with
 * an emulator as Google: what the MCP authorization tests run against.
 */
final class OAuthServer implements AutoCloseable {
    final HttpService service;
    final ToolRegistry tools;
    /** Where it listens (its own port, whatever the public URL says). */
    final URI base;

    /** Settings with the emulator as Google, a 1 h access token, a 30 day refresh token and one new key {@code k1}. */
    static OAuthSettings settings(Emulator google, URI publicUrl, Path store) {
        return settings(google, publicUrl, store, Duration.ofHours(1), List.of(newKey("k1")));
    }

    static OAuthSettings settings(Emulator google, URI publicUrl, Path store, Duration accessTokenLifetime,
                                  List<OAuthSettings.Key> keys) {
        URI root = google.rootUri();
        return new OAuthSettings(publicUrl, "agent-tools-server", "server-secret", root.resolve("o/oauth2/auth"),
                root.resolve("token"), root.resolve("gmail/v1/users/me/profile"), store, keys, accessTokenLifetime,
                Duration.ofDays(30));
    }

    /** A new random AES-256 key of this id. */
    static OAuthSettings.Key newKey(String id) {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return new OAuthSettings.Key(id, secret);
    }

    OAuthServer(Emulator google, OAuthSettings oauth) throws Exception {
        this(google, oauth, Set.of());
    }

    /** @param allowedOrigins the browser origins {@code /mcp} takes (AGENT_TOOLS_SERVER_ALLOWED_ORIGINS) */
    OAuthServer(Emulator google, OAuthSettings oauth, Set<String> allowedOrigins) throws Exception {
        this(google, oauth, allowedOrigins, HttpService.Limits.DEFAULT, null);
    }

    /** @param limits the HTTP front's rates, connection caps and timeouts */
    OAuthServer(Emulator google, OAuthSettings oauth, Set<String> allowedOrigins, HttpService.Limits limits) throws Exception {
        this(google, oauth, allowedOrigins, limits, null);
    }

    /** With the Habit tools too, their habits in {@code habits} (each Google account's own, as the server keeps them). */
    OAuthServer(Emulator google, OAuthSettings oauth, Path habits) throws Exception {
        this(google, oauth, Set.of(), HttpService.Limits.DEFAULT, habits);
    }

    private OAuthServer(Emulator google, OAuthSettings oauth, Set<String> allowedOrigins, HttpService.Limits limits, Path habits)
            throws Exception {
        URI root = google.rootUri();
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 100, 100, 64 * 1024, Duration.ofSeconds(5),
                null, null, allowedOrigins, List.of(root)).withOAuth(oauth).withLimits(limits);
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        Tools.Builder builder = Tools.builder().rootUrl(root.toString()).noTokenMessage("no Google access token").listener(metrics);
        if (habits != null) {
            builder.habit(HabitSettings.at(habits).forManyUsers());
        }
        tools = builder.build();
        service = HttpService.start(tools, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
        base = URI.create("http://127.0.0.1:" + service.port());
    }

    @Override
    public void close() {
        service.close();
        tools.close();
    }
}
