package dev.agenttools.server.oauth;

import java.time.Duration;

/**
 * The bounds on the authorization server's endpoints that anyone may call without a token (README, "Limits of the
 * sign-in endpoints").
 *
 * @param register      {@code POST /oauth/register} per client address
 * @param authorize     {@code GET /oauth/authorize} and {@code /oauth/callback} together, per client address (a
 *                      sign-in is one of each)
 * @param token         {@code POST /oauth/token} and {@code /oauth/revoke} together, per client address
 * @param maxClients    registered clients kept at most; beyond them registration answers 503 until room is made
 * @param idleClientAge how long after registering a client with no sign-in under way and no live token is deleted
 * @param maxAddresses  client addresses tracked at most, per endpoint group
 */
record Limits(RateLimiter.Rate register, RateLimiter.Rate authorize, RateLimiter.Rate token, int maxClients,
              Duration idleClientAge, int maxAddresses) {
    static final Limits DEFAULT = new Limits(new RateLimiter.Rate(20, Duration.ofMinutes(10)),
            new RateLimiter.Rate(60, Duration.ofMinutes(1)), new RateLimiter.Rate(120, Duration.ofMinutes(1)),
            10_000, Duration.ofHours(24), 100_000);

    Limits {
        if (register == null || authorize == null || token == null || maxClients < 1 || idleClientAge == null
                || idleClientAge.isNegative() || maxAddresses < 1) {
            throw new IllegalArgumentException("bad limits");
        }
    }
}
