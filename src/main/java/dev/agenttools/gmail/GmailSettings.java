package dev.agenttools.gmail;

import dev.agenttools.google.AccessToken;
import dev.agenttools.google.RootUrl;

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
    /** Gmail's limit of parts per batch request. */
    public static final int MAX_BATCH_SIZE = 100;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_BODY_CHARS = 20_000;

    public GmailSettings {
        String urlFlaw = RootUrl.flaw(rootUrl, GOOGLE_ROOT_URL);
        if (urlFlaw != null) {
            throw new IllegalArgumentException("the Gmail root URL " + urlFlaw);
        }
        rootUrl = rootUrl.endsWith("/") ? rootUrl : rootUrl + "/";
        if (quotaPerMinute <= 0 || burst <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException("quota, burst and max in flight must be positive, got "
                    + quotaPerMinute + ", " + burst + ", " + maxInFlight);
        }
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batch size must be 1.." + MAX_BATCH_SIZE + " (Gmail's limit), got " + batchSize);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        String flaw = accessToken == null || accessToken.isBlank() ? null : AccessToken.flaw(accessToken);
        if (flaw != null) {
            throw new IllegalArgumentException("the access token is not an OAuth access token: it " + flaw + " (the value is not shown)");
        }
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
        String root = env.getOrDefault("AGENT_TOOLS_GMAIL_ROOT_URL", GOOGLE_ROOT_URL);
        String urlFlaw = RootUrl.flaw(root, GOOGLE_ROOT_URL);
        if (urlFlaw != null) {
            throw new IllegalArgumentException("AGENT_TOOLS_GMAIL_ROOT_URL " + urlFlaw + "; unset it for Google's Gmail");
        }
        GmailSettings d = forRoot(root);
        String token = env.get("AGENT_TOOLS_ACCESS_TOKEN");
        String flaw = token == null || token.isBlank() ? null : AccessToken.flaw(token);
        if (flaw != null) {
            throw new IllegalArgumentException("AGENT_TOOLS_ACCESS_TOKEN is not an OAuth access token: it " + flaw
                    + " (the value is not shown); set it to a token alone, without quotes or a line break, or unset it to use the stored sign-in");
        }
        int quota = intOf(env, "AGENT_TOOLS_GMAIL_QUOTA", d.quotaPerMinute(), 1, Integer.MAX_VALUE);
        return new GmailSettings(d.rootUrl(), quota, Math.max(1, quota / 60),
                intOf(env, "AGENT_TOOLS_GMAIL_MAX_IN_FLIGHT", d.maxInFlight(), 1, Integer.MAX_VALUE),
                intOf(env, "AGENT_TOOLS_GMAIL_BATCH_SIZE", d.batchSize(), 1, MAX_BATCH_SIZE), d.timeout(), d.maxBodyChars(),
                env.containsKey("AGENT_TOOLS_CA_CERT") ? Path.of(env.get("AGENT_TOOLS_CA_CERT")) : null,
                token);
    }

    private static int intOf(Map<String, String> env, String name, int fallback, int min, int max) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        String allowed = max == Integer.MAX_VALUE ? "a whole number from " + min + " up" : "a whole number " + min + ".." + max;
        int n;
        try {
            n = Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be " + allowed + ", got \"" + v + "\"");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(name + " must be " + allowed + ", got " + n);
        }
        return n;
    }

    public GmailSettings withRootUrl(String url) {
        return new GmailSettings(url, quotaPerMinute, burst, maxInFlight, batchSize, timeout, maxBodyChars, trustedCertificate, accessToken);
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
