package dev.agenttools.emulator;

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
 * @param peakInFlight          the most calls in flight at once
 */
public record EmulatorCounters(long httpRequests, long apiCalls, long batchRequests, long connectionsOpened,
                               long handshakes, long quotaRejections, long concurrencyRejections, long faultsInjected,
                               long authFailures, long messagesVanished, long peakInFlight) {
}
