package dev.agenttools.server.oauth;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link OAuthStore} promises (its Javadoc), run against each kind: SQLite ({@link SqliteOAuthStoreTest})
 * and DynamoDB on dynalite ({@link DynamoOAuthStoreTest}). Two stores on one place stand for two instances.
 */
abstract class OAuthStoreContract {
    static final String ACCOUNT = "me@example.com";
    static final String RESOURCE = "https://tools.example.com/mcp";
    static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    static final TokenCipher CIPHER = new TokenCipher(List.of(key("k1")));
    static final String CLIENT = "agt_client_1";
    static final Duration GRACE = OAuthSettings.DEFAULT_REFRESH_TOKEN_REUSE_GRACE;

    OAuthStore store;
    /** Another instance's store on the same place. */
    OAuthStore other;

    /** A new, empty place; {@link #open} opens stores on it. */
    abstract void newPlace() throws Exception;

    abstract OAuthStore open() throws Exception;

    @BeforeEach
    void openBoth() throws Exception {
        newPlace();
        store = open();
        other = open();
    }

    @AfterEach
    void closeBoth() throws Exception {
        store.close();
        other.close();
    }

    static OAuthSettings.Key key(String id) {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return new OAuthSettings.Key(id, b);
    }

    /** Spends the refresh token as {@link #CLIENT} at {@code at}, with the default grace. */
    static OAuthStore.Spent spend(OAuthStore s, String refresh, Instant at) throws Exception {
        return s.spendRefreshToken(Secrets.digest(refresh), CLIENT, at, GRACE);
    }

    static OAuthStore.Grant grant(String grant, Duration lifetime) {
        return new OAuthStore.Grant(ACCOUNT, CLIENT, "gmail.readonly calendar.readonly", RESOURCE, grant, NOW.plus(lifetime));
    }

    static OAuthStore.Code code(Duration lifetime) {
        return new OAuthStore.Code("agt_client_1", "http://127.0.0.1:9/cb", "challenge", "gmail.readonly", RESOURCE, ACCOUNT,
                NOW.plus(lifetime));
    }

    /** A sign-in as the callback makes one: the account's Google refresh token kept, then its first tokens. */
    Tokens signIn(OAuthStore s) throws Exception {
        s.putGoogleRefreshToken(ACCOUNT, CIPHER.seal("1//google-refresh", ACCOUNT), NOW);
        return issue(s, Secrets.next("grant_"));
    }

    static Tokens issue(OAuthStore s, String grant) throws Exception {
        Tokens t = new Tokens(Secrets.next(Secrets.ACCESS_TOKEN), Secrets.next(Secrets.REFRESH_TOKEN), grant);
        s.putTokens(Secrets.digest(t.access()), grant(grant, Duration.ofHours(1)), Secrets.digest(t.refresh()), grant(grant, Duration.ofDays(30)));
        return t;
    }

    record Tokens(String access, String refresh, String grant) {
    }

    /** Runs both at once (as two instances would), and answers both results. */
    static <T> List<T> together(Callable<T> a, Callable<T> b) throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            List<Future<T>> both = new ArrayList<>();
            for (Callable<T> c : List.of(a, b)) {
                both.add(threads.submit(() -> {
                    start.await();
                    return c.call();
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : both) {
                results.add(f.get());
            }
            return results;
        }
    }

    /** Redeems the code at {@code at} for {@code grant}, remembered 30 days. */
    static OAuthStore.Redeemed redeem(OAuthStore s, String digest, String grant, Instant at) throws Exception {
        return s.redeemCode(digest, grant, at, at.plus(Duration.ofDays(30)));
    }

    @Test
    void aCodeRedeemedByTwoInstancesAtOnceGoesToExactlyOneAndTheOtherIsAReuse() throws Exception {
        for (int round = 0; round < 10; round++) {
            String digest = Secrets.digest(Secrets.next(Secrets.CODE));
            store.putCode(digest, code(Duration.ofSeconds(60)));
            List<OAuthStore.Redeemed> got = together(() -> redeem(store, digest, "grant_a", NOW), () -> redeem(other, digest, "grant_b", NOW));
            assertThat(got).as("round %d", round).filteredOn(c -> c instanceof OAuthStore.Redeemed.Fresh).hasSize(1);
            assertThat(got).as("round %d", round).filteredOn(c -> c instanceof OAuthStore.Redeemed.Reused).hasSize(1);
            OAuthStore.Redeemed.Fresh fresh = (OAuthStore.Redeemed.Fresh) got.stream()
                    .filter(c -> c instanceof OAuthStore.Redeemed.Fresh).findFirst().orElseThrow();
            assertThat(fresh.code().account()).isEqualTo(ACCOUNT);
        }
    }

    @Test
    void aCodeUsedAgainEndsTheTokensOfItsFirstUseEvenThoseIssuedAfterTheReuse() throws Exception {
        store.putGoogleRefreshToken(ACCOUNT, CIPHER.seal("1//google-refresh", ACCOUNT), NOW);
        String digest = Secrets.digest(Secrets.next(Secrets.CODE));
        store.putCode(digest, code(Duration.ofSeconds(60)));
        assertThat(redeem(store, digest, "grant_first", NOW)).isInstanceOf(OAuthStore.Redeemed.Fresh.class);
        Tokens first = issue(store, "grant_first");
        assertThat(other.accessToken(Secrets.digest(first.access()), NOW)).isNotNull();

        // used again on the other instance, after the code's own minute: still known as spent, and its grant ends
        assertThat(redeem(other, digest, "grant_second", NOW.plusSeconds(120))).isEqualTo(new OAuthStore.Redeemed.Reused("grant_first"));
        assertThat(other.accessToken(Secrets.digest(first.access()), NOW)).isNull();
        assertThat(store.accessToken(Secrets.digest(first.access()), NOW)).isNull();
        assertThat(spend(store, first.refresh(), NOW.plusSeconds(121))).isInstanceOf(OAuthStore.Spent.None.class);
        assertThat(redeem(store, digest, "grant_third", NOW.plusSeconds(122))).as("and again").isInstanceOf(OAuthStore.Redeemed.Reused.class);

        // a reuse racing the first use: it comes before the first use's tokens are stored, which then never work
        String racing = Secrets.digest(Secrets.next(Secrets.CODE));
        store.putCode(racing, code(Duration.ofSeconds(60)));
        assertThat(redeem(store, racing, "grant_raced", NOW)).isInstanceOf(OAuthStore.Redeemed.Fresh.class);
        assertThat(redeem(other, racing, "grant_thief", NOW.plusSeconds(1))).isEqualTo(new OAuthStore.Redeemed.Reused("grant_raced"));
        Tokens late = issue(store, "grant_raced");
        assertThat(store.accessToken(Secrets.digest(late.access()), NOW)).isNull();
        assertThat(other.accessToken(Secrets.digest(late.access()), NOW)).isNull();
        assertThat(spend(other, late.refresh(), NOW.plusSeconds(2))).isInstanceOf(OAuthStore.Spent.None.class);

        // remembered until the time given at the first use, not after
        String remembered = Secrets.digest(Secrets.next(Secrets.CODE));
        store.putCode(remembered, code(Duration.ofSeconds(60)));
        assertThat(store.redeemCode(remembered, "grant_r", NOW, NOW.plusSeconds(3600))).isInstanceOf(OAuthStore.Redeemed.Fresh.class);
        assertThat(redeem(other, remembered, "grant_s", NOW.plusSeconds(3600))).isInstanceOf(OAuthStore.Redeemed.None.class);
    }

    @Test
    void aPendingSignInIsSpentOnceAndKeepsItsSealedVerifier() throws Exception {
        String digest = Secrets.digest(Secrets.next(Secrets.STATE));
        TokenCipher.Sealed verifier = CIPHER.seal("google-verifier", "x");
        store.putPending(digest, new OAuthStore.Pending("agt_client_1", "http://127.0.0.1:9/cb", null, "ch", "gmail.readonly",
                RESOURCE, verifier, NOW.plusSeconds(600), true));
        OAuthStore.Pending taken = other.takePending(digest, NOW);
        assertThat(taken).isNotNull();
        assertThat(taken.clientState()).isNull();
        assertThat(taken.consented()).as("approved on the consent page").isTrue();
        assertThat(CIPHER.open(taken.googleVerifier(), "x")).isEqualTo("google-verifier");
        assertThat(store.takePending(digest, NOW)).isNull();
    }

    static OAuthStore.Consent consent(String account, Instant expiresAt) {
        return new OAuthStore.Consent(CLIENT, "http://127.0.0.1:9/cb", account == null ? "client-state" : null, "ch",
                "gmail.readonly", RESOURCE, account == null ? "hint@example.com" : null, Secrets.digest("browser"), account, expiresAt);
    }

    @Test
    void aConsentWaitingForTheUserIsAnsweredOnceOnAnyInstanceAndKeepsWhatWasShown() throws Exception {
        String before = Secrets.digest(Secrets.next(Authorization.CONSENT_REQUEST));
        String after = Secrets.digest(Secrets.next(Authorization.CONSENT_REQUEST));
        store.putConsent(before, consent(null, NOW.plusSeconds(600)));
        store.putConsent(after, consent(ACCOUNT, NOW.plusSeconds(600)));
        assertThat(other.takeConsent(before, NOW)).isEqualTo(consent(null, NOW.plusSeconds(600)));
        assertThat(store.takeConsent(before, NOW)).as("answered already").isNull();
        OAuthStore.Consent atCallback = store.takeConsent(after, NOW);
        assertThat(atCallback.account()).isEqualTo(ACCOUNT);
        assertThat(atCallback.clientState()).isNull();
        assertThat(atCallback.loginHint()).isNull();
        assertThat(other.takeConsent(Secrets.digest("unknown"), NOW)).isNull();
    }

    @Test
    void anApprovalIsKeptPerAccountAndClientUntilItExpiresAndIsRenewedByAnother() throws Exception {
        assertThat(store.approved(ACCOUNT, CLIENT, NOW)).isFalse();
        store.putApproval(ACCOUNT, CLIENT, NOW.plus(Duration.ofDays(30)));
        assertThat(other.approved(ACCOUNT, CLIENT, NOW)).isTrue();
        assertThat(other.approved("other@example.com", CLIENT, NOW)).as("another account").isFalse();
        assertThat(other.approved(ACCOUNT, "agt_client_2", NOW)).as("another client").isFalse();
        assertThat(other.approved(ACCOUNT, CLIENT, NOW.plus(Duration.ofDays(30)))).as("expired").isFalse();
        other.putApproval(ACCOUNT, CLIENT, NOW.plus(Duration.ofDays(60)));
        assertThat(store.approved(ACCOUNT, CLIENT, NOW.plus(Duration.ofDays(45)))).as("renewed").isTrue();
        store.purge(NOW.plus(Duration.ofDays(45)));
        assertThat(store.approved(ACCOUNT, CLIENT, NOW.plus(Duration.ofDays(45)))).as("not purged before it expires").isTrue();
    }

    @Test
    void aRefreshTokenRotatesOnceAndItsReuseOnAnotherInstanceEndsTheWholeGrant() throws Exception {
        Tokens first = signIn(store);
        assertThat(other.accessToken(Secrets.digest(first.access()), NOW)).isNotNull();
        assertThat(spend(store, first.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.Fresh.class);
        Tokens second = issue(store, first.grant());
        assertThat(other.accessToken(Secrets.digest(second.access()), NOW)).isNotNull();

        // the grace is over exactly GRACE after the spending
        OAuthStore.Spent reuse = spend(other, first.refresh(), NOW.plus(GRACE));
        assertThat(reuse).isEqualTo(new OAuthStore.Spent.Reused(first.grant()));
        assertThat(other.accessToken(Secrets.digest(second.access()), NOW)).as("the newer access token ends too").isNull();
        assertThat(store.accessToken(Secrets.digest(first.access()), NOW)).isNull();
        assertThat(spend(store, second.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.None.class);
        assertThat(store.grantOfRefreshToken(Secrets.digest(second.refresh()))).isNull();
        // a rotation that comes after the grant ended gives tokens that never work
        Tokens late = issue(other, first.grant());
        assertThat(store.accessToken(Secrets.digest(late.access()), NOW)).isNull();
        assertThat(spend(store, late.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.None.class);
    }

    @Test
    void aRefreshTokenSpentByTwoInstancesAtOnceIsFreshForOneAndAReuseForTheOther() throws Exception {
        Tokens t = signIn(store);
        String digest = Secrets.digest(t.refresh());
        List<OAuthStore.Spent> got = together(() -> store.spendRefreshToken(digest, CLIENT, NOW, Duration.ZERO),
                () -> other.spendRefreshToken(digest, CLIENT, NOW, Duration.ZERO));
        assertThat(got).filteredOn(s -> s instanceof OAuthStore.Spent.Fresh).hasSize(1);
        assertThat(got).filteredOn(s -> s instanceof OAuthStore.Spent.Reused).hasSize(1);

        // with a grace, the second of two refreshes at once is a retry: both go on, the grant with them
        Tokens u = signIn(store);
        String again = Secrets.digest(u.refresh());
        List<OAuthStore.Spent> both = together(() -> store.spendRefreshToken(again, CLIENT, NOW, GRACE),
                () -> other.spendRefreshToken(again, CLIENT, NOW, GRACE));
        assertThat(both).filteredOn(s -> s instanceof OAuthStore.Spent.Fresh).hasSize(1);
        assertThat(both).filteredOn(s -> s instanceof OAuthStore.Spent.Again).hasSize(1);
        assertThat(store.grantOfRefreshToken(again)).isEqualTo(u.grant());
    }

    @Test
    void aReuseByItsOwnClientWithinTheGraceIsARetryAnsweredWithTheGrantWhichLivesOn() throws Exception {
        Tokens first = signIn(store);
        assertThat(spend(store, first.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.Fresh.class);
        Tokens second = issue(store, first.grant()); // the answer the client never got

        OAuthStore.Spent retry = spend(other, first.refresh(), NOW.plus(GRACE).minusMillis(1));
        assertThat(retry).isEqualTo(new OAuthStore.Spent.Again(grant(first.grant(), Duration.ofDays(30))));
        Tokens third = issue(other, first.grant());
        // the pair of the first spending and the pair of the retry both work, on either instance
        for (OAuthStore s : List.of(store, other)) {
            assertThat(s.accessToken(Secrets.digest(second.access()), NOW)).isNotNull();
            assertThat(s.accessToken(Secrets.digest(third.access()), NOW)).isNotNull();
        }
        // two retries at once both get the grant
        List<OAuthStore.Spent> both = together(() -> spend(store, first.refresh(), NOW.plusSeconds(1)),
                () -> spend(other, first.refresh(), NOW.plusSeconds(1)));
        assertThat(both).allSatisfy(s -> assertThat(s).isInstanceOf(OAuthStore.Spent.Again.class));
        assertThat(spend(store, third.refresh(), NOW.plusSeconds(2))).isInstanceOf(OAuthStore.Spent.Fresh.class);
        assertThat(spend(other, second.refresh(), NOW.plusSeconds(2))).isInstanceOf(OAuthStore.Spent.Fresh.class);

        // no retry for a grant whose account has ended, within the grace or not
        store.endAccount(ACCOUNT);
        assertThat(spend(other, first.refresh(), NOW.plusSeconds(3))).isInstanceOf(OAuthStore.Spent.None.class);
        assertThat(spend(store, third.refresh(), NOW.plusSeconds(3))).isInstanceOf(OAuthStore.Spent.None.class);
    }

    @Test
    void aReuseAfterTheGraceEndsTheGrantWithTheTokensOfTheRetryToo() throws Exception {
        Tokens first = signIn(store);
        assertThat(spend(store, first.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.Fresh.class);
        Tokens second = issue(store, first.grant());
        assertThat(spend(other, first.refresh(), NOW.plusSeconds(10))).isInstanceOf(OAuthStore.Spent.Again.class);
        Tokens third = issue(other, first.grant());

        assertThat(spend(other, first.refresh(), NOW.plus(GRACE).plusSeconds(1))).isEqualTo(new OAuthStore.Spent.Reused(first.grant()));
        for (Tokens t : List.of(first, second, third)) {
            assertThat(other.accessToken(Secrets.digest(t.access()), NOW)).isNull();
            assertThat(store.grantOfRefreshToken(Secrets.digest(t.refresh()))).isNull();
        }
        assertThat(spend(store, third.refresh(), NOW.plus(GRACE).plusSeconds(2))).isInstanceOf(OAuthStore.Spent.None.class);
        assertThat(spend(store, second.refresh(), NOW.plus(GRACE).plusSeconds(2))).isInstanceOf(OAuthStore.Spent.None.class);
        assertThat(spend(store, first.refresh(), NOW.plusSeconds(11))).as("ended: no retry any more").isInstanceOf(OAuthStore.Spent.None.class);
    }

    @Test
    void aReuseWithinTheGraceByAnotherClientEndsTheGrant() throws Exception {
        Tokens first = signIn(store);
        assertThat(spend(store, first.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.Fresh.class);
        Tokens second = issue(store, first.grant());

        OAuthStore.Spent foreign = other.spendRefreshToken(Secrets.digest(first.refresh()), "agt_client_2", NOW.plusSeconds(1), GRACE);
        assertThat(foreign).isEqualTo(new OAuthStore.Spent.Reused(first.grant()));
        assertThat(other.accessToken(Secrets.digest(second.access()), NOW)).isNull();
        assertThat(store.accessToken(Secrets.digest(second.access()), NOW)).isNull();
        assertThat(spend(store, first.refresh(), NOW.plusSeconds(2))).as("nor its own client after that").isInstanceOf(OAuthStore.Spent.None.class);
        assertThat(spend(store, second.refresh(), NOW.plusSeconds(2))).isInstanceOf(OAuthStore.Spent.None.class);
    }

    @Test
    void whatHasExpiredIsRefusedWhetherOrNotItIsDeletedYet() throws Exception {
        String code = Secrets.digest(Secrets.next(Secrets.CODE));
        store.putCode(code, code(Duration.ofSeconds(60)));
        assertThat(redeem(other, code, "grant_x", NOW.plusSeconds(60))).isInstanceOf(OAuthStore.Redeemed.None.class);
        String state = Secrets.digest(Secrets.next(Secrets.STATE));
        store.putPending(state, new OAuthStore.Pending("c", "r", "s", "ch", "sc", RESOURCE, CIPHER.seal("v", "x"), NOW.plusSeconds(1), false));
        assertThat(other.takePending(state, NOW.plusSeconds(2))).isNull();
        String consent = Secrets.digest(Secrets.next(Authorization.CONSENT_REQUEST));
        store.putConsent(consent, consent(null, NOW.plusSeconds(1)));
        assertThat(other.takeConsent(consent, NOW.plusSeconds(1))).isNull();
        store.putApproval(ACCOUNT, CLIENT, NOW.plusSeconds(1));
        assertThat(other.approved(ACCOUNT, CLIENT, NOW.plusSeconds(1))).isFalse();
        Tokens t = signIn(store);
        assertThat(other.accessToken(Secrets.digest(t.access()), NOW.plus(Duration.ofHours(1)).minusMillis(1))).isNotNull();
        assertThat(other.accessToken(Secrets.digest(t.access()), NOW.plus(Duration.ofHours(1)))).isNull();
        assertThat(store.accessToken(Secrets.digest(t.access()), NOW.plus(Duration.ofHours(1)))).as("checked before, but expired now").isNull();
        assertThat(spend(other, t.refresh(), NOW.plus(Duration.ofDays(30)))).isInstanceOf(OAuthStore.Spent.None.class);
        store.purge(NOW.plus(Duration.ofDays(31)));
        assertThat(store.accessToken(Secrets.digest(t.access()), NOW.plus(Duration.ofDays(31)))).isNull();
    }

    @Test
    void endingAnAccountEndsItsTokensCodesAndGoogleSignInUntilItSignsInAgain() throws Exception {
        Tokens t = signIn(store);
        String code = Secrets.digest(Secrets.next(Secrets.CODE));
        store.putCode(code, code(Duration.ofSeconds(60)));
        assertThat(store.accessToken(Secrets.digest(t.access()), NOW)).isNotNull(); // checked (and kept, where a cache keeps it)

        store.endAccount(ACCOUNT);
        assertThat(store.accessToken(Secrets.digest(t.access()), NOW)).isNull();
        assertThat(other.accessToken(Secrets.digest(t.access()), NOW)).isNull();
        assertThat(spend(other, t.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.None.class);
        assertThat(redeem(other, code, "grant_x", NOW)).isInstanceOf(OAuthStore.Redeemed.None.class);
        assertThat(other.googleRefreshToken(ACCOUNT)).isNull();

        Tokens again = signIn(other);
        assertThat(store.accessToken(Secrets.digest(again.access()), NOW)).isNotNull();
        assertThat(CIPHER.open(store.googleRefreshToken(ACCOUNT), ACCOUNT)).isEqualTo("1//google-refresh");
        assertThat(store.accessToken(Secrets.digest(t.access()), NOW)).as("the old sign-in stays ended").isNull();
    }

    @Test
    void anAccessTokenEndsAloneAndARevokedGrantEndsEverywhere() throws Exception {
        Tokens t = signIn(store);
        other.endAccessToken(Secrets.digest(t.access()));
        assertThat(other.accessToken(Secrets.digest(t.access()), NOW)).isNull();
        assertThat(other.grantOfRefreshToken(Secrets.digest(t.refresh()))).isEqualTo(t.grant());
        assertThat(spend(store, t.refresh(), NOW)).isInstanceOf(OAuthStore.Spent.Fresh.class);
        Tokens next = issue(store, t.grant());
        assertThat(store.accessToken(Secrets.digest(next.access()), NOW)).isNotNull();
        store.endGrant(other.grantOfRefreshToken(Secrets.digest(next.refresh())));
        assertThat(store.accessToken(Secrets.digest(next.access()), NOW)).isNull();
        assertThat(other.accessToken(Secrets.digest(next.access()), NOW)).isNull();
    }

    @Test
    void keepsClientsAndTheGoogleRefreshTokenSealedReplacingTheOlderOne() throws Exception {
        store.putClient(new OAuthStore.Client("agt_client_x", null, List.of("http://127.0.0.1:9/a", "app.example:/cb"), NOW),
                NOW.plusSeconds(900));
        OAuthStore.Client c = other.client("agt_client_x", NOW);
        assertThat(c.redirectUris()).containsExactly("http://127.0.0.1:9/a", "app.example:/cb");
        assertThat(c.name()).isNull();
        assertThat(c.createdAt()).isEqualTo(NOW);
        assertThat(other.client("agt_client_y", NOW)).isNull();

        assertThat(store.googleRefreshToken(ACCOUNT)).isNull();
        store.putGoogleRefreshToken(ACCOUNT, CIPHER.seal("first", ACCOUNT), NOW);
        other.putGoogleRefreshToken(ACCOUNT, CIPHER.seal("second", ACCOUNT), NOW);
        TokenCipher.Sealed sealed = store.googleRefreshToken(ACCOUNT);
        assertThat(sealed.keyId()).isEqualTo("k1");
        assertThat(CIPHER.open(sealed, ACCOUNT)).isEqualTo("second");
    }

    @Test
    void unusedClientsCountAndLiveForMinutesWhileOneThatSignedInLivesOnUncountedAndASignInUnderWayIsWaitedFor() throws Exception {
        Duration lifetime = Duration.ofMinutes(15);
        store.putClient(new OAuthStore.Client(CLIENT, "signs in", List.of("http://127.0.0.1:9/a"), NOW), NOW.plus(lifetime));
        Instant later = NOW.plus(Duration.ofMinutes(1));
        other.putClient(new OAuthStore.Client("agt_client_2", "flood", List.of("http://127.0.0.1:9/b"), later), later.plus(lifetime));
        Instant at = NOW.plus(Duration.ofMinutes(2));
        assertThat(store.unusedClients(at.minus(lifetime), at)).as("both, through either instance").isEqualTo(2);
        assertThat(other.unusedClients(at.minus(lifetime), at)).isEqualTo(2);

        // the first completes a sign-in: no longer counted, and kept past the unused lifetime
        store.putGoogleRefreshToken(ACCOUNT, CIPHER.seal("1//google-refresh", ACCOUNT), NOW);
        Tokens t = issue(store, "grant_1");
        assertThat(other.unusedClients(at.minus(lifetime), at)).isEqualTo(1);
        Instant past = later.plus(lifetime);
        assertThat(other.client(CLIENT, past)).as("signed in: lives on").isNotNull();
        assertThat(store.client("agt_client_2", past.minusMillis(1))).isNotNull();
        assertThat(store.client("agt_client_2", past)).as("never signed in: gone at its time").isNull();
        Instant quiet = past.plus(Duration.ofMinutes(1)); // DynamoDB counts by the minute: up to a minute longer
        assertThat(other.unusedClients(quiet.minus(lifetime), quiet)).as("nothing registered since").isZero();
        assertThat(spend(other, t.refresh(), past)).isInstanceOf(OAuthStore.Spent.Fresh.class);

        // a sign-in started late in a client's minutes keeps it until that sign-in's own end
        other.putClient(new OAuthStore.Client("agt_client_3", "slow user", List.of("http://127.0.0.1:9/c"), NOW), NOW.plus(lifetime));
        store.putPending(Secrets.digest(Secrets.next(Secrets.STATE)), new OAuthStore.Pending("agt_client_3", "http://127.0.0.1:9/c",
                null, "ch", "gmail.readonly", RESOURCE, CIPHER.seal("v", "x"), NOW.plus(Duration.ofMinutes(24)), true));
        assertThat(other.client("agt_client_3", NOW.plus(Duration.ofMinutes(20)))).isNotNull();
        assertThat(other.client("agt_client_3", NOW.plus(Duration.ofMinutes(24)))).isNull();

        Instant end = NOW.plus(Duration.ofMinutes(30));
        store.purgeIdleClients(end, end.minus(Duration.ofHours(24)));
        other.purgeIdleClients(end, end.minus(Duration.ofHours(24)));
        assertThat(other.client(CLIENT, end)).as("a client whose refresh token lives").isNotNull();
        assertThat(store.client("agt_client_2", end)).isNull();
    }
}
