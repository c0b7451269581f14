package dev.agenttools.server.oauth;

import com.sun.net.httpserver.HttpServer;
import dev.agenttools.store.DynamoClients;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@link AuthorizationServer#check} costs a call to {@code /mcp}, for the benchmark (the target: at most
 * 0.5 ms p50): the header's token hashed, looked up in the store (with DynamoDB, in the cache of checked tokens first),
 * its audience compared, and its user's Google access token taken from memory. The Google token is had once from a
 * stand-in for Google's token endpoint on a loopback port, so that only the check is timed. Public only for the
 * benchmark (internal).
 */
public final class CheckTiming {
    private static final String ACCOUNT = "bench@example.com";
    private static final int WARMUP = 2_000;

    /**
     * @param p50Us     a check of a token checked before (what each call after a client's first costs)
     * @param missP50Us a token's first check on this instance: with DynamoDB, the round trips past the cache
     */
    public record Result(String store, int calls, double p50Us, double p99Us, int misses, double missP50Us, double missP99Us) {
    }

    private CheckTiming() {
    }

    /**
     * Times {@code calls} checks of one token, and the first check of {@code misses} others.
     *
     * @param dir    where the SQLite store goes (used when {@code dynamo} is null)
     * @param dynamo a DynamoDB table (made for the run and deleted after), or null for SQLite
     */
    public static Result run(Path dir, OAuthSettings.DynamoTable dynamo, int calls, int misses) throws Exception {
        HttpServer google = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        google.createContext("/token", exchange -> {
            byte[] body = "{\"access_token\":\"bench-google-token\",\"expires_in\":3600}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        google.start();
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        URI g = URI.create("http://127.0.0.1:" + google.getAddress().getPort());
        OAuthSettings settings = new OAuthSettings(URI.create("http://127.0.0.1:8080"), "bench", "bench-secret",
                g.resolve("/auth"), g.resolve("/token"), g.resolve("/profile"), dir.resolve("bench-oauth.db"),
                List.of(new OAuthSettings.Key("bench", key)), Duration.ofHours(1), Duration.ofDays(30), dynamo);
        try (OAuthStore writer = OAuthStore.open(settings);
             AuthorizationServer server = AuthorizationServer.open(settings, Clock.systemUTC(), List.of())) {
            Instant now = Instant.now();
            writer.putGoogleRefreshToken(ACCOUNT, new TokenCipher(settings.keys()).seal("bench-google-refresh", ACCOUNT), now);
            List<String> tokens = new ArrayList<>();
            for (int i = 0; i <= misses; i++) {
                String access = Secrets.next(Secrets.ACCESS_TOKEN);
                String grant = Secrets.next("grant_");
                writer.putTokens(Secrets.digest(access), grant(settings, grant, now.plus(settings.accessTokenLifetime())),
                        Secrets.digest(Secrets.next(Secrets.REFRESH_TOKEN)), grant(settings, grant, now.plus(settings.refreshTokenLifetime())));
                tokens.add("Bearer " + access);
            }
            String header = tokens.getFirst();
            for (int i = 0; i < WARMUP; i++) {
                admitted(server.check(header)); // the first also has the Google token from the stand-in
            }
            long[] hits = new long[calls];
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                AuthorizationServer.Check c = server.check(header);
                hits[i] = System.nanoTime() - t0;
                admitted(c);
            }
            long[] firsts = new long[misses];
            for (int i = 0; i < misses; i++) {
                long t0 = System.nanoTime();
                AuthorizationServer.Check c = server.check(tokens.get(i + 1));
                firsts[i] = System.nanoTime() - t0;
                admitted(c);
            }
            Arrays.sort(hits);
            Arrays.sort(firsts);
            return new Result(dynamo == null ? "sqlite" : "dynamodb", calls, us(hits, 50), us(hits, 99), misses, us(firsts, 50), us(firsts, 99));
        } finally {
            google.stop(0);
            if (dynamo != null && dynamo.endpoint() != null) {
                try (DynamoDbClient client = DynamoClients.client(dynamo.endpoint(), dynamo.region())) {
                    client.deleteTable(b -> b.tableName(dynamo.table()));
                }
            }
        }
    }

    private static OAuthStore.Grant grant(OAuthSettings settings, String grant, Instant expiresAt) {
        return new OAuthStore.Grant(ACCOUNT, "agt_client_bench", "gmail.readonly calendar.readonly", settings.resource(), grant, expiresAt);
    }

    private static void admitted(AuthorizationServer.Check c) throws IOException {
        if (!(c instanceof AuthorizationServer.Check.Admitted)) {
            throw new IOException("the benchmark's token was refused: " + c);
        }
    }

    /** Nearest-rank percentile, in microseconds. */
    private static double us(long[] sorted, int percentile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e3;
    }
}
