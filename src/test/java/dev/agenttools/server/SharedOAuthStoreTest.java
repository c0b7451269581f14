package dev.agenttools.server;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.server.oauth.OAuthSettings;
import dev.agenttools.tracking.DynaliteAccess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the server behind one public URL (as a load balancer spreads a client's requests), sharing the
 * OAuth store in DynamoDB (dynalite), with the emulator as Google: a client signed in through one works on the other,
 * refreshes there, and a revocation on one is seen by the other within the check cache's bound.
 */
@Tag("process")
class SharedOAuthStoreTest {
    private static final String USER = "me@example.com";
    /** DynamoOAuthStore.CHECK_CACHE_LIFETIME, as docs/authorization.md promises it. */
    private static final Duration CACHE_BOUND = Duration.ofSeconds(5);

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static DynaliteAccess dynalite;
    private static Emulator emulator;
    private static OAuthServer one;
    private static OAuthServer two;

    @BeforeAll
    static void start() throws Exception {
        dynalite = DynaliteAccess.start();
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .quotaPerMinute(60_000_000).maxConcurrent(1_000).users(2).seedMessages(20).build());
        OAuthSettings.Key k = OAuthServer.newKey("k1");
        one = new OAuthServer(emulator, onDynamo(URI.create("http://127.0.0.1:0"), k));
        two = new OAuthServer(emulator, onDynamo(one.base, k)); // the same public URL: the same issuer and audience, another port
    }

    @AfterAll
    static void stop() {
        two.close();
        one.close();
        dynalite.close();
    }

    @Test
    void aClientSignedInThroughOneInstanceCallsToolsAndRefreshesOnAnother() throws Exception {
        OAuthClient viaOne = OAuthClient.register(one.base);
        OAuthClient.Tokens tokens = viaOne.signIn(USER);
        List<String> onTwo = OAuthClient.messageIds(two.base, tokens.access());
        assertThat(onTwo).hasSize(5).isEqualTo(OAuthClient.messageIds(one.base, tokens.access()));

        OAuthClient viaTwo = viaOne.at(two.base);
        OAuthClient.Tokens refreshed = viaTwo.refresh(tokens.refresh());
        assertThat(OAuthClient.messageIds(one.base, refreshed.access())).isEqualTo(onTwo);
        // the client retrying on one (two's answer lost) within the grace: another pair of the same sign-in
        OAuthClient.Tokens retried = viaOne.refresh(tokens.refresh());
        assertThat(OAuthClient.messageIds(two.base, retried.access())).isEqualTo(onTwo);
        // the first refresh token, spent on two, from another client on one: the whole sign-in ends, on both
        OAuthClient thief = OAuthClient.register(one.base);
        HttpResponse<String> reuse = thief.token(Map.of("grant_type", "refresh_token", "refresh_token", tokens.refresh()));
        assertThat(reuse.statusCode()).isEqualTo(400);
        assertThat(reuse.body()).contains("already used");
        assertThat(OAuthClient.mcp(one.base, refreshed.access(), OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
        assertThat(OAuthClient.mcp(one.base, retried.access(), OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
        assertThat(viaTwo.token(Map.of("grant_type", "refresh_token", "refresh_token", refreshed.refresh())).statusCode()).isEqualTo(400);
        assertThat(viaTwo.token(Map.of("grant_type", "refresh_token", "refresh_token", retried.refresh())).statusCode()).isEqualTo(400);
    }

    @Test
    void aTokenRevokedOnOneInstanceIsRefusedThereAtOnceAndOnTheOtherWithinTheCacheBound() throws Exception {
        OAuthClient client = OAuthClient.register(one.base);
        OAuthClient.Tokens tokens = client.signIn(USER);
        assertThat(OAuthClient.messageIds(one.base, tokens.access())).hasSize(5); // checked on one: kept in its cache
        assertThat(OAuthClient.messageIds(two.base, tokens.access())).hasSize(5);

        HttpResponse<String> revoked = OAuthClient.post(two.base.resolve("/oauth/revoke"), "application/x-www-form-urlencoded",
                "token=" + tokens.access() + "&client_id=" + OAuthClient.enc(client.id));
        assertThat(revoked.statusCode()).isEqualTo(200);
        long t0 = System.nanoTime();
        assertThat(OAuthClient.mcp(two.base, tokens.access(), OAuthClient.listEmails(1)).statusCode()).as("where it was revoked").isEqualTo(401);
        int status;
        do {
            status = OAuthClient.mcp(one.base, tokens.access(), OAuthClient.listEmails(1)).statusCode();
            if (status != 401) {
                Thread.sleep(100);
            }
        } while (status != 401 && System.nanoTime() - t0 < CACHE_BOUND.plusSeconds(10).toNanos());
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        // generous upper bound (a shared, noisy machine): the cache bound plus slack
        assertThat(status).as("refused on the other instance after %s", took).isEqualTo(401);
        assertThat(took).isLessThan(CACHE_BOUND.plusSeconds(10));
        // the refresh token still works (RFC 7009: an access token ends alone), on either instance
        assertThat(OAuthClient.messageIds(one.base, client.at(two.base).refresh(tokens.refresh()).access())).hasSize(5);
    }

    /** A server's settings on the class's emulator and DynamoDB table. */
    private static OAuthSettings onDynamo(URI publicUrl, OAuthSettings.Key key) {
        OAuthSettings sqlite = OAuthServer.settings(emulator, publicUrl, Path.of("unused.db"), Duration.ofHours(1), List.of(key));
        return new OAuthSettings(sqlite.publicUrl(), sqlite.googleClientId(), sqlite.googleClientSecret(), sqlite.googleAuthUrl(),
                sqlite.googleTokenUrl(), sqlite.profileUrl(), sqlite.store(), sqlite.keys(), sqlite.accessTokenLifetime(),
                sqlite.refreshTokenLifetime(), new OAuthSettings.DynamoTable("agent-tools-oauth", dynalite.endpoint(), "us-east-1"));
    }
}
