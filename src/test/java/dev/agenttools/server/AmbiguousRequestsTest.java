package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolRegistry;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a proxy in front could read another way, refused before any gate (400 with the endpoint's JSON envelope): a
 * path in any but its plain form, on both endpoints, with and without the public URL's path prefix; two
 * {@code Authorization}, {@code X-Google-Access-Token} or {@code Origin} headers. And {@code /metrics} answering only
 * for the {@code Host}s allowed (loopback by default; a configured name and range).
 */
class AmbiguousRequestsTest {
    private static final String KEY = "ambiguity-key";
    private static final String TOOLS_LIST = "{\"command\": \"tools.list\"}";
    private static final String MCP_LIST = "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}";
    /** The forms of each path that a proxy and this server could read apart, {@code %s} standing for the endpoint's. */
    private static final List<String> FORMS = List.of("/./%s", "/%s/.", "/x/../%s", "/%s/", "/%s;x=1", "/%s;", "//%s",
            "/%s//", "/%s/%%2e%%2e/%s", "/%s%%2f", "/%%2e/%s", "/%s/%%2E", "/%%6d%s", "/%s#x", "/%s\\x");

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static Emulator emulator;
    private static ToolRegistry registry;
    private static HttpService keys;
    private static HttpService configuredMetrics;
    private static OAuthServer prefixed;

    @BeforeAll
    static void start() throws Exception {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO).build());
        registry = Tools.builder().rootUrl(emulator.rootUri().toString()).build();
        keys = start(HttpService.Limits.DEFAULT);
        HttpService.Limits d = HttpService.Limits.DEFAULT;
        configuredMetrics = start(new HttpService.Limits(d.userRate(), d.addressRate(), d.headerTimeout(), d.idleTimeout(),
                d.maxConnections(), d.maxConnectionsPerAddress(), List.of(), List.of("metrics.internal", "10.0.0.0/8")));
        prefixed = new OAuthServer(emulator, OAuthServer.settings(emulator, URI.create("http://127.0.0.1:0/agent-tools/"),
                dir.resolve("oauth.db")));
    }

    private static HttpService start(HttpService.Limits limits) throws Exception {
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 100, 100, 64 * 1024, Duration.ofSeconds(2),
                null, ServiceKeys.hash(KEY), Set.of("https://allowed.example"), List.of(emulator.rootUri())).withLimits(limits);
        return HttpService.start(registry, HttpService.Metrics.create(options), Tools.SHORT_NAMES, "test", options, () -> null);
    }

    @AfterAll
    static void stop() {
        keys.close();
        configuredMetrics.close();
        prefixed.close();
        registry.close();
    }

    private static URI base(HttpService service) {
        return URI.create("http://127.0.0.1:" + service.port());
    }

    private static String shown(String body) {
        return body.length() > 300 ? body.substring(0, 300) + "..." : body;
    }

    private static void assertToolProtocol400(SourcedHttp.Answer answer, String what, String says) throws Exception {
        assertThat(answer.status()).as(what + ": " + shown(answer.body())).isEqualTo(400);
        JsonNode error = Json.MAPPER.readTree(answer.body()).get("error");
        assertThat(error.get("code").asText()).as(what).isEqualTo("invalid_argument");
        assertThat(error.get("message").asText()).as(what).contains(says);
    }

    private static void assertJsonRpc400(SourcedHttp.Answer answer, String what, String says) throws Exception {
        assertThat(answer.status()).as(what + ": " + shown(answer.body())).isEqualTo(400);
        JsonNode json = Json.MAPPER.readTree(answer.body());
        assertThat(json.get("jsonrpc").asText()).as(what).isEqualTo("2.0");
        assertThat(json.get("id").isNull()).as(what).isTrue();
        assertThat(json.get("error").get("code").asInt()).as(what).isEqualTo(-32600);
        assertThat(json.get("error").get("message").asText()).as(what).contains(says);
    }

    @Test
    void refusesEveryPathNotInItsPlainFormOnBothEndpointsBeforeTheGates() throws Exception {
        String key = "Authorization: Bearer " + KEY;
        String[] mcpHeaders = {key, "Accept: application/json, text/event-stream"};
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/v1/call", TOOLS_LIST, key).status()).isEqualTo(200);
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/mcp", MCP_LIST, mcpHeaders).status()).isEqualTo(200);
        for (String form : FORMS) {
            String call = form.replace("%s", "v1/call").replace("%%", "%");
            assertToolProtocol400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", call, TOOLS_LIST, key), call, "plain form");
            String mcp = form.replace("%s", "mcp").replace("%%", "%");
            SourcedHttp.Answer answer = SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", mcp, MCP_LIST, mcpHeaders);
            if (mcp.startsWith("/mcp")) {
                assertJsonRpc400(answer, mcp, "plain form");
            } else {
                assertToolProtocol400(answer, mcp, "plain form");
            }
        }
        // the probe a proxy would read as /mcp, and this server once as /v1/call
        assertJsonRpc400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/mcp/../v1/call", TOOLS_LIST, key),
                "/mcp/../v1/call", "plain form");
        // the probe's form with a dot segment inside the path, not only around it
        assertToolProtocol400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/v1/./call", TOOLS_LIST, key),
                "/v1/./call", "plain form");
        assertToolProtocol400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "GET", "/healthz/", null), "/healthz/", "plain form");
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "GET", "/healthz?x=/../", null).status())
                .as("a query is not the path").isEqualTo(200);
    }

    @Test
    void refusesThePathFormsUnderThePublicUrlsPrefixToo() throws Exception {
        URI base = prefixed.base;
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base, "POST", "/agent-tools/mcp", MCP_LIST).status())
                .as("the plain form reaches the token check").isEqualTo(401);
        for (String form : FORMS) {
            String call = "/agent-tools" + form.replace("%s", "v1/call").replace("%%", "%");
            assertToolProtocol400(SourcedHttp.send(SourcedHttp.LOOPBACK, base, "POST", call, TOOLS_LIST), call, "plain form");
            String mcp = "/agent-tools" + form.replace("%s", "mcp").replace("%%", "%");
            SourcedHttp.Answer answer = SourcedHttp.send(SourcedHttp.LOOPBACK, base, "POST", mcp, MCP_LIST);
            if (mcp.startsWith("/agent-tools/mcp")) {
                assertJsonRpc400(answer, mcp, "plain form");
            } else {
                assertToolProtocol400(answer, mcp, "plain form");
            }
        }
        assertJsonRpc400(SourcedHttp.send(SourcedHttp.LOOPBACK, base, "POST", "/agent-tools/mcp/../v1/call", TOOLS_LIST),
                "/agent-tools/mcp/../v1/call", "plain form");
        assertToolProtocol400(SourcedHttp.send(SourcedHttp.LOOPBACK, base, "POST", "/agent-tools/./mcp", MCP_LIST),
                "/agent-tools/./mcp", "plain form");
    }

    @Test
    void refusesTwoAuthorizationGoogleTokenOrOriginHeadersInsteadOfPickingOne() throws Exception {
        String key = "Authorization: Bearer " + KEY;
        String token = Gate.GOOGLE_TOKEN_HEADER + ": emulator-user-1";
        // even when both keys are good: which one a proxy checked is not known here
        assertToolProtocol400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/v1/call", TOOLS_LIST, key, key),
                "two Authorization", "2 Authorization headers");
        assertToolProtocol400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/v1/call", TOOLS_LIST, key, token,
                Gate.GOOGLE_TOKEN_HEADER + ": another-users-token"), "two Google tokens", "2 X-Google-Access-Token headers");
        String[] mcp = {"Accept: application/json, text/event-stream", key};
        assertJsonRpc400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/mcp", MCP_LIST, mcp[0], key, "Authorization: Bearer other"),
                "two Authorization on /mcp", "2 Authorization headers");
        assertJsonRpc400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/mcp", MCP_LIST, mcp[0], key, token, token),
                "two Google tokens on /mcp", "2 X-Google-Access-Token headers");
        assertJsonRpc400(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/mcp", MCP_LIST, mcp[0], key,
                "Origin: https://allowed.example", "Origin: https://evil.example"), "two Origins", "2 Origin headers");
        // one of each is served
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/v1/call", TOOLS_LIST, key, token).status()).isEqualTo(200);
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/mcp", MCP_LIST, mcp[0], key, token,
                "Origin: https://allowed.example").status()).isEqualTo(200);
        // nothing presented comes back
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "POST", "/v1/call", TOOLS_LIST, key, key).body()).doesNotContain(KEY);
    }

    @Test
    void answersMetricsOnlyForTheHostsAllowed() throws Exception {
        for (String host : List.of("localhost", "localhost:" + keys.port(), "127.0.0.1:" + keys.port(), "127.0.0.9", "[::1]:80")) {
            assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "GET", "/metrics", null, "Host: " + host).status())
                    .as(host).isEqualTo(200);
        }
        for (String host : List.of("tools.example.com", "tools.example.com:443", "10.0.0.5:8080", "localhost.example.com", "[::2]")) {
            SourcedHttp.Answer answer = SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "GET", "/metrics", null, "Host: " + host);
            assertThat(answer.status()).as(host).isEqualTo(403);
            assertThat(Json.MAPPER.readTree(answer.body()).get("error").get("message").asText())
                    .contains(MetricsHosts.SETTING).doesNotContain("agent_tools_calls");
        }
        for (String host : List.of("metrics.internal", "METRICS.internal:9100", "10.1.2.3:8080")) {
            assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(configuredMetrics), "GET", "/metrics", null, "Host: " + host).status())
                    .as(host).isEqualTo(200);
        }
        for (String host : List.of("127.0.0.1", "localhost", "11.0.0.1", "tools.example.com")) {
            assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(configuredMetrics), "GET", "/metrics", null, "Host: " + host).status())
                    .as(host).isEqualTo(403);
        }
        // the other probes take any Host: a balancer's checks name the instance as they like
        assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(keys), "GET", "/healthz", null, "Host: tools.example.com").status()).isEqualTo(200);
    }

    @Test
    void theMetricsHostsSettingRefusesWhatIsNoHostAddressOrRange() {
        for (String bad : List.of("exa mple", "10.0.0.1/8", "10.0.0.0/33", "http://x", "a_b.example")) {
            Assertions.assertThatThrownBy(() -> MetricsHosts.parse(List.of(bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(MetricsHosts.SETTING);
        }
        assertThat(MetricsHosts.parse(List.of("*", "fd00::/8", "metrics.example"))).isNotNull();
    }
}
