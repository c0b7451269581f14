package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.server.oauth.RateLimiter;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rates per user and per client address on {@code /v1/call} and {@code /mcp}, over real HTTP: 429 with
 * {@code Retry-After} and the endpoint's own JSON envelope past either; users counted apart, addresses counted apart
 * (127.0.0.2 is another client; behind a trusted proxy, each {@code X-Forwarded-For} client), a trusted backend's
 * key not counted per address; with MCP authorization the user is the signed-in account, whichever of its tokens.
 */
class RequestRatesTest {
    private static final String KEY = "rates-key";
    private static final int PER_USER = 5;
    private static final int PER_ADDRESS = 8;
    private static final String TOOLS_LIST = "{\"command\": \"tools.list\"}";
    private static final String MCP_LIST = "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}";
    private static final String[] MCP_HEADERS = {"Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2025-11-25"};

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static Emulator emulator;
    private static ToolRegistry registry;
    private static HttpService service;
    private static URI base;

    private static HttpService.Limits limits(List<String> trustedProxies) {
        HttpService.Limits d = HttpService.Limits.DEFAULT;
        return new HttpService.Limits(new RateLimiter.Rate(PER_USER, Duration.ofMinutes(1)),
                new RateLimiter.Rate(PER_ADDRESS, Duration.ofMinutes(1)), d.headerTimeout(), d.idleTimeout(),
                d.maxConnections(), d.maxConnectionsPerAddress(), trustedProxies, d.metricsHosts());
    }

    @BeforeAll
    static void start() throws Exception {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .users(2).seedMessages(5).build());
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 100, 100, 64 * 1024, Duration.ofSeconds(5),
                null, ServiceKeys.hash(KEY), Set.of(), List.of(emulator.rootUri())).withLimits(limits(List.of("127.0.0.1")));
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        registry = Tools.builder().rootUrl(emulator.rootUri().toString()).noTokenMessage("no token").listener(metrics).build();
        service = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
        base = URI.create("http://127.0.0.1:" + service.port());
    }

    @AfterAll
    static void stop() {
        service.close();
        registry.close();
    }

    private static SourcedHttp.Answer call(InetAddress from, String body, String... headers) throws Exception {
        return SourcedHttp.send(from, base, "POST", "/v1/call", body, headers);
    }

    private static SourcedHttp.Answer mcp(InetAddress from, String... headers) throws Exception {
        String[] all = Stream.concat(Arrays.stream(MCP_HEADERS), Arrays.stream(headers))
                .toArray(String[]::new);
        return SourcedHttp.send(from, base, "POST", "/mcp", MCP_LIST, all);
    }

    /** A 429 of the tool protocol: its code, the limit named, a Retry-After within the bucket's refill of one request. */
    private static void assertToolProtocol429(SourcedHttp.Answer answer, String what, int perMinute) throws Exception {
        assertThat(answer.status()).as(answer.body()).isEqualTo(429);
        assertRetryAfter(answer, perMinute);
        JsonNode error = Json.MAPPER.readTree(answer.body()).get("error");
        assertThat(error.get("code").asText()).isEqualTo("rate_limited");
        assertThat(error.get("message").asText()).contains(what).contains("at most " + perMinute + " per 1 min").contains("retry after");
    }

    private static void assertJsonRpc429(SourcedHttp.Answer answer, String what, int perMinute) throws Exception {
        assertThat(answer.status()).as(answer.body()).isEqualTo(429);
        assertRetryAfter(answer, perMinute);
        JsonNode json = Json.MAPPER.readTree(answer.body());
        assertThat(json.get("jsonrpc").asText()).isEqualTo("2.0");
        assertThat(json.has("id")).isTrue();
        assertThat(json.get("id").isNull()).isTrue();
        assertThat(json.get("error").get("code").asInt()).isEqualTo(-32600);
        assertThat(json.get("error").get("message").asText()).startsWith("rate_limited: ").contains(what).contains("retry after");
    }

    private static void assertRetryAfter(SourcedHttp.Answer answer, int perMinute) {
        assertThat(answer.header("Retry-After")).isNotNull();
        assertThat(Integer.parseInt(answer.header("Retry-After"))).isBetween(1, 60 / perMinute + 1);
    }

    @Test
    void answers429PerUserOnBothEndpointsCountingTheGoogleTokenWhereverItIs() throws Exception {
        String key = "Authorization: Bearer " + KEY;
        for (int i = 0; i < PER_USER - 1; i++) {
            assertThat(call(SourcedHttp.LOOPBACK, TOOLS_LIST, key, Gate.GOOGLE_TOKEN_HEADER + ": user-a-token").status()).isEqualTo(200);
        }
        // the same user's fifth request on /mcp: one bucket for both endpoints
        assertThat(mcp(SourcedHttp.LOOPBACK, key, Gate.GOOGLE_TOKEN_HEADER + ": user-a-token").status()).isEqualTo(200);
        assertToolProtocol429(call(SourcedHttp.LOOPBACK, TOOLS_LIST, key, Gate.GOOGLE_TOKEN_HEADER + ": user-a-token"),
                "for this user", PER_USER);
        assertJsonRpc429(mcp(SourcedHttp.LOOPBACK, key, Gate.GOOGLE_TOKEN_HEADER + ": user-a-token"), "for this user", PER_USER);
        // the token in the request's params is the same user
        assertToolProtocol429(call(SourcedHttp.LOOPBACK, "{\"command\": \"tools.list\", \"params\": {\"access_token\": \"user-a-token\"}}",
                key), "for this user", PER_USER);
        // another user is not held up, from the same backend (a key holder is not counted per address)
        for (int i = 0; i < PER_ADDRESS + 2; i++) {
            assertThat(call(SourcedHttp.LOOPBACK, TOOLS_LIST, key, Gate.GOOGLE_TOKEN_HEADER + ": user-" + i).status()).isEqualTo(200);
        }
        // nothing of the token in the answer
        assertThat(call(SourcedHttp.LOOPBACK, TOOLS_LIST, key, Gate.GOOGLE_TOKEN_HEADER + ": user-a-token").body())
                .doesNotContain("user-a-token");
    }

    @Test
    void answers429PerClientAddressToRequestsWithoutAKeyAndCountsAddressesApart() throws Exception {
        for (int i = 0; i < PER_ADDRESS / 2; i++) {
            assertThat(call(SourcedHttp.OTHER, TOOLS_LIST, "Authorization: Bearer guess-" + i).status()).isEqualTo(401);
            assertThat(mcp(SourcedHttp.OTHER, "Authorization: Bearer guess-" + i).status()).isEqualTo(401);
        }
        assertToolProtocol429(call(SourcedHttp.OTHER, TOOLS_LIST, "Authorization: Bearer guess"), "from this address", PER_ADDRESS);
        assertJsonRpc429(mcp(SourcedHttp.OTHER), "from this address", PER_ADDRESS);
        // what 127.0.0.2 writes in X-Forwarded-For does not make it another client: it is no trusted proxy
        assertThat(call(SourcedHttp.OTHER, TOOLS_LIST, "X-Forwarded-For: 203.0.113.99").status()).isEqualTo(429);
        // a key holder at the same address is a backend serving many users: counted per user only
        assertThat(call(SourcedHttp.OTHER, TOOLS_LIST, "Authorization: Bearer " + KEY).status()).isEqualTo(200);
        // behind the trusted proxy (127.0.0.1), each client it names is counted apart
        for (int i = 0; i < PER_ADDRESS; i++) {
            assertThat(call(SourcedHttp.LOOPBACK, TOOLS_LIST, "X-Forwarded-For: 203.0.113.7").status()).isEqualTo(401);
        }
        assertThat(call(SourcedHttp.LOOPBACK, TOOLS_LIST, "X-Forwarded-For: 203.0.113.7").status()).isEqualTo(429);
        assertThat(call(SourcedHttp.LOOPBACK, TOOLS_LIST, "X-Forwarded-For: 203.0.113.8").status()).isEqualTo(401);
    }

    @Test
    void withMcpAuthorizationTheUserIsTheSignedInAccountWhicheverOfItsTokens() throws Exception {
        try (OAuthServer signIn = new OAuthServer(emulator, OAuthServer.settings(emulator, URI.create("http://127.0.0.1:0"),
                dir.resolve("oauth.db")), Set.of(), limits(List.of()))) {
            OAuthClient client = OAuthClient.register(signIn.base);
            String user1 = emulator.userAddress(1);
            String user2 = emulator.userAddress(2);
            OAuthClient.Tokens first = client.signIn(user1);
            OAuthClient.Tokens second = client.signIn(user1);
            OAuthClient.Tokens other = client.signIn(user2);
            for (int i = 0; i < PER_USER; i++) {
                OAuthClient.Tokens t = i % 2 == 0 ? first : second;
                assertThat(OAuthClient.mcp(signIn.base, t.access(), MCP_LIST).statusCode()).isEqualTo(200);
            }
            HttpResponse<String> refused = OAuthClient.mcp(signIn.base, second.access(), MCP_LIST);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            JsonNode json = Json.MAPPER.readTree(refused.body());
            assertThat(json.get("jsonrpc").asText()).isEqualTo("2.0");
            assertThat(json.get("error").get("message").asText()).startsWith("rate_limited: ").contains("for this user");
            assertThat(refused.body()).doesNotContain(user1).doesNotContain(second.access());
            assertThat(OAuthClient.mcp(signIn.base, other.access(), MCP_LIST).statusCode()).isEqualTo(200);
        }
    }

    /**
     * A refusal given before the body arrived (the client sent its headers, then its body, as Java's HttpClient does)
     * leaves the connection usable or says it is not: the next request on it is answered, or the refusal carried
     * {@code Connection: close}. Before, the server closed it after a refusal that said nothing, and the client's next
     * request was lost (the benchmark's warm-up failed "HTTP/1.1 header parser received no bytes").
     */
    @Test
    void aRefusalBeforeTheBodyArrivedLeavesTheConnectionUsableOrSaysItCloses() throws Exception {
        String token = Gate.GOOGLE_TOKEN_HEADER + ": keep-alive-user-token";
        for (int i = 0; i < PER_USER; i++) {
            assertThat(mcp(SourcedHttp.LOOPBACK, "Authorization: Bearer " + KEY, token).status()).isEqualTo(200);
        }
        byte[] body = MCP_LIST.getBytes(StandardCharsets.UTF_8);
        String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + KEY + "\r\n" + token + "\r\n"
                + String.join("\r\n", MCP_HEADERS) + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", service.port())) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            var in = new BufferedInputStream(socket.getInputStream());
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String first = readAnswer(in); // the gate answers from the headers alone
            assertThat(first).startsWith("HTTP/1.1 429");
            out.write(body); // the body, late
            out.flush();
            if (first.toLowerCase(Locale.ROOT).contains("\r\nconnection: close")) {
                return; // said: the client opens another
            }
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            assertThat(readAnswer(in)).as("the next request on a connection the refusal kept open").startsWith("HTTP/1.1 429");
        }
    }

    /** One HTTP/1.1 answer with a Content-Length (the head and the body), or "" when the connection ended first. */
    private static String readAnswer(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int c;
        while (!head.toString().endsWith("\r\n\r\n") && (c = in.read()) >= 0) {
            head.append((char) c);
        }
        Matcher length = Pattern.compile("(?i)\r\ncontent-length: *(\\d+)").matcher(head);
        if (length.find()) {
            in.readNBytes(Integer.parseInt(length.group(1)));
        }
        return head.toString();
    }
}
