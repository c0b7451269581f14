package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call that Google's rate limit refused after its retries answers 429 over HTTP with how long to wait, in the body
 * ({@code retry_after_ms}) and in HTTP's own way ({@code Retry-After}, whole seconds rounded up), so that a plain HTTP
 * client's backoff needs no knowledge of ours.
 */
class RateLimitedAnswerTest {
    private static final String KEY = "rate-limited-key";
    private static final String TOKEN = "rate-limited-token";

    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @Test
    void aSpentQuotaIs429WithRetryAfter() throws Exception {
        // a bucket of 1 unit never holds what a Gmail call costs: every call is refused
        Emulator emulator = emulators.start(EmulatorConfig.builder().seedMessages(20).latency(Duration.ZERO)
                .jitter(Duration.ZERO).handshake(Duration.ZERO).quotaPerMinute(1).burst(1).token(TOKEN).build());
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 100, 100, 64 * 1024,
                Duration.ofSeconds(5), null, ServiceKeys.hash(KEY), Set.of(), List.of(emulator.rootUri()));
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        try (ToolRegistry registry = Tools.builder().rootUrl(emulator.rootUri().toString()).listener(metrics).build();
             HttpService service = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + service.port() + "/v1/call")).headers("Authorization", "Bearer " + KEY,
                            Gate.GOOGLE_TOKEN_HEADER, TOKEN)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"command\": \"gmail.get-email\", \"params\": "
                            + "{\"message_id\": \"00000000000000ab\", \"timeout_ms\": 8000}}")).build(),
                    HttpResponse.BodyHandlers.ofString());

            JsonNode error = Json.MAPPER.readTree(answer.body()).path("error");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(429);
            assertThat(error.path("code").asText()).isEqualTo("rate_limited");
            long waitMs = error.path("retry_after_ms").asLong();
            assertThat(waitMs).as(answer.body()).isPositive();
            assertThat(answer.headers().firstValue("Retry-After")).hasValue(Long.toString((waitMs + 999) / 1_000));
        }
    }
}
