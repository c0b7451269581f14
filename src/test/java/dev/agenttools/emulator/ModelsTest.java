package dev.agenttools.emulator;

import org.junit.jupiter.api.extension.RegisterExtension;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The latency, handshake, quota, concurrency and fault models, observed from a client over HTTP. Timing
 * assertions are lower bounds (the server must wait at least this long) with generous upper bounds, so a
 * busy machine cannot make them fail.
 */
class ModelsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyCallTakesAtLeastTheLatencyAndANewConnectionPaysTheHandshake() throws Exception {
        Duration latency = Duration.ofMillis(120);
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(latency).jitter(Duration.ZERO)
                .handshake(Duration.ofMillis(200)).build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            long first = timed(() -> http.get("gmail/v1/users/me/profile"));
            List<Long> warm = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                warm.add(timed(() -> http.get("gmail/v1/users/me/profile")));
            }
            assertThat(first).isBetween(320L, 320L + 3_000);
            assertThat(warm).allSatisfy(ms -> assertThat(ms).isBetween(120L, 120L + 3_000));
            EmulatorCounters c = emulator.counters();
            assertThat(c.connectionsOpened()).isEqualTo(1);
            assertThat(c.handshakes()).isEqualTo(1);
            assertThat(c.httpRequests()).isEqualTo(4);
        }
    }

    @Test
    void jitterSpreadsLatencyWithinItsBounds() throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(40))
                .jitter(Duration.ofMillis(30)).handshake(Duration.ZERO).build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            List<Long> times = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                times.add(timed(() -> http.get("gmail/v1/users/me/labels")));
            }
            assertThat(times).allSatisfy(ms -> assertThat(ms).isGreaterThanOrEqualTo(10));
            assertThat(times.stream().distinct().count()).isGreaterThan(3);
        }
    }

    @Test
    void answersRateLimitedOnceTheQuotaBucketIsEmpty() throws Exception {
        // 15 units of burst: three messages.list calls (5 units each), then the bucket is empty. One unit a minute
        // refills it: however slow the machine, the fourth call cannot have 5 units back (QuotaBucketTest: refill).
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().quotaPerMinute(1).burst(15).build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                statuses.add(http.get("gmail/v1/users/me/messages?maxResults=1").statusCode());
            }
            // Gmail's two real shapes of a spent per-user quota, in turn: 429 RESOURCE_EXHAUSTED, then 403 usageLimits
            assertThat(statuses).containsExactly(200, 200, 200, 429);
            JsonNode first = JSON.readTree(http.get("gmail/v1/users/me/messages?maxResults=1").body()).get("error");
            assertThat(first.get("code").asInt()).isEqualTo(403);
            assertThat(first.get("errors").get(0).get("reason").asText()).isEqualTo("rateLimitExceeded");
            assertThat(first.get("errors").get(0).get("domain").asText()).isEqualTo("usageLimits");
            assertThat(first.get("message").asText()).startsWith("Quota exceeded for quota metric 'Queries' and limit "
                    + "'Queries per minute per user' of service 'gmail.googleapis.com'");
            assertThat(first.get("status").asText()).isEqualTo("PERMISSION_DENIED");
            HttpResponse<String> rejected = http.get("gmail/v1/users/me/messages?maxResults=1");
            assertThat(rejected.statusCode()).isEqualTo(429);
            JsonNode error = JSON.readTree(rejected.body()).get("error");
            assertThat(error.get("errors").get(0).get("reason").asText()).isEqualTo("rateLimitExceeded");
            assertThat(error.get("errors").get(0).get("domain").asText()).isEqualTo("global");
            assertThat(error.get("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
            assertThat(emulator.counters().quotaRejections()).isEqualTo(3);
        }
    }

    @Test
    void rejectsCallsOverTheConcurrencyLimit() throws Exception {
        // The three admitted calls stay in flight 2.5 s: time enough for the other five to arrive on a busy machine.
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(2_500))
                .jitter(Duration.ZERO).handshake(Duration.ZERO).maxConcurrent(3).build());
             var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(pool.submit(() -> http.get("gmail/v1/users/me/profile")));
            }
            Map<Integer, Integer> byStatus = new HashMap<>();
            for (var f : calls) {
                HttpResponse<String> r = f.get();
                byStatus.merge(r.statusCode(), 1, Integer::sum);
                if (r.statusCode() == 429) {
                    assertThat(r.body()).contains("Too many concurrent requests for user");
                }
            }
            assertThat(byStatus.get(200)).isEqualTo(3);
            assertThat(byStatus.get(429)).isEqualTo(5);
            assertThat(emulator.counters().concurrencyRejections()).isEqualTo(5);
            assertThat(emulator.counters().peakInFlight()).isEqualTo(3);
        }
    }

    @Test
    void calendarCallsNeitherTakeNorMeetGmailsConcurrencyLimit() throws Exception {
        // Google documents "Too many concurrent requests for user" for Gmail; Calendar has per-minute quotas only
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(1_500))
                .jitter(Duration.ZERO).handshake(Duration.ZERO).maxConcurrent(1).build());
             var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            calls.add(pool.submit(() -> http.get("gmail/v1/users/me/profile")));
            for (int i = 0; i < 3; i++) {
                calls.add(pool.submit(() -> http.get("calendar/v3/colors")));
            }
            for (var f : calls) {
                assertThat(f.get().statusCode()).isEqualTo(200);
            }
            assertThat(emulator.counters().concurrencyRejections()).isZero();
        }
    }

    @Test
    void batchPartsAreChargedOneByOne() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().maxConcurrent(4).build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            StringBuilder body = new StringBuilder();
            for (int i = 0; i < 10; i++) {
                body.append("--b\r\nContent-Type: application/http\r\nContent-ID: <item").append(i)
                        .append(">\r\n\r\nGET /gmail/v1/users/me/labels\r\n\r\n");
            }
            body.append("--b--\r\n");
            HttpResponse<String> r = http.post("batch/gmail/v1", "multipart/mixed; boundary=b", body.toString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("multipart/mixed; boundary=");
            assertThat(count(r.body(), "HTTP/1.1 200 OK")).isEqualTo(4);
            assertThat(count(r.body(), "HTTP/1.1 429 Too Many Requests")).isEqualTo(6);
            assertThat(r.body().indexOf("<response-item0>")).isLessThan(r.body().indexOf("<response-item9>"));
            assertThat(emulator.counters().apiCalls()).isEqualTo(10);
            assertThat(emulator.counters().concurrencyRejections()).isEqualTo(6);
        }
    }

    @Test
    void injectsFaultsAtTheConfiguredRateAndMix() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().failRate(0.3)
                .failStatuses(Map.of(503, 1, 500, 1)).seed(7).build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            Map<Integer, Integer> byStatus = new HashMap<>();
            for (int i = 0; i < 400; i++) {
                byStatus.merge(http.get("gmail/v1/users/me/profile").statusCode(), 1, Integer::sum);
            }
            assertThat(byStatus.keySet()).containsExactlyInAnyOrder(200, 500, 503);
            int failed = byStatus.get(500) + byStatus.get(503);
            assertThat(failed).isBetween(80, 160); // 30% of 400 = 120, binomial sd ~9
            assertThat(emulator.counters().faultsInjected()).isEqualTo(failed);
        }
    }

    @Test
    void slowCallsTakeLonger() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().slowRate(1.0).slowBy(Duration.ofMillis(300)).build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            assertThat(timed(() -> http.get("gmail/v1/users/me/profile"))).isBetween(300L, 3_300L);
        }
    }

    @Test
    void listedMessagesCanVanishBeforeTheyAreFetched() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().vanishRate(1.0).build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            JsonNode listed = JSON.readTree(http.get("gmail/v1/users/me/messages?maxResults=3").body()).get("messages");
            for (JsonNode m : listed) {
                assertThat(http.get("gmail/v1/users/me/messages/" + m.get("id").asText()).statusCode()).isEqualTo(404);
            }
            assertThat(emulator.counters().messagesVanished()).isEqualTo(3);
        }
    }

    @Test
    void countersAreServedOverHttpAndCanBeReset() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            http.get("gmail/v1/users/me/profile");
            JsonNode counters = JSON.readTree(http.get("emulator/v1/counters").body());
            assertThat(counters.get("apiCalls").asLong()).isEqualTo(1);
            http.post("emulator/v1/counters:reset", "application/json", "");
            assertThat(emulator.counters().apiCalls()).isZero();
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static long timed(Call call) throws Exception {
        long start = System.nanoTime();
        call.run();
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
