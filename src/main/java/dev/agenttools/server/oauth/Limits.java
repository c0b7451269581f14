package dev.agenttools.server.oauth;

import java.time.Duration;

/**
 * The bounds on the authorization server's endpoints that anyone may call without a token (docs/authorization.md, "Limits of the
 * sign-in endpoints"; docs/mcp-authorization.md, "Registration under a flood").
 *
 * @param register              {@code POST /oauth/register} per client address
 * @param registerAll           {@code POST /oauth/register} from all addresses together, per instance: what a flood
 *                              from many addresses meets, so that the clients it makes within
 *                              {@code unusedClientLifetime} stay far below {@code maxClients}
 * @param authorize             {@code GET /oauth/authorize} and {@code /oauth/callback} together, per client address
 *                              (a sign-in is one of each)
 * @param token                 {@code POST /oauth/token} and {@code /oauth/revoke} together, per client address
 * @param maxClients            clients registered within {@code unusedClientLifetime} that have not completed a sign-in,
 *                              at most, across instances (the store counts them); beyond them registration answers 503
 *                              until the oldest age out
 * @param unusedClientLifetime  how long a client that has not completed a sign-in is kept after registering (pushed on
 *                              by a sign-in it starts, up to that sign-in's own expiry); 1 to 60 minutes
 * @param idleClientAge         how long after registering a client that has completed a sign-in, with no sign-in under
 *                              way and no live token, is deleted
 * @param maxAddresses          client addresses tracked at most, per endpoint group
 */
record Limits(RateLimiter.Rate register, RateLimiter.Rate registerAll, RateLimiter.Rate authorize, RateLimiter.Rate token,
              int maxClients, Duration unusedClientLifetime, Duration idleClientAge, int maxAddresses) {
    /** The longest {@link #unusedClientLifetime} (DynamoDB counts unused clients by the minute, 100 minutes at most). */
    static final Duration MAX_UNUSED_CLIENT_LIFETIME = Duration.ofMinutes(60);
    /**
     * A sign-in's 10 minutes at the consent page ({@link Authorization#PENDING_LIFETIME}), begun within 5 minutes of
     * registering (MCP clients register right before they authorize), ends before its client would go.
     */
    static final Duration DEFAULT_UNUSED_CLIENT_LIFETIME = Duration.ofMinutes(15);
    static final Limits DEFAULT = new Limits(new RateLimiter.Rate(20, Duration.ofMinutes(10)),
            new RateLimiter.Rate(1_000, Duration.ofMinutes(10)),
            new RateLimiter.Rate(60, Duration.ofMinutes(1)), new RateLimiter.Rate(120, Duration.ofMinutes(1)),
            10_000, DEFAULT_UNUSED_CLIENT_LIFETIME, Duration.ofHours(24), 100_000);

    Limits {
        if (register == null || registerAll == null || authorize == null || token == null || maxClients < 1
                || unusedClientLifetime == null || unusedClientLifetime.compareTo(Duration.ofMinutes(1)) < 0
                || unusedClientLifetime.compareTo(MAX_UNUSED_CLIENT_LIFETIME) > 0
                || idleClientAge == null || idleClientAge.isNegative() || maxAddresses < 1) {
            throw new IllegalArgumentException("bad limits");
        }
    }
}
