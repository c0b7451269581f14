package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Settings;
import dev.agenttools.server.oauth.OAuthSettings;
import dev.agenttools.tool.Json;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The server's MCP authorization settings from the environment and config file (docs/mcp-authorization.md): on when
 * {@value #PUBLIC_URL} is set. Read once at start; every problem names the setting.
 */
final class ServerAuthorization {
    static final String PUBLIC_URL = "AGENT_TOOLS_SERVER_PUBLIC_URL";
    static final String GOOGLE_CLIENT_ID = "AGENT_TOOLS_SERVER_GOOGLE_CLIENT_ID";
    static final String GOOGLE_CLIENT_SECRET = "AGENT_TOOLS_SERVER_GOOGLE_CLIENT_SECRET";
    static final String TOKEN_KEY = "AGENT_TOOLS_SERVER_TOKEN_KEY";
    static final String TOKEN_KEY_FILE = "AGENT_TOOLS_SERVER_TOKEN_KEY_FILE";
    static final String STORE = "AGENT_TOOLS_SERVER_OAUTH_STORE";
    /** The DynamoDB table of the OAuth store; setting it (or AGENT_TOOLS_SHARED_STATE=dynamodb) puts the store there. */
    static final String TABLE = "AGENT_TOOLS_SERVER_OAUTH_TABLE";
    static final String DEFAULT_TABLE = "agent-tools-oauth";
    static final String ACCESS_TOKEN_LIFETIME = "AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME";
    static final String REFRESH_TOKEN_LIFETIME = "AGENT_TOOLS_SERVER_REFRESH_TOKEN_LIFETIME";
    /** How long a spent refresh token may be spent again by its client (a retry), 0: never. */
    static final String REFRESH_TOKEN_REUSE_GRACE = "AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE";
    /** The load balancers whose X-Forwarded-For the sign-in endpoints' rate limits believe. */
    static final String TRUSTED_PROXIES = "AGENT_TOOLS_SERVER_TRUSTED_PROXIES";

    private ServerAuthorization() {
    }

    /**
     * The settings, or null when {@value #PUBLIC_URL} is not set (service keys on /mcp, as before).
     *
     * @param env the process's environment, for {@code XDG_DATA_HOME} (the settings keep only agent-tools' own)
     * @throws IllegalArgumentException naming the setting that is missing or bad
     */
    static OAuthSettings from(Settings settings, Map<String, String> env) {
        // read even when authorization is off, so that a typo is refused at start rather than found when it is on
        List<String> proxies = OAuthSettings.parseTrustedProxies(settings.value(TRUSTED_PROXIES));
        String publicUrl = settings.value(PUBLIC_URL);
        if (publicUrl == null || publicUrl.isBlank()) {
            return null;
        }
        String[] client = googleClient(settings);
        String gmailRoot = settings.gmail().rootUrl();
        String store = settings.value(STORE);
        String xdg = env.get("XDG_DATA_HOME");
        Path data = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return new OAuthSettings(URI.create(publicUrl.strip()), client[0], client[1], URI.create(settings.auth().authUrl()),
                URI.create(settings.auth().tokenUrl()),
                URI.create((gmailRoot.endsWith("/") ? gmailRoot : gmailRoot + "/") + "gmail/v1/users/me/profile"),
                store == null || store.isBlank() ? data.resolve("agent-tools").resolve("server-oauth.db") : Path.of(store),
                keys(settings),
                lifetime(settings, ACCESS_TOKEN_LIFETIME, OAuthSettings.DEFAULT_ACCESS_TOKEN_LIFETIME),
                lifetime(settings, REFRESH_TOKEN_LIFETIME, OAuthSettings.DEFAULT_REFRESH_TOKEN_LIFETIME), dynamo(settings),
                lifetime(settings, REFRESH_TOKEN_REUSE_GRACE, OAuthSettings.DEFAULT_REFRESH_TOKEN_REUSE_GRACE), proxies);
    }

    /**
     * The DynamoDB table of the OAuth store, when {@value #TABLE} is set or the instances share their state in DynamoDB
     * ({@code AGENT_TOOLS_SHARED_STATE=dynamodb}: instances on several machines, which a SQLite file cannot serve); null:
     * the SQLite file. Endpoint and region as tracking and the shared state read them.
     */
    private static OAuthSettings.DynamoTable dynamo(Settings settings) {
        String table = settings.value(TABLE);
        boolean shared = "dynamodb".equals(settings.value(ServerCommand.SHARED_STATE));
        if ((table == null || table.isBlank()) && !shared) {
            return null;
        }
        String store = settings.value(STORE);
        if (store != null && !store.isBlank()) {
            throw new IllegalArgumentException(STORE + " names a SQLite file, but the OAuth store is in DynamoDB ("
                    + (shared ? ServerCommand.SHARED_STATE + "=dynamodb" : TABLE + " is set") + "): unset one of them");
        }
        var tracking = settings.tracking();
        return new OAuthSettings.DynamoTable(table == null || table.isBlank() ? DEFAULT_TABLE : table.strip(),
                tracking.dynamoEndpoint(), tracking.region());
    }

    /**
     * The server's Google OAuth client: {@value #GOOGLE_CLIENT_ID} and {@value #GOOGLE_CLIENT_SECRET}, else the JSON
     * Google Cloud Console downloads for it, named by {@code AGENT_TOOLS_CLIENT_SECRETS} (its {@code web} section).
     */
    private static String[] googleClient(Settings settings) {
        String id = settings.value(GOOGLE_CLIENT_ID);
        String secret = settings.value(GOOGLE_CLIENT_SECRET);
        if (id != null && secret != null) {
            return new String[] {id.strip(), secret.strip()};
        }
        Path file = settings.auth().clientSecrets();
        if (file == null) {
            throw new IllegalArgumentException(PUBLIC_URL + " is set, so the server signs users in with Google: set "
                    + GOOGLE_CLIENT_ID + " and " + GOOGLE_CLIENT_SECRET + ", or AGENT_TOOLS_CLIENT_SECRETS to the web "
                    + "application client's JSON (its redirect URI: the public URL + /oauth/callback)");
        }
        try {
            JsonNode json = Json.MAPPER.readTree(Files.readString(file, StandardCharsets.UTF_8));
            JsonNode details = json.has("web") ? json.get("web") : json.path("installed");
            if (!details.path("client_id").isTextual() || !details.path("client_secret").isTextual()) {
                throw new IllegalArgumentException("AGENT_TOOLS_CLIENT_SECRETS " + file + " has no web (or installed) section with client_id and client_secret");
            }
            return new String[] {details.get("client_id").asText(), details.get("client_secret").asText()};
        } catch (IOException e) {
            throw new IllegalArgumentException("AGENT_TOOLS_CLIENT_SECRETS: cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static List<OAuthSettings.Key> keys(Settings settings) {
        String inline = settings.value(TOKEN_KEY);
        if (inline != null && !inline.isBlank()) {
            return OAuthSettings.parseKeys(inline, TOKEN_KEY);
        }
        String fileName = settings.value(TOKEN_KEY_FILE);
        if (fileName == null || fileName.isBlank()) {
            throw new IllegalArgumentException(PUBLIC_URL + " is set, so the server stores users' Google refresh tokens "
                    + "encrypted: set " + TOKEN_KEY + " to ID:BASE64 of 32 random bytes (head -c32 /dev/urandom | base64), "
                    + "or " + TOKEN_KEY_FILE + " to a file of ID BASE64 lines");
        }
        Path file = Path.of(fileName);
        try {
            // a key others can read is no secret: refused as ssh refuses a private key others can read
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (mode.stream().anyMatch(p -> p.name().startsWith("GROUP_") || p.name().startsWith("OTHERS_"))) {
                throw new IllegalArgumentException(TOKEN_KEY_FILE + " " + file + " may be read or written by other users (mode "
                        + PosixFilePermissions.toString(mode) + "): chmod 600 it");
            }
        } catch (UnsupportedOperationException e) {
            // no POSIX permissions here (Windows): its own ACLs apply
        } catch (IOException e) {
            throw new IllegalArgumentException(TOKEN_KEY_FILE + ": cannot read " + file + ": " + e.getMessage(), e);
        }
        try {
            return OAuthSettings.parseKeys(Files.readString(file, StandardCharsets.UTF_8), TOKEN_KEY_FILE + " " + file);
        } catch (IOException e) {
            throw new IllegalArgumentException(TOKEN_KEY_FILE + ": cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static Duration lifetime(Settings settings, String name, Duration fallback) {
        String v = settings.value(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return new DurationConverter().convert(v);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }
}
