package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fifty users on one server at once, each signed in at Google (the emulator's OAuth server, one mailbox per user) and
 * each refreshing its token halfway through: every answer is its own user's, never another's, with the mail index on
 * (a cache keyed by account) and the pacing per account.
 */
class ManyUsersTest {
    private static final int USERS = 50;
    private static final int CALLS = 20;
    private static final String KEY = "many-users-key";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    Path dir;

    @Test
    void everyAnswerComesFromItsOwnUsersMailboxThroughTokenRefreshes() throws Exception {
        Emulator emulator = emulators.start(EmulatorConfig.builder().users(USERS).seedMessages(20).latency(Duration.ofMillis(20))
                .jitter(Duration.ZERO).handshake(Duration.ZERO).quotaPerMinute(6_000_000).maxConcurrent(100).build());
        // what each user's mail is, asked in-process with the user's own fixed token
        List<String> addresses = new ArrayList<>();
        List<String> expectedLists = new ArrayList<>();
        List<String> expectedGets = new ArrayList<>();
        try (ToolRegistry direct = Tools.builder().rootUrl(emulator.rootUri().toString()).build()) {
            ToolProtocol protocol = new ToolProtocol(direct);
            for (int u = 1; u <= USERS; u++) {
                String address = emulator.userAddress(u);
                addresses.add(address);
                String token = emulator.tokenFor(address);
                JsonNode list = protocol.answer(listRequest(), System.nanoTime(), token).json().get("data");
                expectedLists.add(Json.write(list));
                String first = list.get("emails").get(0).get("id").asText();
                expectedGets.add(Json.write(protocol.answer(getRequest(first), System.nanoTime(), token).json().get("data")));
            }
        }
        assertThat(new HashSet<>(expectedLists)).as("fifty different mailboxes").hasSize(USERS);

        Path keys = dir.resolve("keys");
        Files.writeString(keys, ServiceKeys.hash(KEY) + "\n");
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 1_000, 1_000, 64 * 1024, Duration.ofSeconds(5),
                keys, null, Set.of(), List.of(emulator.rootUri()));
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        try (ToolRegistry registry = Tools.builder().rootUrl(emulator.rootUri().toString()).mailIndex(dir.resolve("index.db"))
                .listener(metrics).build();
             ExecutorService users = Executors.newVirtualThreadPerTaskExecutor()) {
            HttpService service = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
            try {
                URI call = URI.create("http://127.0.0.1:" + service.port() + "/v1/call");
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                List<Future<List<String>>> runs = new ArrayList<>();
                for (int u = 0; u < USERS; u++) {
                    int user = u;
                    runs.add(users.submit(() -> {
                        Emulators.SignedIn signedIn = Emulators.signIn(emulator, addresses.get(user));
                        String token = signedIn.accessToken();
                        List<String> wrong = new ArrayList<>();
                        String firstId = Json.MAPPER.readTree(expectedLists.get(user)).get("emails").get(0).get("id").asText();
                        for (int i = 0; i < CALLS; i++) {
                            if (i == CALLS / 2) {
                                token = Emulators.refresh(emulator, signedIn.refreshToken()); // a new token, the same user
                            }
                            boolean list = i % 2 == 0;
                            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(call)
                                    .headers("Authorization", "Bearer " + KEY, Gate.GOOGLE_TOKEN_HEADER, token)
                                    .POST(HttpRequest.BodyPublishers.ofString(list ? listRequest() : getRequest(firstId))).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            JsonNode data = Json.MAPPER.readTree(answer.body()).get("data");
                            String expected = list ? expectedLists.get(user) : expectedGets.get(user);
                            if (answer.statusCode() != 200 || !Json.write(data).equals(expected)) {
                                wrong.add(addresses.get(user) + " call " + i + ": " + answer.statusCode() + " "
                                        + answer.body().substring(0, Math.min(200, answer.body().length())));
                            }
                        }
                        return wrong;
                    }));
                }
                List<String> wrong = new ArrayList<>();
                for (Future<List<String>> run : runs) {
                    wrong.addAll(run.get());
                }
                assertThat(wrong).as("answers that were not their own user's").isEmpty();
                for (String address : addresses) {
                    assertThat(emulator.counters().user(address).apiCalls()).as("%s's own calls reached its mailbox", address).isPositive();
                }
            } finally {
                service.close();
            }
        }
    }

    private static String listRequest() {
        return "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5}}";
    }

    private static String getRequest(String id) {
        return "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}";
    }
}
