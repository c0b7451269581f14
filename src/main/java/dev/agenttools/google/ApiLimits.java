package dev.agenttools.google;

/**
 * The settings every Google API's tools share (Gmail's, Calendar's): a root URL, the per-user quota paced to, its
 * burst, the calls in flight, the parts of a batch. One check for all of them, each error naming the API.
 */
public final class ApiLimits {
    private ApiLimits() {
    }

    /**
     * Checks the common settings of {@code api} and gives its root URL as the clients want it (ending in a slash).
     *
     * @param googleRootUrl the API's own root URL, shown as an example of a good one
     * @param maxBatchSize  the API's limit of parts per batch request
     * @throws IllegalArgumentException naming the API, the setting and what is allowed
     */
    public static String check(String api, String rootUrl, String googleRootUrl, int quotaPerMinute, int burst,
                               int maxInFlight, int batchSize, int maxBatchSize) {
        String urlFlaw = RootUrl.flaw(rootUrl, googleRootUrl);
        if (urlFlaw != null) {
            throw new IllegalArgumentException("the " + api + " root URL " + urlFlaw);
        }
        if (quotaPerMinute <= 0 || burst <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException(api + " quota, burst and max in flight must be positive, got "
                    + quotaPerMinute + ", " + burst + ", " + maxInFlight);
        }
        if (batchSize < 1 || batchSize > maxBatchSize) {
            throw new IllegalArgumentException(api + " batch size must be 1.." + maxBatchSize + " (" + api
                    + "'s limit), got " + batchSize);
        }
        return rootUrl.endsWith("/") ? rootUrl : rootUrl + "/";
    }
}
