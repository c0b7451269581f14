package dev.agenttools.server.oauth;

import dev.agenttools.tracking.DynaliteAccess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's promises on one DynamoDB table (dynalite) that two instances share, and what only DynamoDB's has: the
 * cache of checked access tokens, and items that hold no secret as it is.
 */
@Tag("process")
class DynamoOAuthStoreTest extends OAuthStoreContract {
    private static DynaliteAccess dynalite;
    private OAuthSettings.DynamoTable table;
    private int n;

    @BeforeAll
    static void startDynalite() throws Exception {
        dynalite = DynaliteAccess.start();
    }

    @AfterAll
    static void stopDynalite() {
        dynalite.close();
    }

    @Override
    void newPlace() {
        table = new OAuthSettings.DynamoTable("oauth-" + System.nanoTime() + "-" + n++, dynalite.endpoint(), "us-east-1");
    }

    @Override
    OAuthStore open() throws Exception {
        return DynamoOAuthStore.open(table);
    }

    @Test
    void aTokenEndedOnAnotherInstanceIsStillTakenHereWithinTheCacheLifetimeAndNotAfter() throws Exception {
        Tokens t = signIn(store);
        String digest = Secrets.digest(t.access());
        assertThat(store.accessToken(digest, NOW)).isNotNull();
        other.endAccessToken(digest);
        assertThat(other.accessToken(digest, NOW)).as("at once on the instance that ended it").isNull();
        assertThat(store.accessToken(digest, NOW.plus(DynamoOAuthStore.CHECK_CACHE_LIFETIME).minusMillis(1)))
                .as("within the bound, another instance may still take it").isNotNull();
        assertThat(store.accessToken(digest, NOW.plus(DynamoOAuthStore.CHECK_CACHE_LIFETIME))).isNull();

        // what this instance ends leaves its cache at once: a grant, an account
        Tokens u = signIn(store);
        assertThat(store.accessToken(Secrets.digest(u.access()), NOW)).isNotNull();
        store.endGrant(u.grant());
        assertThat(store.accessToken(Secrets.digest(u.access()), NOW)).isNull();
        Tokens v = signIn(store);
        assertThat(store.accessToken(Secrets.digest(v.access()), NOW)).isNotNull();
        store.endAccount(ACCOUNT);
        assertThat(store.accessToken(Secrets.digest(v.access()), NOW)).isNull();
    }

    @Test
    void aCachedTokenIsNeverTakenPastItsOwnExpiry() throws Exception {
        store.putGoogleRefreshToken(ACCOUNT, CIPHER.seal("g", ACCOUNT), NOW);
        String access = Secrets.next(Secrets.ACCESS_TOKEN);
        store.putTokens(Secrets.digest(access), grant("grant_short", Duration.ofSeconds(2)),
                Secrets.digest(Secrets.next(Secrets.REFRESH_TOKEN)), grant("grant_short", Duration.ofDays(1)));
        assertThat(store.accessToken(Secrets.digest(access), NOW)).isNotNull();
        assertThat(store.accessToken(Secrets.digest(access), NOW.plusSeconds(2))).isNull();
    }

    @Test
    void itsItemsHoldDigestsAndCiphertextsNeverATokenAsItIs() throws Exception {
        Tokens t = signIn(store);
        String code = Secrets.next(Secrets.CODE);
        store.putCode(Secrets.digest(code), code(Duration.ofSeconds(60)));
        try (DynamoDbClient client = DynamoDbClient.builder().endpointOverride(dynalite.endpoint())
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("local", "local")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
            List<Map<String, AttributeValue>> items = client.scan(b -> b.tableName(table.table())).items();
            assertThat(items).hasSizeGreaterThanOrEqualTo(5);
            StringBuilder all = new StringBuilder();
            for (Map<String, AttributeValue> item : items) {
                item.values().forEach(v -> all.append(v.b() != null ? new String(v.b().asByteArray(), StandardCharsets.ISO_8859_1) : v.toString()));
                assertThat(item).as("every item can expire by DynamoDB's TTL, but the account's and the client's")
                        .satisfiesAnyOf(i -> assertThat(i).containsKey("expires_at"),
                                i -> assertThat(i.get("pk").s()).startsWith("account#"));
            }
            assertThat(all.toString()).doesNotContain(t.access(), t.refresh(), code, "1//google-refresh")
                    .contains(Secrets.digest(t.access()));
        }
    }
}
