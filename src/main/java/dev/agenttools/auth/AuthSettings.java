package dev.agenttools.auth;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * How sign-in works, read once from the config file and environment.
 *
 * @param clientSecrets the OAuth client (Desktop app) JSON from Google Cloud Console, or null when not configured
 * @param scopes        scopes asked for at sign-in
 * @param authUrl       the authorization endpoint (Google's, or an emulator's {@code ROOT/o/oauth2/auth})
 * @param tokenUrl      the token endpoint
 * @param revokeUrl     the revoke endpoint
 * @param storeDir      where the sign-in is kept (owner-only)
 */
public record AuthSettings(Path clientSecrets, List<String> scopes, String authUrl, String tokenUrl, String revokeUrl,
                           Path storeDir) {
    public static final String GMAIL_READONLY = "https://www.googleapis.com/auth/gmail.readonly";
    public static final String CALENDAR_READONLY = "https://www.googleapis.com/auth/calendar.readonly";
    public static final List<String> DEFAULT_SCOPES = List.of(GMAIL_READONLY, CALENDAR_READONLY);
    public static final String GOOGLE_AUTH_URL = "https://accounts.google.com/o/oauth2/auth";
    public static final String GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
    public static final String GOOGLE_REVOKE_URL = "https://oauth2.googleapis.com/revoke";

    public AuthSettings {
        scopes = List.copyOf(scopes);
    }

    /**
     * Reads {@code AGENT_TOOLS_CLIENT_SECRETS}, {@code AGENT_TOOLS_SCOPES} (space or comma separated),
     * {@code AGENT_TOOLS_OAUTH_AUTH_URL}, {@code AGENT_TOOLS_OAUTH_TOKEN_URL}, {@code AGENT_TOOLS_OAUTH_REVOKE_URL};
     * with {@code AGENT_TOOLS_OAUTH_ROOT_URL} (an emulator) the three endpoints default to its paths.
     *
     * @param configHome the folder of the config file, where the sign-in is stored
     */
    public static AuthSettings from(Map<String, String> settings, Path configHome) {
        String root = settings.get("AGENT_TOOLS_OAUTH_ROOT_URL");
        String base = root == null ? null : (root.endsWith("/") ? root : root + "/");
        String scopes = settings.get("AGENT_TOOLS_SCOPES");
        return new AuthSettings(
                settings.containsKey("AGENT_TOOLS_CLIENT_SECRETS") ? Path.of(settings.get("AGENT_TOOLS_CLIENT_SECRETS")) : null,
                scopes == null || scopes.isBlank() ? DEFAULT_SCOPES : expand(scopes),
                settings.getOrDefault("AGENT_TOOLS_OAUTH_AUTH_URL", base == null ? GOOGLE_AUTH_URL : base + "o/oauth2/auth"),
                settings.getOrDefault("AGENT_TOOLS_OAUTH_TOKEN_URL", base == null ? GOOGLE_TOKEN_URL : base + "token"),
                settings.getOrDefault("AGENT_TOOLS_OAUTH_REVOKE_URL", base == null ? GOOGLE_REVOKE_URL : base + "revoke"),
                configHome.resolve("credentials"));
    }

    /** Scope names as people write them: {@code gmail.readonly} or the whole URL. */
    public static List<String> expand(String scopes) {
        return Arrays.stream(scopes.split("[\\s,]+")).filter(s -> !s.isBlank())
                .map(s -> s.startsWith("https://") ? s : "https://www.googleapis.com/auth/" + s).toList();
    }

    public AuthSettings withClientSecrets(Path file) {
        return new AuthSettings(file, scopes, authUrl, tokenUrl, revokeUrl, storeDir);
    }

    public AuthSettings withScopes(List<String> s) {
        return new AuthSettings(clientSecrets, s, authUrl, tokenUrl, revokeUrl, storeDir);
    }
}
