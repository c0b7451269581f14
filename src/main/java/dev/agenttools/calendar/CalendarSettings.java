package dev.agenttools.calendar;

import dev.agenttools.google.ApiLimits;


/**
 * How the Calendar tools reach Calendar, read once and sealed. What Calendar shares with Gmail (the CA certificate to
 * trust, the token: one sign-in covers both) is {@link dev.agenttools.google.GoogleSettings}.
 *
 * @param rootUrl        Calendar's root URL (Google's, or an emulator's: the agent-tools emulator serves both APIs)
 * @param quotaPerMinute requests per user per minute the client paces itself to (Google: 600)
 * @param burst          requests that may go at once
 * @param maxInFlight    requests in flight at once per user
 * @param batchSize      parts per batch request
 */
public record CalendarSettings(String rootUrl, int quotaPerMinute, int burst, int maxInFlight, int batchSize) {
    public static final String GOOGLE_ROOT_URL = "https://www.googleapis.com/";
    /** Calendar's published per-user limit: 600 requests a minute per user per project. */
    public static final int DEFAULT_QUOTA_PER_MINUTE = 600;
    /** Google counts Calendar requests in a sliding minute; a day's agenda across calendars is one burst. */
    public static final int DEFAULT_BURST = 60;
    public static final int DEFAULT_MAX_IN_FLIGHT = 20;
    public static final int DEFAULT_BATCH_SIZE = 50;
    /** Calendar's limit of parts per batch request. */
    public static final int MAX_BATCH_SIZE = 1000;

    public CalendarSettings {
        rootUrl = ApiLimits.check("Calendar", rootUrl, GOOGLE_ROOT_URL, quotaPerMinute, burst, maxInFlight, batchSize,
                MAX_BATCH_SIZE);
    }

    public static CalendarSettings forRoot(String rootUrl) {
        return new CalendarSettings(rootUrl, DEFAULT_QUOTA_PER_MINUTE, DEFAULT_BURST, DEFAULT_MAX_IN_FLIGHT, DEFAULT_BATCH_SIZE);
    }

    public CalendarSettings withPacing(int quota, int burstRequests, int inFlight) {
        return new CalendarSettings(rootUrl, quota, burstRequests, inFlight, batchSize);
    }

    public CalendarSettings withRootUrl(String url) {
        return new CalendarSettings(url, quotaPerMinute, burst, maxInFlight, batchSize);
    }
}
