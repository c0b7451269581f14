package dev.agenttools.server.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bounds on the endpoints anyone may call without a token, over real HTTP, with small limits and a clock the test
 * moves: 429 with {@code Retry-After} and an RFC 6749 error past a client address's rate, per address and per endpoint
 * group; the cap on registered clients, and idle clients deleted to make room; the client address behind a trusted
 * proxy taken from {@code X-Forwarded-For}, and the header of anyone else ignored.
 */
class SignInLimitsTest {
    private static final String REDIRECT = "http://127.0.0.1:9/cb";
    @TempDir
    Path dir;
    private final MovableClock clock = new MovableClock();
    private Server server;
    private AuthorizationServer authorization;
    private URI base;

    private void start(Limits limits) throws Exception {
        start(limits, null);
    }

    /** @param trustedProxies as AGENT_TOOLS_SERVER_TRUSTED_PROXIES gives them (null: unset) */
    private void start(Limits limits, String trustedProxies) throws Exception {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        URI google = URI.create("http://127.0.0.1:9/");
        OAuthSettings settings = new OAuthSettings(URI.create("http://127.0.0.1:8080"), "client", "secret", google, google,
                google, dir.resolve("oauth.db"), List.of(new OAuthSettings.Key("k", key)), Duration.ofHours(1), Duration.ofDays(30))
                .withTrustedProxies(OAuthSettings.parseTrustedProxies(trustedProxies));
        authorization = AuthorizationServer.open(settings, clock, limits, List.of());
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(authorization.handler((endpoint, status) -> { }));
        server.start();
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
            authorization.close();
        }
    }

    private static Limits limits(int register, int authorize, int token, int maxClients) {
        return new Limits(new RateLimiter.Rate(register, Duration.ofMinutes(1)), new RateLimiter.Rate(10_000, Duration.ofMinutes(1)),
                new RateLimiter.Rate(authorize, Duration.ofMinutes(1)), new RateLimiter.Rate(token, Duration.ofMinutes(1)), maxClients,
                Duration.ofMinutes(15), Duration.ofHours(1), 1_000);
    }

    @Test
    void registrationsPastAnAddresssBurstAre429WithRetryAfterUntilItsBucketRefills() throws Exception {
        start(limits(3, 100, 100, 100));
        for (int i = 0; i < 3; i++) {
            assertThat(register().statusCode()).isEqualTo(201);
        }
        HttpResponse<String> refused = register();
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("20"); // one more every 60 s / 3
        JsonNode error = Json.MAPPER.readTree(refused.body());
        assertThat(error.get("error").asText()).isEqualTo("temporarily_unavailable");
        assertThat(error.get("error_description").asText()).contains("/oauth/register").contains("3 per 1 min").contains("20 s");
        assertThat(refused.headers().firstValue("Access-Control-Allow-Origin")).as("a page can read it").hasValue("*");

        clock.move(Duration.ofSeconds(19));
        assertThat(register().statusCode()).as("not refilled yet").isEqualTo(429);
        clock.move(Duration.ofSeconds(1));
        assertThat(register().statusCode()).isEqualTo(201);
        assertThat(register().statusCode()).isEqualTo(429);
    }

    @Test
    void authorizeAndTokenAreLimitedApartFromRegistrationAndEachAddressHasItsOwnBuckets() throws Exception {
        start(limits(100, 2, 3, 100));
        for (int i = 0; i < 2; i++) {
            assertThat(get("/oauth/authorize?client_id=unknown").statusCode()).isEqualTo(400);
        }
        assertThat(get("/oauth/authorize?client_id=unknown").statusCode()).isEqualTo(429);
        assertThat(get("/oauth/callback?state=x").statusCode()).as("a sign-in's callback shares its bucket").isEqualTo(429);
        for (int i = 0; i < 3; i++) {
            assertThat(post("/oauth/token", "application/x-www-form-urlencoded", "grant_type=refresh_token").statusCode()).isEqualTo(401);
        }
        HttpResponse<String> token = post("/oauth/token", "application/x-www-form-urlencoded", "grant_type=refresh_token");
        assertThat(token.statusCode()).isEqualTo(429);
        assertThat(token.headers().firstValue("Retry-After")).hasValue("20");
        assertThat(post("/oauth/revoke", "application/x-www-form-urlencoded", "token=x").statusCode()).isEqualTo(429);
        assertThat(register().statusCode()).as("registration has its own bucket").isEqualTo(201);
        assertThat(get("/.well-known/oauth-authorization-server").statusCode()).as("metadata is not limited").isEqualTo(200);

        // another address (the loopback network is 127/8) is counted apart
        assertThat(rawGet(InetAddress.getByName("127.0.0.2"), "/oauth/authorize?client_id=unknown")).startsWith("HTTP/1.1 400");
        assertThat(get("/oauth/authorize?client_id=unknown").statusCode()).isEqualTo(429);
    }

    @Test
    void atTheCapOnUnusedClientsRegistrationIs503UntilTheyAgeOutInMinutesAndAClientThatNeverSignsInGoes() throws Exception {
        start(limits(100, 100, 100, 2)); // unused clients live 15 minutes
        String a = Json.MAPPER.readTree(register().body()).get("client_id").asText();
        assertThat(register().statusCode()).isEqualTo(201);
        HttpResponse<String> full = register();
        assertThat(full.statusCode()).isEqualTo(503);
        assertThat(full.headers().firstValue("Retry-After")).hasValue("60");
        assertThat(Json.MAPPER.readTree(full.body()).get("error_description").asText()).contains("(2)").contains("15 min");

        clock.move(Duration.ofMinutes(10));
        // client a starts a sign-in (the user is at the consent for up to 10 minutes): it is kept until that ends
        assertThat(authorize(a).statusCode()).as("the consent page").isEqualTo(200);
        assertThat(register().statusCode()).as("both registered within 15 minutes").isEqualTo(503);

        clock.move(Duration.ofMinutes(5)); // 15 minutes after they registered: they count no more
        assertThat(register().statusCode()).isEqualTo(201);
        assertThat(authorize(a).statusCode()).as("client a's sign-in under way keeps it").isEqualTo(200);
        clock.move(Duration.ofMinutes(11)); // past the sign-in it started last: it never signed anyone in
        HttpResponse<String> gone = authorize(a);
        assertThat(gone.statusCode()).isEqualTo(400);
        assertThat(gone.body()).contains("client_id is not a client registered here");
    }

    @Test
    void aFloodFromManyAddressesMeetsTheGlobalRateThenTheCapAndARealClientRegistersOnceItsClientsAgeOut() throws Exception {
        // 3 per address, 20 from all addresses together a minute, at most 30 unused clients, each kept 15 minutes
        start(new Limits(new RateLimiter.Rate(3, Duration.ofMinutes(1)), new RateLimiter.Rate(20, Duration.ofMinutes(1)),
                new RateLimiter.Rate(100, Duration.ofMinutes(1)), new RateLimiter.Rate(100, Duration.ofMinutes(1)), 30,
                Duration.ofMinutes(15), Duration.ofHours(24), 1_000));
        Map<String, Integer> first = flood(10, 40); // 31 addresses, 4 each
        assertThat(first.get("201")).as("the global rate's burst").isEqualTo(20);
        assertThat(first.get("429 all")).as("refused for all addresses together").isPositive();
        assertThat(first.getOrDefault("503", 0)).isZero();

        clock.move(Duration.ofMinutes(1)); // the global bucket refills, and every address's
        Map<String, Integer> second = flood(41, 70);
        assertThat(second.get("201")).as("up to the cap of 30").isEqualTo(10);
        assertThat(second.get("503")).as("the cap").isPositive();

        InetAddress real = InetAddress.getByName("127.0.0.200");
        String busy = rawPost(real, "/oauth/register", "{\"redirect_uris\": [\"" + REDIRECT + "\"]}");
        assertThat(busy).as("the flood took the global rate too").startsWith("HTTP/1.1 429").contains("all addresses together");
        clock.move(Duration.ofMinutes(1)); // the flood stopped: the global bucket is full again, the cap still reached
        String full = rawPost(real, "/oauth/register", "{\"redirect_uris\": [\"" + REDIRECT + "\"]}");
        assertThat(full).startsWith("HTTP/1.1 503").contains("Retry-After: 60");
        clock.move(Duration.ofMinutes(13)); // 15 minutes after the first flood: its 20 clients count no more
        assertThat(rawPost(real, "/oauth/register", "{\"redirect_uris\": [\"" + REDIRECT + "\"]}")).startsWith("HTTP/1.1 201");
    }

    /** Four registrations from each of 127.0.0.{from..to}: how many got which answer (429 split by which limit). */
    private Map<String, Integer> flood(int from, int to) throws Exception {
        Map<String, Integer> answers = new TreeMap<>();
        for (int x = from; x <= to; x++) {
            InetAddress address = InetAddress.getByName("127.0.0." + x);
            for (int i = 0; i < 4; i++) {
                String answer = rawPost(address, "/oauth/register", "{\"redirect_uris\": [\"" + REDIRECT + "\"]}");
                String status = answer.substring(9, 12);
                String key = !status.equals("429") ? status : answer.contains("all addresses together") ? "429 all" : "429 address";
                answers.merge(key, 1, Integer::sum);
            }
        }
        return answers;
    }

    private HttpResponse<String> authorize(String clientId) throws Exception {
        return get("/oauth/authorize?response_type=code&client_id=" + clientId + "&redirect_uri="
                + URLEncoder.encode(REDIRECT, StandardCharsets.UTF_8) + "&code_challenge=" + "A".repeat(43) + "&code_challenge_method=S256");
    }

    /** An authorize request that fails its own checks (400) unless its address is past the limit (429). */
    private static final String AUTHORIZE = "/oauth/authorize?client_id=unknown";

    @Test
    void behindATrustedProxyEachForwardedClientHasItsOwnBucket() throws Exception {
        start(limits(100, 1, 100, 100), "127.0.0.1, 10.0.0.0/8, fd00::/8");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.7")).startsWith("HTTP/1.1 400");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.7")).startsWith("HTTP/1.1 429");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.8")).as("another client behind the same proxy")
                .startsWith("HTTP/1.1 400");
        assertThat(rawGet(LOOPBACK, AUTHORIZE)).as("the proxy's own requests: its own bucket").startsWith("HTTP/1.1 400");
        // a chain of trusted proxies (10/8 in front of this one) is walked past; a port after the address is dropped
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 198.51.100.1:5123, 10.1.2.3")).startsWith("HTTP/1.1 400");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 198.51.100.1, 10.9.9.9")).startsWith("HTTP/1.1 429");
        // several header lines are one list (HAProxy adds a line of its own after the client's)
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 10.0.0.1", "X-Forwarded-For: 198.51.100.2, 10.0.0.2"))
                .startsWith("HTTP/1.1 400");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 198.51.100.2")).startsWith("HTTP/1.1 429");
        // IPv6 clients count as their /64
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 2001:db8:1:2::1")).startsWith("HTTP/1.1 400");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: [2001:db8:1:2:ffff::9]:443")).startsWith("HTTP/1.1 429");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 2001:db8:1:3::1")).startsWith("HTTP/1.1 400");
    }

    @Test
    void aClientCannotForgeItsWayPastTheProxyByWritingAddressesLeftOfItsOwn() throws Exception {
        start(limits(100, 1, 100, 100), "127.0.0.1");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.7")).startsWith("HTTP/1.1 400");
        // what the client wrote stands left of the address the proxy appended: the right-most untrusted one counts
        for (String forged : List.of("1.2.3.4", "127.0.0.1", "5.6.7.8, 127.0.0.1", "unknown", "x".repeat(3000))) {
            assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: " + forged + ", 203.0.113.7")).as(forged.length() > 40 ? "a long one" : forged)
                    .startsWith("HTTP/1.1 429");
            assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: " + forged, "X-Forwarded-For: 203.0.113.7"))
                    .startsWith("HTTP/1.1 429");
        }
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 1.2.3.4, 203.0.113.8")).as("another real client")
                .startsWith("HTTP/1.1 400");
    }

    @Test
    void theHeaderOfAPeerThatIsNotATrustedProxyIsIgnored() throws Exception {
        start(limits(100, 1, 100, 100), "127.0.0.1");
        InetAddress other = InetAddress.getByName("127.0.0.2");
        assertThat(rawGet(other, AUTHORIZE, "X-Forwarded-For: 203.0.113.7")).startsWith("HTTP/1.1 400");
        assertThat(rawGet(other, AUTHORIZE, "X-Forwarded-For: 203.0.113.8")).as("counted as 127.0.0.2 whatever it writes")
                .startsWith("HTTP/1.1 429");
        assertThat(rawGet(other, AUTHORIZE, "X-Forwarded-For: 203.0.113.9, 127.0.0.1")).startsWith("HTTP/1.1 429");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.8")).as("the proxy's client 203.0.113.8 is apart")
                .startsWith("HTTP/1.1 400");
    }

    @Test
    void withNoTrustedProxyTheHeaderIsIgnoredAsBefore() throws Exception {
        start(limits(100, 1, 100, 100), null);
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.7")).startsWith("HTTP/1.1 400");
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.8")).startsWith("HTTP/1.1 429");
    }

    @Test
    void aMissingMalformedOrOverlongHeaderFromATrustedProxyCountsTheProxy() throws Exception {
        start(limits(100, 1, 100, 100), "127.0.0.1");
        assertThat(rawGet(LOOPBACK, AUTHORIZE)).startsWith("HTTP/1.1 400");
        String trustedHops = String.join(", ", Collections.nCopies(TrustedProxies.MAX_ENTRIES, "127.0.0.1"));
        for (String header : List.of("unknown", "203.0.113.7, garbage", "203.0.113.7,", "203.0.113.7, 127.0.0.1:99999",
                "_hidden", "203.0.113.1.5", "203.0.113.7 10.0.0.1", "example.com", "",
                "203.0.113.7, " + trustedHops, // past the entries looked at
                "203.0.113.7," + " ".repeat(TrustedProxies.MAX_CHARS) + "127.0.0.1")) { // past the characters read
            assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: " + header))
                    .as(header.length() > 60 ? header.substring(0, 60) + "…" : header).startsWith("HTTP/1.1 429");
        }
        assertThat(rawGet(LOOPBACK, AUTHORIZE, "X-Forwarded-For: 203.0.113.7, " + trustedHops.substring(11)))
                .as("within the bounds").startsWith("HTTP/1.1 400");
    }

    @Test
    void theAddressesTrackedAreBounded() {
        RateLimiter limiter = new RateLimiter(new RateLimiter.Rate(1, Duration.ofMinutes(1)), clock, 100);
        for (int i = 0; i < 1_000; i++) {
            limiter.take("10.0." + (i / 256) + "." + (i % 256));
        }
        assertThat(limiter.tracked()).isLessThanOrEqualTo(100);
        assertThat(limiter.take("10.9.9.9")).isZero();
        assertThat(limiter.take("10.9.9.9")).isEqualTo(Duration.ofMinutes(1));
    }

    private HttpResponse<String> register() throws Exception {
        return post("/oauth/register", "application/json", "{\"redirect_uris\": [\"" + REDIRECT + "\"]}");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).build());
    }

    private HttpResponse<String> post(String path, String type, String body) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /**
     * On a connection of its own: a kept one could be one the server is closing after its last answer (a POST is not
     * retried on it: CI met "header parser received no bytes"), or one to an earlier test's server on a reused port.
     */
    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    /** A GET sent from a local address, with these header lines: the first line of the answer. */
    private String rawGet(InetAddress from, String path, String... headers) throws Exception {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + base.getAuthority() + "\r\n"
                    + String.join("", Arrays.stream(headers).map(h -> h + "\r\n").toList())
                    + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).lines().findFirst().orElse("");
        }
    }

    /** A POST of a JSON body sent from a local address: the whole answer. */
    private String rawPost(InetAddress from, String path, String body) throws Exception {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: " + base.getAuthority() + "\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A clock the test moves forward. */
    private static final class MovableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-03-01T10:00:00Z");

        void move(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
