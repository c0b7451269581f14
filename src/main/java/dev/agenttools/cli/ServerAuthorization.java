package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.server.oauth.OAuthSettings;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

/**
 * The server's MCP authorization settings from the config file and the environment: what the command line knows (the
 * settings, Google's endpoints, the shared state) handed to {@link OAuthSettings#read}, which parses and checks them.
 */
final class ServerAuthorization {
    static final String PUBLIC_URL = OAuthSettings.PUBLIC_URL;
    static final String TRUSTED_PROXIES = OAuthSettings.TRUSTED_PROXIES;

    private ServerAuthorization() {
    }

    /**
     * The settings, or null when {@value #PUBLIC_URL} is not set (service keys on /mcp, as before).
     *
     * @param env the process's environment, for {@code XDG_DATA_HOME} (the settings keep only agent-tools' own)
     * @throws IllegalArgumentException naming the setting that is missing or bad
     */
    static OAuthSettings from(Settings settings, Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        Path data = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        var tracking = settings.tracking();
        return OAuthSettings.read(new OAuthSettings.Sources(settings::value, URI.create(settings.auth().authUrl()),
                URI.create(settings.auth().tokenUrl()), settings.gmail().rootUrl(), settings.auth().clientSecrets(), data,
                "dynamodb".equals(settings.value(ServerCommand.SHARED_STATE)), ServerCommand.SHARED_STATE,
                tracking.dynamoEndpoint(), tracking.region()));
    }
}
