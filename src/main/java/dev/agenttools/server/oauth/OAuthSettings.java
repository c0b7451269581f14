package dev.agenttools.server.oauth;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * How the server's MCP authorization runs, read once and validated here. Public only for the command line and the
 * service (internal).
 *
 * @param publicUrl            where clients reach the server ({@code AGENT_TOOLS_SERVER_PUBLIC_URL}): {@code https},
 *                             or {@code http} on a loopback host; no query or fragment; a path is the prefix a
 *                             reverse proxy publishes the server under ({@code https://host/agent-tools}). Port 0 on
 *                             a loopback host stands for the port the server binds (local use, tests).
 * @param googleClientId       the server's OAuth client at Google (a web application whose redirect URI is
 *                             {@code <publicUrl>/oauth/callback})
 * @param googleClientSecret   its secret (never shown by {@link #toString})
 * @param googleAuthUrl        Google's authorization endpoint (an emulator's in tests)
 * @param googleTokenUrl       Google's token endpoint
 * @param profileUrl           Gmail's {@code users/me/profile}, which names the account a Google token belongs to
 * @param store                the SQLite file of clients, codes, token digests and encrypted Google refresh tokens
 *                             (when {@code dynamo} is null)
 * @param keys                 the keys Google refresh tokens are encrypted with: the first encrypts, all decrypt
 * @param accessTokenLifetime  how long the server's access tokens live (1 h by default)
 * @param refreshTokenLifetime how long a refresh token of the server lives unused (30 days by default)
 * @param dynamo               the DynamoDB table that instances on several machines share, in place of {@code store};
 *                             null: the SQLite file
 * @param refreshTokenReuseGrace how long after a refresh token is spent its client may spend it again and get another
 *                             pair of the same grant (a lost answer retried, two refreshes at once) instead of ending
 *                             the grant as a theft (30 s by default, 0: never, at most {@link #MAX_REFRESH_TOKEN_REUSE_GRACE})
 * @param trustedProxies       the proxies whose {@code X-Forwarded-For} the sign-in endpoints' rate limits believe
 *                             ({@code AGENT_TOOLS_SERVER_TRUSTED_PROXIES}), each an address or CIDR range as
 *                             {@link #parseTrustedProxies} gives them; empty: every request counts as its peer
 */
public record OAuthSettings(URI publicUrl, String googleClientId, String googleClientSecret, URI googleAuthUrl,
                            URI googleTokenUrl, URI profileUrl, Path store, List<Key> keys,
                            Duration accessTokenLifetime, Duration refreshTokenLifetime, DynamoTable dynamo,
                            Duration refreshTokenReuseGrace, List<String> trustedProxies) {
    public static final String PUBLIC_URL = "AGENT_TOOLS_SERVER_PUBLIC_URL";
    public static final String GOOGLE_CLIENT_ID = "AGENT_TOOLS_SERVER_GOOGLE_CLIENT_ID";
    public static final String GOOGLE_CLIENT_SECRET = "AGENT_TOOLS_SERVER_GOOGLE_CLIENT_SECRET";
    public static final String TOKEN_KEY = "AGENT_TOOLS_SERVER_TOKEN_KEY";
    public static final String TOKEN_KEY_FILE = "AGENT_TOOLS_SERVER_TOKEN_KEY_FILE";
    public static final String STORE = "AGENT_TOOLS_SERVER_OAUTH_STORE";
    /** The DynamoDB table of the OAuth store; setting it (or sharing the state in DynamoDB) puts the store there. */
    public static final String TABLE = "AGENT_TOOLS_SERVER_OAUTH_TABLE";
    public static final String DEFAULT_TABLE = "agent-tools-oauth";
    public static final String ACCESS_TOKEN_LIFETIME = "AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME";
    public static final String REFRESH_TOKEN_LIFETIME = "AGENT_TOOLS_SERVER_REFRESH_TOKEN_LIFETIME";
    /** How long a spent refresh token may be spent again by its client (a retry), 0: never. */
    public static final String REFRESH_TOKEN_REUSE_GRACE = "AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE";
    /** The load balancers whose X-Forwarded-For the sign-in endpoints' rate limits believe. */
    public static final String TRUSTED_PROXIES = "AGENT_TOOLS_SERVER_TRUSTED_PROXIES";

    /**
     * What the settings are read from: each setting by name (config file and environment, as the command line reads
     * them), and what other parts of the configuration say.
     *
     * @param authUrl             Google's authorization endpoint
     * @param tokenUrl            Google's token endpoint
     * @param gmailRoot           Gmail's root URL (an emulator's in tests)
     * @param clientSecrets       {@code AGENT_TOOLS_CLIENT_SECRETS}, or null
     * @param dataHome            {@code XDG_DATA_HOME} or {@code ~/.local/share}: where the SQLite store goes by default
     * @param sharedStateInDynamo whether the instances share their state in DynamoDB ({@code sharedStateSetting}=dynamodb)
     */
    public record Sources(Function<String, String> setting, URI authUrl, URI tokenUrl, String gmailRoot, Path clientSecrets,
                          Path dataHome, boolean sharedStateInDynamo, String sharedStateSetting, URI dynamoEndpoint, String region) {
    }

    /**
     * The settings, or null when {@value #PUBLIC_URL} is not set (service keys on /mcp).
     *
     * @throws IllegalArgumentException naming the setting that is missing or bad
     */
    public static OAuthSettings read(Sources sources) {
        return OAuthSettingsReader.read(sources);
    }

    public static final Duration DEFAULT_ACCESS_TOKEN_LIFETIME = Duration.ofHours(1);
    public static final Duration DEFAULT_REFRESH_TOKEN_LIFETIME = Duration.ofDays(30);
    /** Okta's default "grace period for token rotation": a retry or a second refresh in flight comes within seconds. */
    public static final Duration DEFAULT_REFRESH_TOKEN_REUSE_GRACE = Duration.ofSeconds(30);
    /**
     * At most 5 minutes: within the grace a reuse by the token's client (whose id is public) is not taken as theft, so
     * a longer one would leave a stolen refresh token of a client usable for that long after the client spent it.
     */
    public static final Duration MAX_REFRESH_TOKEN_REUSE_GRACE = Duration.ofMinutes(5);
    /** The Google scopes asked at consent: what the tools read. */
    static final List<String> GOOGLE_SCOPES = List.of("https://www.googleapis.com/auth/gmail.readonly",
            "https://www.googleapis.com/auth/calendar.readonly");
    /**
     * The scopes of the server's own tokens, per family of tools: what reads it and, for a family with tools that write,
     * what writes it (Scopes: the mapping; docs/mcp-authorization.md, "Scopes"). The read scopes of Gmail and Calendar
     * are named after the Google scopes they stand for.
     */
    static final List<String> SCOPES = List.of("gmail.readonly", "calendar.readonly", "habits.readonly", "habits");

    /**
     * An AES-256 key for Google refresh tokens, with the id stored beside each ciphertext (for rotation).
     *
     * @param id     1..32 of {@code A-Za-z0-9._-}
     * @param secret 32 bytes (never shown by {@link #toString})
     */
    public record Key(String id, byte[] secret) {
        public Key {
            if (id == null || !id.matches("[A-Za-z0-9._-]{1,32}")) {
                // a misplaced secret may stand where the id goes: its value is never repeated
                throw new IllegalArgumentException("a token key id must be 1..32 of A-Z a-z 0-9 . _ -, got "
                        + (id == null ? "none" : id.length() + " characters"));
            }
            if (secret == null || secret.length != 32) {
                throw new IllegalArgumentException("token key " + id + " must be 32 bytes (base64 of 32 random bytes: "
                        + "head -c32 /dev/urandom | base64), got " + (secret == null ? 0 : secret.length));
            }
            secret = secret.clone();
        }

        @Override
        public byte[] secret() {
            return secret.clone();
        }

        @Override
        public String toString() {
            return "Key[id=" + id + ", secret=(not shown)]";
        }
    }

    /**
     * The DynamoDB table of the store (docs/mcp-authorization.md names its items).
     *
     * @param table    its name (3..255 of {@code A-Za-z0-9._-}, as DynamoDB allows)
     * @param endpoint a local DynamoDB (dynalite, DynamoDB Local), where the table is made when missing; null: AWS's,
     *                 where it must exist (with TTL on {@code expires_at})
     * @param region   the AWS region
     */
    public record DynamoTable(String table, URI endpoint, String region) {
        public DynamoTable {
            require(table != null && table.matches("[A-Za-z0-9._-]{3,255}"),
                    "the OAuth store's DynamoDB table name must be 3..255 of A-Z a-z 0-9 . _ -, got " + table);
            require(region != null && !region.isBlank(), "the OAuth store's DynamoDB region is missing");
        }
    }

    /** The settings of a SQLite store (one machine). */
    public OAuthSettings(URI publicUrl, String googleClientId, String googleClientSecret, URI googleAuthUrl,
                         URI googleTokenUrl, URI profileUrl, Path store, List<Key> keys,
                         Duration accessTokenLifetime, Duration refreshTokenLifetime) {
        this(publicUrl, googleClientId, googleClientSecret, googleAuthUrl, googleTokenUrl, profileUrl, store, keys,
                accessTokenLifetime, refreshTokenLifetime, null);
    }

    /** The settings with the default grace for a refresh token's reuse. */
    public OAuthSettings(URI publicUrl, String googleClientId, String googleClientSecret, URI googleAuthUrl,
                         URI googleTokenUrl, URI profileUrl, Path store, List<Key> keys,
                         Duration accessTokenLifetime, Duration refreshTokenLifetime, DynamoTable dynamo) {
        this(publicUrl, googleClientId, googleClientSecret, googleAuthUrl, googleTokenUrl, profileUrl, store, keys,
                accessTokenLifetime, refreshTokenLifetime, dynamo, DEFAULT_REFRESH_TOKEN_REUSE_GRACE);
    }

    /** The settings with no trusted proxy: every request counts as its connection's peer. */
    public OAuthSettings(URI publicUrl, String googleClientId, String googleClientSecret, URI googleAuthUrl,
                         URI googleTokenUrl, URI profileUrl, Path store, List<Key> keys,
                         Duration accessTokenLifetime, Duration refreshTokenLifetime, DynamoTable dynamo,
                         Duration refreshTokenReuseGrace) {
        this(publicUrl, googleClientId, googleClientSecret, googleAuthUrl, googleTokenUrl, profileUrl, store, keys,
                accessTokenLifetime, refreshTokenLifetime, dynamo, refreshTokenReuseGrace, List.of());
    }

    public OAuthSettings {
        publicUrl = checkPublicUrl(publicUrl);
        require(googleClientId != null && !googleClientId.isBlank(), "the Google OAuth client id is missing");
        require(googleClientSecret != null && !googleClientSecret.isBlank(), "the Google OAuth client secret is missing");
        require(googleAuthUrl != null && googleTokenUrl != null && profileUrl != null, "Google's endpoints are missing");
        require(store != null || dynamo != null, "the OAuth store file is missing");
        require(keys != null && !keys.isEmpty(), "no token key: set AGENT_TOOLS_SERVER_TOKEN_KEY (ID:BASE64 of 32 bytes) "
                + "or AGENT_TOOLS_SERVER_TOKEN_KEY_FILE");
        keys = List.copyOf(keys);
        require(keys.stream().map(Key::id).distinct().count() == keys.size(), "token key ids must differ");
        require(accessTokenLifetime != null && !accessTokenLifetime.isNegative() && !accessTokenLifetime.isZero()
                        && accessTokenLifetime.compareTo(Duration.ofDays(1)) <= 0,
                "AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME must be over 0 and at most 1 day, got " + accessTokenLifetime);
        require(refreshTokenLifetime != null && refreshTokenLifetime.compareTo(accessTokenLifetime) >= 0
                        && refreshTokenLifetime.compareTo(Duration.ofDays(365)) <= 0,
                "AGENT_TOOLS_SERVER_REFRESH_TOKEN_LIFETIME must be from AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME ("
                        + accessTokenLifetime + ") to 365 days, got " + refreshTokenLifetime);
        require(refreshTokenReuseGrace != null && !refreshTokenReuseGrace.isNegative()
                        && refreshTokenReuseGrace.compareTo(MAX_REFRESH_TOKEN_REUSE_GRACE) <= 0,
                "AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE must be from 0 (no grace: every reuse ends the sign-in) to "
                        + MAX_REFRESH_TOKEN_REUSE_GRACE.toSeconds() + "s, got " + refreshTokenReuseGrace);
        trustedProxies = trustedProxies == null ? List.of() : trustedProxies.stream().map(TrustedProxies::check).toList();
    }

    /**
     * {@code AGENT_TOOLS_SERVER_TRUSTED_PROXIES}: comma-separated IPv4 and IPv6 addresses and CIDR ranges
     * ({@code 127.0.0.1,10.0.0.0/8,fd00::/8}), each as {@code ADDRESS/BITS}; none for null or blank.
     *
     * @throws IllegalArgumentException naming the setting and the entry that is not an address or range
     */
    public static List<String> parseTrustedProxies(String text) {
        return TrustedProxies.parse(text);
    }

    /**
     * Keys as {@code AGENT_TOOLS_SERVER_TOKEN_KEY} gives them: {@code ID:BASE64}, several comma-separated, or lines of
     * {@code ID BASE64} as the key file holds them ({@code #} comments); the first encrypts.
     */
    public static List<Key> parseKeys(String text, String source) {
        ArrayList<Key> keys = new ArrayList<>();
        int n = 0;
        for (String entry : text.split("[,\n]")) {
            n++;
            String e = entry.replaceFirst("#.*", "").strip();
            if (e.isEmpty()) {
                continue;
            }
            String[] parts = e.split("[:\\s]+", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException(source + " entry " + n + ": expected ID:BASE64 (or ID BASE64 in a file)");
            }
            byte[] secret;
            try {
                secret = Base64.getDecoder().decode(parts[1].strip());
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException(source + " entry " + n + ": not base64");
            }
            try {
                keys.add(new Key(parts[0], secret));
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException(source + " entry " + n + ": " + bad.getMessage(), bad);
            }
        }
        if (keys.stream().map(Key::id).distinct().count() != keys.size()) {
            throw new IllegalArgumentException(source + ": token key ids must differ (each ciphertext names its key by id)");
        }
        return keys;
    }

    /** The same settings with port 0 of a loopback public URL replaced by the port bound. */
    public OAuthSettings withBoundPort(int port) {
        if (publicUrl.getPort() != 0) {
            return this;
        }
        return new OAuthSettings(URI.create(publicUrl.getScheme() + "://" + publicUrl.getHost() + ":" + port + pathPrefix()),
                googleClientId, googleClientSecret, googleAuthUrl, googleTokenUrl, profileUrl, store, keys,
                accessTokenLifetime, refreshTokenLifetime, dynamo, refreshTokenReuseGrace, trustedProxies);
    }

    /** The same settings with another grace for a refresh token's reuse. */
    public OAuthSettings withRefreshTokenReuseGrace(Duration grace) {
        return new OAuthSettings(publicUrl, googleClientId, googleClientSecret, googleAuthUrl, googleTokenUrl, profileUrl,
                store, keys, accessTokenLifetime, refreshTokenLifetime, dynamo, grace, trustedProxies);
    }

    /** The same settings with these trusted proxies (as {@link #parseTrustedProxies} reads them). */
    public OAuthSettings withTrustedProxies(List<String> proxies) {
        return new OAuthSettings(publicUrl, googleClientId, googleClientSecret, googleAuthUrl, googleTokenUrl, profileUrl,
                store, keys, accessTokenLifetime, refreshTokenLifetime, dynamo, refreshTokenReuseGrace, proxies);
    }

    /** The resource {@code /mcp} is, as tokens name their audience. */
    String resource() {
        return publicUrl + "/mcp";
    }

    String issuer() {
        return publicUrl.toString();
    }

    /**
     * The path a reverse proxy publishes the server under ({@code /agent-tools}), or {@code ""}. The server answers
     * its paths with and without it, so that the proxy may pass it on or strip it.
     */
    public String pathPrefix() {
        return publicUrl.getRawPath();
    }

    /** The scheme, host and port of the public URL: where the well-known URIs are (RFC 8414, RFC 9728). */
    private String origin() {
        return publicUrl.getScheme() + "://" + publicUrl.getRawAuthority();
    }

    /**
     * Where the protected resource metadata of {@code /mcp} is: at the root without a prefix (as the server has always
     * said), else in RFC 9728's form, the well-known path inserted before the resource's path
     * ({@code https://host/.well-known/oauth-protected-resource/agent-tools/mcp}).
     */
    String protectedResourceMetadataUrl() {
        return origin() + Metadata.PROTECTED_RESOURCE + (pathPrefix().isEmpty() ? "" : pathPrefix() + "/mcp");
    }

    /** Where the authorization server metadata is: RFC 8414's form, the well-known path inserted before the issuer's path. */
    String authorizationServerMetadataUrl() {
        return origin() + Metadata.AUTHORIZATION_SERVER + pathPrefix();
    }

    String callbackUrl() {
        return publicUrl + "/oauth/callback";
    }

    @Override
    public String toString() {
        return "OAuthSettings[publicUrl=" + publicUrl + ", googleClientId=" + googleClientId + ", googleClientSecret=(not shown)"
                + ", googleAuthUrl=" + googleAuthUrl + ", googleTokenUrl=" + googleTokenUrl + ", profileUrl=" + profileUrl
                + ", store=" + (dynamo == null ? store : dynamo) + ", keys=" + keys + ", accessTokenLifetime=" + accessTokenLifetime
                + ", refreshTokenLifetime=" + refreshTokenLifetime + ", refreshTokenReuseGrace=" + refreshTokenReuseGrace
                + ", trustedProxies=" + trustedProxies + "]";
    }

    private static URI checkPublicUrl(URI url) {
        require(url != null, "AGENT_TOOLS_SERVER_PUBLIC_URL is missing");
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        String host = url.getHost();
        require(url.isAbsolute() && host != null && (scheme.equals("https") || scheme.equals("http")),
                "AGENT_TOOLS_SERVER_PUBLIC_URL must be an absolute https URL such as https://tools.example.com, got " + url);
        boolean loopback = host.equals("127.0.0.1") || host.equals("localhost") || host.equals("[::1]");
        require(scheme.equals("https") || loopback, "AGENT_TOOLS_SERVER_PUBLIC_URL must be https (http only on a loopback"
                + " host), got " + url);
        require(url.getRawQuery() == null && url.getRawFragment() == null && url.getRawUserInfo() == null,
                "AGENT_TOOLS_SERVER_PUBLIC_URL must have no query, fragment or user, got " + url);
        String path = url.getRawPath() == null ? "" : url.getRawPath().replaceFirst("/+$", "");
        // segments of plain characters: the prefix is matched and inserted into URLs as it is, never decoded
        require(path.isEmpty() || (path.matches("(/[A-Za-z0-9._~-]+)+") && !path.matches(".*/\\.{1,2}(/.*)?")
                        && !path.startsWith("/.well-known") && path.length() <= 200),
                "AGENT_TOOLS_SERVER_PUBLIC_URL's path (the prefix a proxy publishes the server under) must be segments of"
                        + " A-Z a-z 0-9 . _ ~ - such as /agent-tools, none of them . or .., not under /.well-known, got " + url);
        require(url.getPort() != 0 || loopback, "AGENT_TOOLS_SERVER_PUBLIC_URL may have port 0 (the port bound) only on a loopback host");
        return URI.create(scheme + "://" + host.toLowerCase(Locale.ROOT) + (url.getPort() == -1 ? "" : ":" + url.getPort()) + path);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
