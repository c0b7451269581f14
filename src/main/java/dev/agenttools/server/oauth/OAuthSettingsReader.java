package dev.agenttools.server.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Durations;
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
import java.util.Set;
import java.util.function.Function;

/**
 * The server's MCP authorization settings (docs/mcp-authorization.md), read from the settings the command line
 * hands over: on when {@value OAuthSettings#PUBLIC_URL} is set. Read once at start; every problem names the setting.
 */
final class OAuthSettingsReader {
    private OAuthSettingsReader() {
    }

    static OAuthSettings read(OAuthSettings.Sources in) {
        Function<String, String> setting = in.setting();
        // read even when authorization is off, so that a typo is refused at start rather than found when it is on
        List<String> proxies = OAuthSettings.parseTrustedProxies(setting.apply(OAuthSettings.TRUSTED_PROXIES));
        String publicUrl = setting.apply(OAuthSettings.PUBLIC_URL);
        if (publicUrl == null || publicUrl.isBlank()) {
            return null;
        }
        String[] client = googleClient(in);
        String gmailRoot = in.gmailRoot();
        String store = setting.apply(OAuthSettings.STORE);
        return new OAuthSettings(URI.create(publicUrl.strip()), client[0], client[1], in.authUrl(), in.tokenUrl(),
                URI.create((gmailRoot.endsWith("/") ? gmailRoot : gmailRoot + "/") + "gmail/v1/users/me/profile"),
                store == null || store.isBlank() ? in.dataHome().resolve("agent-tools").resolve("server-oauth.db") : Path.of(store),
                keys(setting),
                lifetime(setting, OAuthSettings.ACCESS_TOKEN_LIFETIME, OAuthSettings.DEFAULT_ACCESS_TOKEN_LIFETIME),
                lifetime(setting, OAuthSettings.REFRESH_TOKEN_LIFETIME, OAuthSettings.DEFAULT_REFRESH_TOKEN_LIFETIME), dynamo(in),
                lifetime(setting, OAuthSettings.REFRESH_TOKEN_REUSE_GRACE, OAuthSettings.DEFAULT_REFRESH_TOKEN_REUSE_GRACE), proxies);
    }

    /**
     * The DynamoDB table of the OAuth store, when {@value OAuthSettings#TABLE} is set or the instances share their state
     * in DynamoDB (instances on several machines, which a SQLite file cannot serve); null: the SQLite file.
     */
    private static OAuthSettings.DynamoTable dynamo(OAuthSettings.Sources in) {
        String table = in.setting().apply(OAuthSettings.TABLE);
        if ((table == null || table.isBlank()) && !in.sharedStateInDynamo()) {
            return null;
        }
        String store = in.setting().apply(OAuthSettings.STORE);
        if (store != null && !store.isBlank()) {
            throw new IllegalArgumentException(OAuthSettings.STORE + " names a SQLite file, but the OAuth store is in DynamoDB ("
                    + (in.sharedStateInDynamo() ? in.sharedStateSetting() + "=dynamodb" : OAuthSettings.TABLE + " is set")
                    + "): unset one of them");
        }
        return new OAuthSettings.DynamoTable(table == null || table.isBlank() ? OAuthSettings.DEFAULT_TABLE : table.strip(),
                in.dynamoEndpoint(), in.region());
    }

    /**
     * The server's Google OAuth client: {@value OAuthSettings#GOOGLE_CLIENT_ID} and
     * {@value OAuthSettings#GOOGLE_CLIENT_SECRET}, else the JSON Google Cloud Console downloads for it, named by
     * {@code AGENT_TOOLS_CLIENT_SECRETS} (its {@code web} section).
     */
    private static String[] googleClient(OAuthSettings.Sources in) {
        String id = in.setting().apply(OAuthSettings.GOOGLE_CLIENT_ID);
        String secret = in.setting().apply(OAuthSettings.GOOGLE_CLIENT_SECRET);
        if (id != null && secret != null) {
            return new String[] {id.strip(), secret.strip()};
        }
        Path file = in.clientSecrets();
        if (file == null) {
            throw new IllegalArgumentException(OAuthSettings.PUBLIC_URL + " is set, so the server signs users in with Google: set "
                    + OAuthSettings.GOOGLE_CLIENT_ID + " and " + OAuthSettings.GOOGLE_CLIENT_SECRET + ", or AGENT_TOOLS_CLIENT_SECRETS "
                    + "to the web application client's JSON (its redirect URI: the public URL + /oauth/callback)");
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

    private static List<OAuthSettings.Key> keys(Function<String, String> setting) {
        String inline = setting.apply(OAuthSettings.TOKEN_KEY);
        if (inline != null && !inline.isBlank()) {
            return OAuthSettings.parseKeys(inline, OAuthSettings.TOKEN_KEY);
        }
        String fileName = setting.apply(OAuthSettings.TOKEN_KEY_FILE);
        if (fileName == null || fileName.isBlank()) {
            throw new IllegalArgumentException(OAuthSettings.PUBLIC_URL + " is set, so the server stores users' Google refresh "
                    + "tokens encrypted: set " + OAuthSettings.TOKEN_KEY + " to ID:BASE64 of 32 random bytes (head -c32 "
                    + "/dev/urandom | base64), or " + OAuthSettings.TOKEN_KEY_FILE + " to a file of ID BASE64 lines");
        }
        Path file = Path.of(fileName);
        try {
            // a key others can read is no secret: refused as ssh refuses a private key others can read
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (mode.stream().anyMatch(p -> p.name().startsWith("GROUP_") || p.name().startsWith("OTHERS_"))) {
                throw new IllegalArgumentException(OAuthSettings.TOKEN_KEY_FILE + " " + file + " may be read or written by other "
                        + "users (mode " + PosixFilePermissions.toString(mode) + "): chmod 600 it");
            }
        } catch (UnsupportedOperationException e) {
            // no POSIX permissions here (Windows): its own ACLs apply
        } catch (IOException e) {
            throw new IllegalArgumentException(OAuthSettings.TOKEN_KEY_FILE + ": cannot read " + file + ": " + e.getMessage(), e);
        }
        try {
            return OAuthSettings.parseKeys(Files.readString(file, StandardCharsets.UTF_8), OAuthSettings.TOKEN_KEY_FILE + " " + file);
        } catch (IOException e) {
            throw new IllegalArgumentException(OAuthSettings.TOKEN_KEY_FILE + ": cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static Duration lifetime(Function<String, String> setting, String name, Duration fallback) {
        String v = setting.apply(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return Durations.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }
}
