package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code agent-tools server} as its callers meet it, over real HTTP against the emulator: a trusted backend's
 * {@code /v1/call} with a service key and the user's token in a header, the MCP SDK's own Streamable HTTP client at
 * {@code /mcp}, the probes and metrics, and the refusals (no key, a key withdrawn, a body too large, a foreign origin,
 * an unknown protocol version, no room).
 */
@Tag("process")
class HttpServiceTest {
    private static final String KEY = "service-key-one";
    private static final String TOKEN = "t";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static Emulator emulator;
    private static ToolRegistry registry;
    private static ToolRegistry inProcess;
    private static HttpService service;
    private static Path keys;
    private static URI base;
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .quotaPerMinute(60_000_000).maxConcurrent(1_000).token(TOKEN).build());
        keys = dir.resolve("keys");
        Files.writeString(keys, "# the test's backend\nsha256:" + ServiceKeys.hash(KEY) + "\n");
        HttpService.Options options = options(keys, 100, 100);
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        registry = Tools.builder().rootUrl(emulator.rootUri().toString()).noTokenMessage("no Google access token: send it in X-Google-Access-Token")
                .listener(metrics).build();
        inProcess = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken(TOKEN).build();
        service = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
        base = URI.create("http://127.0.0.1:" + service.port());
    }

    private static HttpService.Options options(Path keyFile, int maxInFlight, int maxQueued) {
        return new HttpService.Options("127.0.0.1", 0, maxInFlight, maxQueued, 64 * 1024, Duration.ofSeconds(5), keyFile,
                null, Set.of("https://allowed.example"), List.of(emulator.rootUri()));
    }

    @AfterAll
    static void stop() {
        service.close();
        registry.close();
        inProcess.close();
    }

    private static HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> call(String body) throws Exception {
        return post("/v1/call", body, "Authorization", "Bearer " + KEY, Gate.GOOGLE_TOKEN_HEADER, TOKEN);
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String timeless(String answer) {
        return answer.strip().replaceAll("\"duration_ms\":[0-9.]+", "\"duration_ms\":0").replaceAll("attempt ([0-9]+), [0-9]+ ms", "attempt $1, N ms");
    }

    @Test
    void answersTheToolProtocolAsCallDoesWithTheStatusOfItsErrorCode() throws Exception {
        ToolProtocol local = new ToolProtocol(inProcess, Tools.SHORT_NAMES);
        for (String request : List.of("{\"command\": \"tools.list\"}",
                "{\"id\": 7, \"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 3, \"strategy\": \"batch\"}}",
                "{\"command\": \"calendar.list-calendars\"}")) {
            HttpResponse<String> answer = call(request);
            assertThat(answer.statusCode()).as(request).isEqualTo(200);
            assertThat(answer.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
            assertThat(timeless(answer.body())).as(request).isEqualTo(timeless(local.answer(request).line()));
        }
        Map<String, Integer> statuses = Map.of(
                "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}", 404,
                "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": -1}}", 400,
                "{\"command\": \"no.such\"}", 400,
                "not json", 400);
        for (var e : statuses.entrySet()) {
            HttpResponse<String> answer = call(e.getKey());
            assertThat(answer.statusCode()).as(e.getKey()).isEqualTo(e.getValue());
            assertThat(timeless(answer.body())).as(e.getKey()).isEqualTo(timeless(local.answer(e.getKey()).line()));
        }
        // the user's token: none at all, and one Google refuses (never the server operator's own: it has none)
        HttpResponse<String> noToken = post("/v1/call", "{\"command\": \"gmail.list-emails\"}", "Authorization", "Bearer " + KEY);
        assertThat(noToken.statusCode()).isEqualTo(401);
        assertThat(noToken.body()).contains("\"code\":\"unauthenticated\"").contains("X-Google-Access-Token");
        HttpResponse<String> refused = post("/v1/call", "{\"command\": \"gmail.list-emails\"}", "Authorization", "Bearer " + KEY,
                Gate.GOOGLE_TOKEN_HEADER, "ya29.not-this-users-token");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).doesNotContain("ya29.not-this-users-token");
        HttpResponse<String> getIt = get("/v1/call");
        assertThat(getIt.statusCode()).isEqualTo(405);
        assertThat(getIt.headers().firstValue("allow")).hasValue("POST");
    }

    @Test
    void refusesCallersWithoutAKeyAndTakesANewKeyWithoutARestart() throws Exception {
        String request = "{\"command\": \"tools.list\"}";
        HttpResponse<String> none = post("/v1/call", request);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("www-authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(none.body()).contains("\"code\":\"unauthenticated\"");
        HttpResponse<String> wrong = post("/v1/call", request, "Authorization", "Bearer guess-" + KEY);
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("guess-" + KEY);
        assertThat(post("/mcp", "{}", "Authorization", "Bearer nope").statusCode()).isEqualTo(401);

        // rotation: the second key added, then the first withdrawn, in the file the server reads again
        String second = "service-key-two";
        Files.writeString(keys, ServiceKeys.hash(KEY) + "\n" + ServiceKeys.hash(second) + "\n");
        assertThat(eventuallyStatus(request, second, 200)).isEqualTo(200);
        Files.writeString(keys, ServiceKeys.hash(second) + "  # the first key withdrawn\n");
        assertThat(eventuallyStatus(request, KEY, 401)).isEqualTo(401);
        assertThat(post("/v1/call", request, "Authorization", "Bearer " + second).statusCode()).isEqualTo(200);
        Files.writeString(keys, ServiceKeys.hash(KEY) + "\n" + ServiceKeys.hash(second) + "\n");
        assertThat(eventuallyStatus(request, KEY, 200)).isEqualTo(200);
    }

    @Test
    void refusesAKeyFileOtherUsersMayWriteAndAKeyInsteadOfAHash() throws Exception {
        Path shared = dir.resolve("shared-keys");
        Files.writeString(shared, ServiceKeys.hash(KEY) + "\n");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-rw-rw-"));
        Assertions.assertThatThrownBy(() -> new ServiceKeys(shared, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("may be written by other users")
                .hasMessageContaining("chmod go-w");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-------"));
        assertThat(new ServiceKeys(shared, null).accepts("Bearer " + KEY)).isTrue();
        Assertions.assertThatThrownBy(() -> new ServiceKeys(null, "not-a-hash"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("AGENT_TOOLS_SERVICE_KEY_HASHES line 1")
                .hasMessageContaining("64 hex digits").hasMessageNotContaining("not-a-hash");
    }

    /** The status a request with {@code key} gets once the server has read the key file again (it looks each second). */
    private static int eventuallyStatus(String request, String key, int wanted) throws Exception {
        int status = 0;
        for (int i = 0; i < 50 && status != wanted; i++) {
            Thread.sleep(100);
            status = post("/v1/call", request, "Authorization", "Bearer " + key).statusCode();
        }
        return status;
    }

    @Test
    void refusesABodyOverItsLimitBeforeRunningIt() throws Exception {
        String big = "{\"command\": \"tools.list\", \"params\": {\"agent_name\": \"" + "x".repeat(70 * 1024) + "\"}}";
        // again and again: a server that answers and closes while the body is still coming makes the client lose the
        // answer now and then (a reset: "header parser received no bytes"), more often on a busy machine
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> answer = call(big);
            assertThat(answer.statusCode()).isEqualTo(413);
            assertThat(answer.body()).contains("\"code\":\"invalid_argument\"").contains("65536 bytes");
        }
        // a client that waits for 100 Continue is answered before it sends the body
        HttpResponse<String> early = http.send(HttpRequest.newBuilder(base.resolve("/v1/call")).expectContinue(true)
                .header("Authorization", "Bearer " + KEY).header(Gate.GOOGLE_TOKEN_HEADER, TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(big)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(early.statusCode()).isEqualTo(413);
    }

    @Test
    void servesMcpToTheSdksStreamableHttpClient() throws Exception {
        var mapper = new JacksonMcpJsonMapper(tools.jackson.databind.json.JsonMapper.builder().build());
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(base.toString())
                .endpoint("/mcp").jsonMapper(mapper)
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + KEY).header(Gate.GOOGLE_TOKEN_HEADER, TOKEN))
                .build();
        try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build()) {
            McpSchema.InitializeResult init = client.initialize();
            assertThat(init.serverInfo().name()).isEqualTo("agent-tools");
            assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).containsExactlyInAnyOrder("list_emails",
                    "search_emails", "get_email", "list_calendars", "list_events", "get_event", "free_busy");
            McpSchema.CallToolResult listed = client.callTool(McpSchema.CallToolRequest.builder("list_emails").arguments(Map.of("max_results", 2)).build());
            assertThat(listed.isError()).as(listed.toString()).isFalse();
            JsonNode data = Json.MAPPER.readTree(((McpSchema.TextContent) listed.content().get(0)).text());
            assertThat(data.get("emails")).hasSize(2);
            McpSchema.CallToolResult missing = client.callTool(McpSchema.CallToolRequest.builder("get_email").arguments(Map.of("message_id", "00000000000000ab")).build());
            assertThat(missing.isError()).isTrue();
            assertThat(((McpSchema.TextContent) missing.content().get(0)).text()).startsWith("not_found:");
        }
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
        String[] accept = {"Accept", "application/json, text/event-stream", "Content-Type", "application/json", "Authorization", "Bearer " + KEY};
        assertThat(post("/mcp", initialize, concat(accept, "MCP-Protocol-Version", "1999-01-01")).statusCode()).isEqualTo(400);
        assertThat(post("/mcp", initialize, concat(accept, "Origin", "https://evil.example")).statusCode()).isEqualTo(403);
        assertThat(post("/mcp", initialize, concat(accept, "Origin", "https://allowed.example")).statusCode()).isEqualTo(200);
    }

    private static String[] concat(String[] a, String... b) {
        List<String> all = new ArrayList<>(List.of(a));
        all.addAll(List.of(b));
        return all.toArray(String[]::new);
    }

    @Test
    void probesAndMetricsAnswerWithoutAKeyAndCountCallsPerToolAndBackend() throws Exception {
        assertThat(call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2, \"strategy\": \"sequential\"}}").statusCode()).isEqualTo(200);
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        HttpResponse<String> ready = get("/readyz");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body()).contains("\"status\":\"ready\"");
        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body())
                .contains("agent_tools_calls_total{backend=\"sequential\",code=\"ok\",tool=\"gmail.list-emails\"}")
                .contains("agent_tools_call_duration_seconds_bucket{backend=\"sequential\",tool=\"gmail.list-emails\",le=\"0.005\"}")
                .contains("agent_tools_http_requests_total{endpoint=\"/v1/call\",status=\"200\"}")
                .contains("agent_tools_calls_in_flight")
                .doesNotContain("ya29").doesNotContain("me@example.com");
        HttpResponse<String> unknown = get("/nowhere");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("\"code\":\"not_found\"");
    }

    /** A server of its own in front of an emulator of its own whose every call takes {@code latency}. */
    private record Slow(Emulator emulator, ToolRegistry tools, HttpService.Metrics metrics, HttpService service) implements AutoCloseable {
        static Slow start(Duration latency, int maxInFlight, int maxQueued, Duration drain) throws Exception {
            Emulator emulator = emulators.start(EmulatorConfig.builder().latency(latency).jitter(Duration.ZERO)
                    .handshake(Duration.ZERO).token(TOKEN).build());
            HttpService.Options options = new HttpService.Options("127.0.0.1", 0, maxInFlight, maxQueued, 64 * 1024, drain, keys,
                    null, Set.of(), List.of(emulator.rootUri()));
            HttpService.Metrics metrics = HttpService.Metrics.create(options);
            ToolRegistry tools = Tools.builder().rootUrl(emulator.rootUri().toString()).listener(metrics).build();
            return new Slow(emulator, tools, metrics, HttpService.start(tools, metrics, Tools.SHORT_NAMES, "test", options, () -> null));
        }

        /** A get_email of a message that does not exist: 404 after one call to the emulator. */
        Callable<HttpResponse<String>> missingEmail() {
            URI at = URI.create("http://127.0.0.1:" + service.port() + "/v1/call");
            return () -> http.send(HttpRequest.newBuilder(at)
                    .headers("Authorization", "Bearer " + KEY, Gate.GOOGLE_TOKEN_HEADER, TOKEN)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
        }

        @Override
        public void close() {
            service.close();
            tools.close();
            emulator.close();
        }
    }

    @Test
    void answers503WithRetryAfterBeyondItsAdmissionLimits() throws Exception {
        try (Slow small = Slow.start(Duration.ofMillis(800), 1, 0, Duration.ofSeconds(5));
             ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                answers.add(callers.submit(small.missingEmail()));
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<HttpResponse<String>> f : answers) {
                HttpResponse<String> r = f.get();
                statuses.add(r.statusCode());
                if (r.statusCode() == 503) {
                    assertThat(r.headers().firstValue("retry-after")).hasValue("1");
                    assertThat(r.body()).contains("\"code\":\"overloaded\"");
                }
            }
            // one slot, no waiting room: the first call runs (and finds no such message), the others at once get 503
            assertThat(statuses).contains(404, 503);
        }
    }

    @Test
    void aStopLetsTheCallsInFlightFinishThenRefusesNewOnes() throws Exception {
        try (Slow draining = Slow.start(Duration.ofMillis(1500), 10, 10, Duration.ofSeconds(20));
             ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<HttpResponse<String>> inFlight = callers.submit(draining.missingEmail());
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (draining.metrics().inFlight() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(draining.metrics().inFlight()).as("the call reached the server").isEqualTo(1);
            Callable<HttpResponse<String>> afterStop = draining.missingEmail(); // its address, while it has one
            Future<?> stopping = callers.submit(() -> {
                draining.service().close();
                return null;
            });
            HttpResponse<String> answered = inFlight.get();
            assertThat(answered.statusCode()).as("the call in flight is answered, not cut").isEqualTo(404);
            assertThat(answered.body()).contains("\"code\":\"not_found\"");
            stopping.get();
            Assertions.assertThatThrownBy(afterStop::call)
                    .as("a stopped server takes no new calls").isInstanceOf(IOException.class);
        }
    }

    @Test
    void servesHttpsWithHttp2ByAlpnFromAKeyStore() throws Exception {
        Path store = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "store-password")
                .redirectErrorStream(true).start();
        String said = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor()).as(said).isZero();
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(store)) {
            trust.load(in, "store-password".toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);

        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 10, 10, 64 * 1024, Duration.ofSeconds(5), keys,
                null, Set.of(), List.of(emulator.rootUri()), new HttpService.Tls(store, "store-password"));
        assertThat(options.tls().toString()).doesNotContain("store-password");
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        HttpService secure = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
        try {
            HttpClient client = HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_2).build();
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + secure.port() + "/v1/call"))
                    .headers("Authorization", "Bearer " + KEY, Gate.GOOGLE_TOKEN_HEADER, TOKEN)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1}}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(answer.version()).as("HTTP/2 by ALPN").isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(answer.body()).contains("\"emails\"");
        } finally {
            secure.close();
        }
    }
}
