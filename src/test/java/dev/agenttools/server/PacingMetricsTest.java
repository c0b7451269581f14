package dev.agenttools.server;

import dev.agenttools.ServicePacing;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.google.PacingShare;
import dev.agenttools.google.PacingStats;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolRegistry;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code /metrics} shows of the Google APIs' pacing, over real HTTP against the emulator's per-user limits: quota
 * waits, Google's rate-limit refusals by kind, and the accounts paced and at learned limits, as counts, never naming
 * a user or carrying a token.
 */
class PacingMetricsTest {
    private static final String KEY = "metrics-key";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** A server whose registry counts its pacing into what its /metrics shows, in front of {@code emulator}. */
    private record Served(ToolRegistry registry, HttpService service) implements AutoCloseable {
        static Served start(Emulator emulator, UnaryOperator<Tools.Builder> pacing) throws Exception {
            HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 100, 100, 64 * 1024, Duration.ofSeconds(5),
                    null, ServiceKeys.hash(KEY), Set.of(), List.of(emulator.rootUri()));
            PacingStats stats = new PacingStats();
            HttpService.Metrics metrics = HttpService.Metrics.create(options, stats);
            ToolRegistry registry = ServicePacing.wire(pacing.apply(Tools.builder().rootUrl(emulator.rootUri().toString())),
                    PacingShare.ALONE, stats).listener(metrics).build();
            return new Served(registry, HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null));
        }

        /** {@code calls} calls of {@code request} as the user of {@code token} at once; their statuses. */
        List<Integer> burst(String token, String request, int calls) throws Exception {
            URI at = URI.create("http://127.0.0.1:" + service.port() + "/v1/call");
            try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<HttpResponse<String>>> answers = new ArrayList<>();
                for (int i = 0; i < calls; i++) {
                    answers.add(callers.submit(() -> http.send(HttpRequest.newBuilder(at)
                            .headers("Authorization", "Bearer " + KEY, Gate.GOOGLE_TOKEN_HEADER, token)
                            .POST(HttpRequest.BodyPublishers.ofString(request)).build(), HttpResponse.BodyHandlers.ofString())));
                }
                List<Integer> statuses = new ArrayList<>();
                for (Future<HttpResponse<String>> a : answers) {
                    statuses.add(a.get().statusCode());
                }
                return statuses;
            }
        }

        /** One call as the user of {@code token}: the whole answer. */
        HttpResponse<String> call(String token, String request) throws Exception {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + "/v1/call"))
                    .headers("Authorization", "Bearer " + KEY, Gate.GOOGLE_TOKEN_HEADER, token)
                    .POST(HttpRequest.BodyPublishers.ofString(request)).build(), HttpResponse.BodyHandlers.ofString());
        }

        String metrics() throws Exception {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);
            return answer.body();
        }

        @Override
        public void close() {
            service.close();
            registry.close();
        }
    }

    /** An emulator that answers at once and limits nothing: the pacing under test is the client's own. */
    private static EmulatorConfig unlimitedEmulator() {
        return EmulatorConfig.builder().seedMessages(20).latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).burst(1_000_000).maxConcurrent(100).build();
    }

    /** The value of one series in Prometheus' text format (its name and labels exactly as written), or NaN when absent. */
    private static double value(String metrics, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    private static void assertNamesNoUser(String metrics, Emulator emulator, int users) {
        for (int u = 1; u <= users; u++) {
            String address = emulator.userAddress(u);
            assertThat(metrics).doesNotContain(address).doesNotContain(emulator.tokenFor(address));
        }
        assertThat(metrics).doesNotContain("@").doesNotContain("emulator-user");
    }

    @Test
    void showsConcurrencyRefusalsAndTheOneAccountThatLearnedALowerCap() throws Exception {
        // Gmail lets each user 3 calls in flight; the client starts at 20 (its default) and no quota wait in the way
        Emulator emulator = emulators.start(EmulatorConfig.builder().users(3).seedMessages(40).latency(Duration.ofMillis(20))
                .jitter(Duration.ZERO).handshake(Duration.ZERO).quotaPerMinute(60_000_000).burst(1_000_000).maxConcurrent(3).build());
        try (Served served = Served.start(emulator, b -> b.pacing(60_000_000, 1_000_000, 20))) {
            String bursting = emulator.tokenFor(emulator.userAddress(1));
            String quiet = emulator.tokenFor(emulator.userAddress(2));
            List<Integer> statuses = served.burst(bursting,
                    "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 20, \"strategy\": \"concurrent\"}}", 4);
            assertThat(statuses).as("the refused gets were paced and sent again").containsOnly(200);
            // one call at a time (its address asked beside it: 2 in flight at most): never refused
            assertThat(served.burst(quiet, "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2, "
                    + "\"strategy\": \"sequential\"}}", 1)).containsOnly(200);

            String metrics = served.metrics();
            assertThat(value(metrics, "agent_tools_rate_limited_total{api=\"gmail\",kind=\"concurrency\"}")).as(metrics)
                    .isPositive()
                    .isLessThanOrEqualTo(emulator.counters().user(emulator.userAddress(1)).concurrencyRejections());
            assertThat(emulator.counters().user(emulator.userAddress(2)).concurrencyRejections()).as("the quiet user's").isZero();
            assertThat(value(metrics, "agent_tools_accounts_limited{api=\"gmail\",limit=\"concurrency\"}")).as(metrics).isEqualTo(1);
            assertThat(value(metrics, "agent_tools_paced_accounts{api=\"gmail\"}")).as("the users who called").isEqualTo(2);
            assertThat(value(metrics, "agent_tools_accounts_shared{api=\"gmail\"}")).as("one instance").isZero();
            assertThat(value(metrics, "agent_tools_paced_accounts{api=\"calendar\"}")).as("no Calendar call").isZero();
            assertNamesNoUser(metrics, emulator, 3);
        }
    }

    @Test
    void aListTheQuotaCannotServeBeforeItsDeadlineIsRefusedAtOnceWithWhenToTryAgain() throws Exception {
        Emulator emulator = emulators.start(unlimitedEmulator());
        // 600 units a minute (10 a second), a bucket of 54: one list of 10 (55 units) goes, a second must wait ~5 s
        try (Served served = Served.start(emulator, b -> b.pacing(600, 60, 20))) {
            String token = emulator.tokenFor(emulator.userAddress(1));
            String list = "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 10, \"timeout_ms\": 1000}}";
            // a token's second session asks, in the background, whose account it is (users.getProfile, paced like any
            // call: Addresses): made to happen first, so that its request, landing whenever the quota lets it (later
            // with both cores busy), is not counted as the refused call's
            String missing = "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"ffffffffffffffff\"}}";
            long start = emulator.counters().apiCalls();
            served.call(token, missing); // Gmail refuses the id: one request each all the same
            served.call(token, missing);
            long until = System.nanoTime() + 15_000_000_000L;
            while (emulator.counters().apiCalls() < start + 3 && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertThat(emulator.counters().apiCalls()).as("two gets and the account's lookup").isEqualTo(start + 3);
            // 11 of the 54 units spent: this list waits ~1.2 s for the rest, within its deadline, and empties the bucket
            assertThat(served.call(token, list.replace("1000", "30000")).statusCode()).isEqualTo(200);
            long gmailCalls = emulator.counters().apiCalls();

            HttpResponse<String> refused = served.call(token, list);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
            var error = Json.MAPPER.readTree(refused.body()).path("error");
            assertThat(error.path("code").asText()).isEqualTo("rate_limited");
            assertThat(error.path("message").asText()).contains("quota of this account is spoken for").contains("try again in");
            long retryAfterMs = error.path("retry_after_ms").asLong();
            assertThat(retryAfterMs).isPositive();
            assertThat(refused.headers().firstValue("Retry-After")).hasValue(Long.toString((retryAfterMs + 999) / 1000));
            assertThat(emulator.counters().apiCalls()).as("refused before it spent any quota").isEqualTo(gmailCalls);

            // a list whose deadline the quota can meet waits its turn and is answered
            assertThat(served.call(token, list.replace("1000", "30000")).statusCode()).isEqualTo(200);
            String metrics = served.metrics();
            assertThat(value(metrics, "agent_tools_quota_refused_total{api=\"gmail\"}")).as(metrics).isEqualTo(1);
            assertThat(value(metrics, "agent_tools_rate_limited_total{api=\"gmail\",kind=\"quota\"}")).as("Google refused none")
                    .isZero();
        }
    }

    @Test
    void anMcpToolCallTheQuotaCannotServeInTimeSaysWhenToTryAgainInItsMeta() throws Exception {
        Emulator emulator = emulators.start(unlimitedEmulator());
        // as above: one list of 10 empties a bucket of 54 at 10 units a second, so a second must wait ~5 s
        try (Served served = Served.start(emulator, b -> b.pacing(600, 60, 20))) {
            String token = emulator.tokenFor(emulator.userAddress(1));
            var transport = HttpClientStreamableHttpTransport
                    .builder("http://127.0.0.1:" + served.service().port()).endpoint("/mcp")
                    .jsonMapper(new JacksonMcpJsonMapper(
                            tools.jackson.databind.json.JsonMapper.builder().build()))
                    .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + KEY)
                            .header(Gate.GOOGLE_TOKEN_HEADER, token))
                    .build();
            try (var client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30))
                    .build()) {
                client.initialize();
                var list = McpSchema.CallToolRequest.builder("list_emails")
                        .arguments(Map.of("max_results", 10, "timeout_ms", 1000)).build();
                assertThat(client.callTool(list).isError()).isFalse();
                var refused = client.callTool(list);
                assertThat(refused.isError()).as(refused.toString()).isTrue();
                assertThat(((McpSchema.TextContent) refused.content().getFirst()).text())
                        .startsWith("rate_limited:").contains("try again in");
                assertThat(refused.meta()).as(refused.toString()).containsKey("retry_after_ms");
                assertThat(((Number) refused.meta().get("retry_after_ms")).longValue()).isPositive();
            }
        }
    }

    @Test
    void showsQuotaWaitsWhenABurstOutrunsTheConfiguredQuota() throws Exception {
        Emulator emulator = emulators.start(unlimitedEmulator());
        // 600 units a minute (10 a second, a bucket of 18): four lists of one message (10 units each) cannot all go at once
        try (Served served = Served.start(emulator, b -> b.pacing(600, 20, 20))) {
            String token = emulator.tokenFor(emulator.userAddress(1));
            List<Integer> statuses = served.burst(token,
                    "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1, \"strategy\": \"sequential\"}}", 4);
            assertThat(statuses).containsOnly(200);

            String metrics = served.metrics();
            assertThat(value(metrics, "agent_tools_quota_waits_total{api=\"gmail\"}")).as(metrics).isPositive();
            assertThat(value(metrics, "agent_tools_quota_wait_seconds_total{api=\"gmail\"}")).as(metrics).isPositive();
            assertThat(value(metrics, "agent_tools_rate_limited_total{api=\"gmail\",kind=\"quota\"}")).as("paced: Google refused none")
                    .isZero();
            assertThat(value(metrics, "agent_tools_paced_accounts{api=\"gmail\"}")).isEqualTo(1);
            assertNamesNoUser(metrics, emulator, 1);
        }
    }
}
