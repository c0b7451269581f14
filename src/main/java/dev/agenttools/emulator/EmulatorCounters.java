package dev.agenttools.emulator;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A snapshot of what the emulator has served since start (or the last reset).
 *
 * @param httpRequests          HTTP requests received (a batch counts once)
 * @param apiCalls              API calls answered (each batch part counts)
 * @param batchRequests         batch HTTP requests
 * @param connectionsOpened     TCP connections accepted
 * @param handshakes            first requests on a connection, charged the handshake delay
 * @param quotaRejections       calls answered 429 because the quota bucket was empty
 * @param concurrencyRejections calls answered 429 because too many were in flight
 * @param faultsInjected        calls answered with an injected 5xx
 * @param authFailures          calls answered 401
 * @param messagesVanished      listed messages deleted by the fault model
 * @param peakInFlight          the most calls in flight at once, over all users
 * @param users                 each user's counters by address, for the users that have been called (user 1 always),
 *                              in user order
 */
public record EmulatorCounters(long httpRequests, long apiCalls, long batchRequests, long connectionsOpened,
                               long handshakes, long quotaRejections, long concurrencyRejections, long faultsInjected,
                               long authFailures, long messagesVanished, long peakInFlight, Map<String, User> users) {
    public EmulatorCounters {
        // null when read from an emulator older than users (the benchmark reads a remote one's JSON)
        users = users == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(users));
    }

    /** User {@code address}'s counters; all zero for a user not called yet. */
    public User user(String address) {
        return users.getOrDefault(address, new User(0, 0, 0, 0, 0));
    }

    /**
     * One user's share.
     *
     * @param apiCalls              API calls made with the user's tokens (each batch part counts)
     * @param quotaRejections       the user's calls refused because the user's quota bucket was empty (429 or 403)
     * @param concurrencyRejections the user's Gmail calls refused 429 because too many of the user's were in flight
     * @param tooManyRequests       the user's calls answered 429, whatever the cause
     * @param peakInFlight          the most of the user's Gmail calls in flight at once (Calendar has no such limit)
     */
    public record User(long apiCalls, long quotaRejections, long concurrencyRejections, long tooManyRequests,
                       long peakInFlight) {
    }
}
