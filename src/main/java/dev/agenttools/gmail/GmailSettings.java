package dev.agenttools.gmail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * How the Gmail tools reach Gmail, read once (from the environment, a config file or code) and sealed.
 *
 * @param rootUrl         Gmail's root URL, or an emulator's ({@code http://127.0.0.1:PORT/})
 * @param quotaPerMinute  the per-user quota the client paces itself to (Gmail: 15,000 units, new projects 6,000)
 * @param burst           how many quota units may go at once
 * @param maxInFlight     calls in flight at once per user (Gmail answers 429 beyond its own, unpublished, limit)
 * @param batchSize       parts per batch request (Google advises at most 50)
 * @param timeout         default overall deadline of a tool call
 * @param maxBodyChars    default cut of get_email's body
 * @param trustedCertificate an extra CA certificate (PEM) to trust, such as the emulator's, or null
 * @param accessToken     a token to use when a call passes none, or null
 */
public record GmailSettings(String rootUrl, int quotaPerMinute, int burst, int maxInFlight, int batchSize,
                            Duration timeout, int maxBodyChars, Path trustedCertificate, String accessToken) {
    public static final String GOOGLE_ROOT_URL = "https://gmail.googleapis.com/";
    public static final int DEFAULT_QUOTA_PER_MINUTE = 15_000;
    public static final int DEFAULT_MAX_IN_FLIGHT = 20;
    public static final int DEFAULT_BATCH_SIZE = 50;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_BODY_CHARS = 20_000;

    public GmailSettings {
        if (rootUrl == null || !rootUrl.matches("https?://.+")) {
            throw new IllegalArgumentException("Gmail root URL must be an http(s) URL, got " + rootUrl);
        }
        rootUrl = rootUrl.endsWith("/") ? rootUrl : rootUrl + "/";
        if (quotaPerMinute <= 0 || burst <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException("quota, burst and max in flight must be positive, got "
                    + quotaPerMinute + ", " + burst + ", " + maxInFlight);
        }
        if (batchSize < 1 || batchSize > 100) {
            throw new IllegalArgumentException("batch size must be 1..100 (Gmail's limit), got " + batchSize);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
    }

    /** Google's Gmail with Google's published limits. */
    public static GmailSettings google() {
        return forRoot(GOOGLE_ROOT_URL);
    }

    public static GmailSettings forRoot(String rootUrl) {
        return new GmailSettings(rootUrl, DEFAULT_QUOTA_PER_MINUTE, DEFAULT_QUOTA_PER_MINUTE / 60, DEFAULT_MAX_IN_FLIGHT,
                DEFAULT_BATCH_SIZE, DEFAULT_TIMEOUT, DEFAULT_MAX_BODY_CHARS, null, null);
    }

    /**
     * Reads {@code AGENT_TOOLS_GMAIL_ROOT_URL}, {@code AGENT_TOOLS_GMAIL_QUOTA}, {@code AGENT_TOOLS_GMAIL_MAX_IN_FLIGHT},
     * {@code AGENT_TOOLS_GMAIL_BATCH_SIZE}, {@code AGENT_TOOLS_CA_CERT} and {@code AGENT_TOOLS_ACCESS_TOKEN}.
     */
    public static GmailSettings fromEnvironment(Map<String, String> env) {
        GmailSettings d = forRoot(env.getOrDefault("AGENT_TOOLS_GMAIL_ROOT_URL", GOOGLE_ROOT_URL));
        int quota = intOf(env, "AGENT_TOOLS_GMAIL_QUOTA", d.quotaPerMinute());
        return new GmailSettings(d.rootUrl(), quota, Math.max(1, quota / 60),
                intOf(env, "AGENT_TOOLS_GMAIL_MAX_IN_FLIGHT", d.maxInFlight()),
                intOf(env, "AGENT_TOOLS_GMAIL_BATCH_SIZE", d.batchSize()), d.timeout(), d.maxBodyChars(),
                env.containsKey("AGENT_TOOLS_CA_CERT") ? Path.of(env.get("AGENT_TOOLS_CA_CERT")) : null,
                env.get("AGENT_TOOLS_ACCESS_TOKEN"));
    }

    private static int intOf(Map<String, String> env, String name, int fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, got \"" + v + "\"");
        }
    }

    public GmailSettings withPacing(int quota, int burstUnits, int inFlight) {
        return new GmailSettings(rootUrl, quota, burstUnits, inFlight, batchSize, timeout, maxBodyChars, trustedCertificate, accessToken);
    }

    public GmailSettings withBatchSize(int size) {
        return new GmailSettings(rootUrl, quotaPerMinute, burst, maxInFlight, size, timeout, maxBodyChars, trustedCertificate, accessToken);
    }

    public GmailSettings withTrustedCertificate(Path pem) {
        return new GmailSettings(rootUrl, quotaPerMinute, burst, maxInFlight, batchSize, timeout, maxBodyChars, pem, accessToken);
    }

    public GmailSettings withAccessToken(String token) {
        return new GmailSettings(rootUrl, quotaPerMinute, burst, maxInFlight, batchSize, timeout, maxBodyChars, trustedCertificate, token);
    }

    @Override
    public String toString() {
        // never print the token
        return "GmailSettings[rootUrl=" + rootUrl + ", quotaPerMinute=" + quotaPerMinute + ", burst=" + burst
                + ", maxInFlight=" + maxInFlight + ", batchSize=" + batchSize + ", timeout=" + timeout
                + ", maxBodyChars=" + maxBodyChars + ", accessToken=" + (accessToken == null ? "none" : "set") + "]";
    }
}
