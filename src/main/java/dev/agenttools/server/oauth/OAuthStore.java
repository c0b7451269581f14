package dev.agenttools.server.oauth;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What the authorization server keeps: registered clients, sign-ins on their way through Google's consent, codes,
 * the digests of its access and refresh tokens, and each account's Google refresh token (encrypted). Two kinds: one
 * SQLite file that the instances on one machine share ({@link SqliteOAuthStore}), or a DynamoDB table that instances on
 * several machines share ({@link DynamoOAuthStore}); {@link #open} picks the one the settings name. Both keep the same
 * promises, held by one contract test run against both:
 *
 * <ul>
 *   <li>Secrets are kept as SHA-256 digests ({@link Secrets#digest}) or, where they must be read back, as AES-GCM
 *       ciphertexts with their key id ({@link TokenCipher}), never as they are.</li>
 *   <li>One-time values (a pending sign-in, a code, a refresh token) are spent by one atomic operation, so that of two
 *       instances (or threads) spending one at once exactly one gets it. A refresh token's spending records when, in
 *       the same operation, and that time never changes: what a later reuse is taken as follows from it alone.</li>
 *   <li>What has expired is never answered, whether or not it has been deleted yet.</li>
 *   <li>Ending a grant or an account ends every token of it on the next check of this instance, and of another
 *       instance within {@link DynamoOAuthStore#CHECK_CACHE_LIFETIME} (DynamoDB; at once with SQLite).</li>
 * </ul>
 *
 * <p>Failures of the store are {@link SQLException}s (DynamoDB's as {@link Unavailable}), which the endpoints answer
 * with 503. Thread-safe.
 */
interface OAuthStore extends AutoCloseable {
    /** A registered client: public (no secret), with the redirect URIs it may use, matched exactly. */
    record Client(String id, String name, List<String> redirectUris, Instant createdAt) {
        public Client {
            redirectUris = List.copyOf(redirectUris);
        }
    }

    /**
     * A client's authorization request on its way through Google's consent; {@code googleVerifier} is sealed.
     * {@code consented}: the user approved the client on the consent page before going to Google (else the browser
     * skipped the page as one remembered, and the account Google names must have approved the client).
     */
    record Pending(String clientId, String redirectUri, String clientState, String challenge, String scope,
                   String resource, TokenCipher.Sealed googleVerifier, Instant expiresAt, boolean consented) {
    }

    /**
     * A client's authorization request shown on the consent page, waiting for the user's answer. {@code browser} is
     * the digest of the binding cookie of the browser it was shown in ({@link BrowserCookies}); {@code account} is
     * null before Google (the page shown at {@code /oauth/authorize}), or the account Google named, when the page is
     * shown at the callback because that account never approved the client.
     */
    record Consent(String clientId, String redirectUri, String clientState, String challenge, String scope,
                   String resource, String loginHint, String browser, String account, Instant expiresAt) {
    }

    /** A code of ours, for the client to trade once with its PKCE verifier. */
    record Code(String clientId, String redirectUri, String challenge, String scope, String resource, String account,
                Instant expiresAt) {
    }

    /** What an access or refresh token of ours stands for; {@code grant} names the chain of rotated refresh tokens. */
    record Grant(String account, String clientId, String scope, String resource, String grant, Instant expiresAt) {
    }

    /** What redeeming a code found. */
    sealed interface Redeemed {
        /** Unknown, expired, or issued before its account was ended. */
        record None() implements Redeemed {
        }

        /**
         * Redeemed before (RFC 6749 section 4.1.2: a code is used once): the grant its first redemption began has now
         * been ended, with every token of it, issued already or still to be.
         */
        record Reused(String grant) implements Redeemed {
        }

        record Fresh(Code code) implements Redeemed {
        }
    }

    /** What spending a refresh token found. */
    sealed interface Spent {
        /** Unknown or expired. */
        record None() implements Spent {
        }

        /** Already spent, by another client or past the grace: its whole grant has now been ended. */
        record Reused(String grant) implements Spent {
        }

        record Fresh(Grant grant) implements Spent {
        }

        /**
         * Already spent, but by its own client within the grace after the first spending, its grant still alive: taken
         * as a retry (an answer lost on the way, two refreshes at once), to be answered with another pair of the grant.
         */
        record Again(Grant grant) implements Spent {
        }
    }


    /**
     * A DynamoDB store's failure (throttled, unreachable, refused): an {@link SQLException} so that every caller answers
     * it as it answers SQLite's, with a 503 to retry.
     */
    final class Unavailable extends SQLException {
        private static final long serialVersionUID = 1L;

        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The store the settings name: their DynamoDB table when set, else their SQLite file.
     *
     * @throws IOException naming the SQLite file when it is refused (a link, someone else's, in a folder others write)
     */
    static OAuthStore open(OAuthSettings settings) throws IOException, SQLException {
        return settings.dynamo() != null ? DynamoOAuthStore.open(settings.dynamo()) : new SqliteOAuthStore(settings.store());
    }

    /**
     * Whether a reuse of a refresh token of a live grant, spent at {@code spentAt}, is a retry ({@link Spent.Again}) rather
     * than a theft: asked by the token's own client, before {@code grace} has passed since the spending, the token not
     * expired. Both stores decide by this alone. {@code spentAt} null (spent before its time was recorded): never.
     */
    static boolean isRetry(Grant grant, Instant spentAt, String clientId, Instant now, Duration grace) {
        return spentAt != null && grant.clientId().equals(clientId) && grant.expiresAt().isAfter(now)
                && now.isBefore(spentAt.plus(grace));
    }

    /**
     * Keeps a new client. Until it completes a sign-in (tokens are issued to it, {@link #putTokens}), it is kept only
     * until {@code unusedUntil}, pushed on to the expiry of a sign-in it starts ({@link #putPending}) or a code issued
     * to it ({@link #putCode}); after, it lives as long as its tokens do ({@link #purgeIdleClients}).
     */
    void putClient(Client client, Instant unusedUntil) throws SQLException;

    /** The registered client of this id, or null (unknown, or never signed in and past its time at {@code now}). */
    Client client(String id, Instant now) throws SQLException;

    /**
     * How many clients registered after {@code registeredAfter} have not completed a sign-in: what a registration flood
     * makes, and what the cap on registrations counts. Clients that completed a sign-in are not counted (a flood cannot
     * make them without a user at Google's consent for each), nor older ones (gone within minutes). DynamoDB counts by
     * the minute of registration (counters per minute: counting client items would be a Scan), so a client counts for
     * up to a minute longer there.
     */
    int unusedClients(Instant registeredAfter, Instant now) throws SQLException;

    /**
     * Deletes the clients that never completed a sign-in and are past their time at {@code now}, and those that did,
     * registered before {@code registeredBefore}, with no sign-in under way, no code and no token left (every token has
     * expired). DynamoDB's TTL does it there (an unused client item expires at its time; one that signed in, a day after
     * its newest refresh token's expiry).
     *
     * @return how many were deleted
     */
    int purgeIdleClients(Instant now, Instant registeredBefore) throws SQLException;

    void putPending(String stateDigest, Pending p) throws SQLException;

    /** The pending sign-in of this state, spent (null when unknown, already spent or expired). */
    Pending takePending(String stateDigest, Instant now) throws SQLException;

    /** Keeps a consent waiting for the user's answer, under the digest of its request id. */
    void putConsent(String digest, Consent consent) throws SQLException;

    /** The consent of this request id's digest, spent (null when unknown, already answered or expired). */
    Consent takeConsent(String digest, Instant now) throws SQLException;

    /**
     * Records that {@code account} approved {@code clientId} on the consent page, until {@code expiresAt} (replacing
     * an earlier approval of the same pair).
     */
    void putApproval(String account, String clientId, Instant expiresAt) throws SQLException;

    /** Whether {@code account} approved {@code clientId} and that approval has not expired. */
    boolean approved(String account, String clientId, Instant now) throws SQLException;

    void putCode(String digest, Code code) throws SQLException;

    /**
     * Redeems the code for {@code grant} (the grant whose tokens the caller will issue), in one atomic write, whatever
     * comes next (a wrong verifier cannot be retried): {@link Redeemed.Fresh} the first time. A code redeemed before
     * is {@link Redeemed.Reused} until {@code rememberUntil} of its first redemption: that first redemption's grant is
     * then ended ({@link #endGrant}; tokens of it stored later never work either). Unknown, expired, or issued before
     * its account was ended ({@link #endAccount}): {@link Redeemed.None}.
     */
    Redeemed redeemCode(String digest, String grant, Instant now, Instant rememberUntil) throws SQLException;

    /**
     * Stores an access token's and a refresh token's digests, both of one grant, and marks their client as having
     * completed a sign-in. When the grant has been ended meanwhile (a reuse of its refresh token or its code on another
     * instance), they may be stored but are never answered. The two may differ in scope only: the access token's may
     * be narrower (a refresh that asked less, RFC 6749 section 6), the refresh token keeps the grant's.
     */
    void putTokens(String accessDigest, Grant access, String refreshDigest, Grant refresh) throws SQLException;

    /** The access token of this digest, null when unknown, expired, or of an ended grant or account. */
    Grant accessToken(String digest, Instant now) throws SQLException;

    /**
     * Spends a refresh token for {@code clientId}, recording when ({@code now}) in the same atomic write. The first use
     * finds it {@link Spent.Fresh} (whatever client asks: the caller refuses another client's). A later one finds it
     * spent: when it comes from the token's own client before {@code grace} has passed since that first spending and
     * the token has not expired, it is {@link Spent.Again} (a retry: concurrent ones all get it); any other reuse is
     * taken as theft (RFC 9700 section 4.14: the thief or the client, whichever comes second, must not go on) and
     * ends the whole grant, {@link Spent.Reused}. A token unknown, or of an ended grant or account, is
     * {@link Spent.None}, as is an unspent one that has expired.
     *
     * @param grace {@link Duration#ZERO}: every reuse is a theft
     */
    Spent spendRefreshToken(String digest, String clientId, Instant now, Duration grace) throws SQLException;

    /** Ends a grant: its access tokens and refresh tokens, spent or not. */
    void endGrant(String grant) throws SQLException;

    /** Ends one access token (RFC 7009 for an access token); its grant's refresh token still works. */
    void endAccessToken(String digest) throws SQLException;

    /** What a refresh token (spent or not) stands for while its grant lasts, or null. */
    Grant refreshToken(String digest) throws SQLException;

    /** The grant a refresh token (spent or not) belongs to while that grant lasts, or null. */
    default String grantOfRefreshToken(String digest) throws SQLException {
        Grant g = refreshToken(digest);
        return g == null ? null : g.grant();
    }

    /** Forgets an account: its Google refresh token, and every code and token of ours issued for it (Google refused the grant). */
    void endAccount(String account) throws SQLException;

    /** Keeps the account's Google refresh token (sealed), replacing the one kept before. */
    void putGoogleRefreshToken(String account, TokenCipher.Sealed sealed, Instant now) throws SQLException;

    /** The account's sealed Google refresh token, or null. */
    TokenCipher.Sealed googleRefreshToken(String account) throws SQLException;

    /** Deletes what has expired (refresh tokens spent or not, once past their lifetime); DynamoDB's TTL does it there. */
    void purge(Instant now) throws SQLException;

    @Override
    void close() throws SQLException;
}
