package dev.agenttools.gmail;

import dev.agenttools.google.ApiLimits;

/**
 * How the Gmail tools reach Gmail, read once (from the settings or code) and sealed. What Gmail shares with Calendar
 * (the CA certificate to trust, the token) is {@link dev.agenttools.google.GoogleSettings}.
 *
 * @param rootUrl        Gmail's root URL, or an emulator's ({@code http://127.0.0.1:PORT/})
 * @param quotaPerMinute the per-user quota the client paces itself to (Gmail: 15,000 units, new projects 6,000)
 * @param burst          how many quota units may go at once
 * @param maxInFlight    calls in flight at once per user (Gmail answers 429 beyond its own, unpublished, limit)
 * @param batchSize      parts per batch request (Google advises at most 50)
 * @param maxBodyChars   default cut of get_email's body
 */
public record GmailSettings(String rootUrl, int quotaPerMinute, int burst, int maxInFlight, int batchSize, int maxBodyChars) {
    public static final String GOOGLE_ROOT_URL = "https://gmail.googleapis.com/";
    public static final int DEFAULT_QUOTA_PER_MINUTE = 15_000;
    public static final int DEFAULT_MAX_IN_FLIGHT = 20;
    public static final int DEFAULT_BATCH_SIZE = 50;
    /** Gmail's limit of parts per batch request. */
    public static final int MAX_BATCH_SIZE = 100;
    public static final int DEFAULT_MAX_BODY_CHARS = 20_000;

    public GmailSettings {
        rootUrl = ApiLimits.check("Gmail", rootUrl, GOOGLE_ROOT_URL, quotaPerMinute, burst, maxInFlight, batchSize,
                MAX_BATCH_SIZE);
        if (maxBodyChars < 1) {
            throw new IllegalArgumentException("max body chars must be positive, got " + maxBodyChars);
        }
    }

    /** Gmail at {@code rootUrl} with Google's published limits. */
    public static GmailSettings forRoot(String rootUrl) {
        return new GmailSettings(rootUrl, DEFAULT_QUOTA_PER_MINUTE, DEFAULT_QUOTA_PER_MINUTE / 60, DEFAULT_MAX_IN_FLIGHT,
                DEFAULT_BATCH_SIZE, DEFAULT_MAX_BODY_CHARS);
    }

    public GmailSettings withRootUrl(String url) {
        return new GmailSettings(url, quotaPerMinute, burst, maxInFlight, batchSize, maxBodyChars);
    }

    public GmailSettings withPacing(int quota, int burstUnits, int inFlight) {
        return new GmailSettings(rootUrl, quota, burstUnits, inFlight, batchSize, maxBodyChars);
    }

    public GmailSettings withBatchSize(int size) {
        return new GmailSettings(rootUrl, quotaPerMinute, burst, maxInFlight, size, maxBodyChars);
    }
}
