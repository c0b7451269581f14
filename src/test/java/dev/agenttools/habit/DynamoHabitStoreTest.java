package dev.agenttools.habit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.agenttools.store.DynamoClients;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tracking.DynaliteAccess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store's promises on one DynamoDB table (dynalite) that two instances share, and what only DynamoDB's has: the
 * requests habit.list costs, keys that hold digests, and a throttled or unreachable table.
 */
@Tag("process")
class DynamoHabitStoreTest extends HabitStoreContract {
    private static DynaliteAccess dynalite;
    private HabitSettings.DynamoTable table;
    private int n;

    @BeforeAll
    static void startDynalite() throws Exception {
        dynalite = DynaliteAccess.start();
    }

    @AfterAll
    static void stopDynalite() {
        if (dynalite != null) { // null when it could not start: that failure is the one to report
            dynalite.close();
        }
    }

    @Override
    void newPlace() {
        table = new HabitSettings.DynamoTable("habits-" + System.nanoTime() + "-" + n++, dynalite.endpoint(), "us-east-1");
    }

    @Override
    HabitStore open() {
        return DynamoHabitStore.open(table);
    }

    /** The requests a client sends (retries too), by operation name. */
    private static final class RequestLog implements ExecutionInterceptor {
        final List<String> operations = new CopyOnWriteArrayList<>();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            operations.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
        }
    }

    private static DynamoDbClient client(ExecutionInterceptor interceptor) {
        return DynamoDbClient.builder().endpointOverride(dynalite.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .overrideConfiguration(c -> c.addExecutionInterceptor(interceptor))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    @Test
    void listingFiftyHabitsIsOneQueryAndTheirLogsOneMore() {
        RequestLog requests = new RequestLog();
        try (HabitStore counted = new DynamoHabitStore(client(requests), table.table())) {
            for (int i = 0; i < 50; i++) {
                Habit h = counted.create("ann", habit("habit " + i), NOW.plusMillis(i));
                for (int d = 0; d < 6; d++) {
                    other.log("ann", new HabitLog(h.id(), DAY.minusDays(d), d % 3 != 0, (double) d, null), NOW);
                }
            }
            requests.operations.clear();
            List<Habit> habits = counted.habits("ann", false);
            Map<String, List<HabitLog>> logs = counted.logs("ann");
            assertThat(requests.operations).containsExactly("Query", "Query");
            assertThat(habits).hasSize(50).extracting(Habit::name).startsWith("habit 0", "habit 1").endsWith("habit 49");
            assertThat(logs).hasSize(50).allSatisfy((id, l) -> assertThat(l).hasSize(6).isSortedAccordingTo(
                    Comparator.comparing(HabitLog::day)));
        }
    }

    @Test
    void listsReadEveryPageWhenTheyTakeSeveral() {
        try (HabitStore paged = new DynamoHabitStore(client(new RequestLog()), table.table(), 3)) {
            for (int i = 0; i < 7; i++) {
                Habit h = store.create("ann", habit("habit " + i), NOW.plusMillis(i));
                for (int d = 0; d < 4; d++) {
                    store.log("ann", new HabitLog(h.id(), DAY.minusDays(d), true, null, null), NOW);
                }
            }
            assertThat(paged.habits("ann", true)).isEqualTo(store.habits("ann", true)).hasSize(7);
            assertThat(paged.logs("ann")).isEqualTo(store.logs("ann")).hasSize(7);
            String first = paged.habits("ann", true).getFirst().id();
            assertThat(paged.logs("ann", first)).hasSize(4);
        }
    }

    @Test
    void itsKeysHoldADigestOfTheUserNeverTheUserId() {
        String user = "ann@example.com";
        Habit h = store.create(user, habit("Running"), NOW);
        store.log(user, new HabitLog(h.id(), DAY, true, null, "a note"), NOW);
        try (DynamoDbClient raw = client(new RequestLog())) {
            List<Map<String, AttributeValue>> items = raw.scan(b -> b.tableName(table.table())).items();
            assertThat(items).hasSize(3).extracting(i -> i.get("sk").s())
                    .containsExactlyInAnyOrder("habit#" + h.id(), "habits", "log#" + h.id() + "#" + DAY);
            assertThat(items).allSatisfy(i -> {
                assertThat(i.get("pk").s()).isEqualTo(DynamoHabitStore.partition(user)).matches("user#[0-9a-f]{64}");
                assertThat(i.toString()).doesNotContain("ann@", "example.com");
            });
        }
    }

    @Test
    void aCreateThatLosesTheRaceForANameLeavesNoItemBehind() throws Exception {
        for (int round = 0; round < 5; round++) {
            String name = "Yoga " + round;
            List<Object> results = together(() -> store.create("ann", habit(name), NOW), () -> other.create("ann", habit(name), NOW));
            assertThat(results).filteredOn(Habit.class::isInstance).hasSize(1);
        }
        try (DynamoDbClient raw = client(new RequestLog())) {
            assertThat(raw.scan(b -> b.tableName(table.table())).items()).extracting(i -> i.get("sk").s())
                    .as("the winners' habits and the index; the losers' items deleted").hasSize(6).contains("habits");
        }
    }

    @Test
    void aThrottledTableIsRateLimitedNamingTheTableWithoutAStackTrace() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        HttpServer throttling = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        throttling.createContext("/", exchange -> {
            asked.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            byte[] body = ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\","
                    + "\"message\":\"The level of configured provisioned throughput for the table was exceeded.\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
            exchange.sendResponseHeaders(400, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        throttling.start();
        URI endpoint = URI.create("http://127.0.0.1:" + throttling.getAddress().getPort());
        try (HabitStore s = new DynamoHabitStore(DynamoClients.client(endpoint, "us-east-1", DynamoHabitStore.RETRIES), "habits-busy")) {
            assertThatThrownBy(() -> s.log("ann", new HabitLog("hab_0000000000000001", DAY, true, null, null), NOW))
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
                        assertThat(e.getMessage()).contains("habits-busy", "log a day", "throttled").doesNotContain("\tat ", "Exception:");
                    });
            assertThat(asked.get()).as("the SDK retried before giving up, a bounded number of times").isBetween(2, 3);
            assertThatThrownBy(() -> DynamoHabitStore.open(new HabitSettings.DynamoTable("habits-busy", endpoint, "us-east-1")))
                    .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("habits-busy", "open"));
        } finally {
            throttling.stop(0);
        }
    }

    @Test
    void anUnreachableTableIsUpstreamNamingTheTable() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        URI nowhere = URI.create("http://127.0.0.1:" + port);
        try (HabitStore s = new DynamoHabitStore(DynamoClients.client(nowhere, "us-east-1", DynamoHabitStore.RETRIES), "habits-gone")) {
            assertThatThrownBy(() -> s.habits("ann", false)).isInstanceOfSatisfying(ToolException.class, e -> {
                assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
                assertThat(e.getMessage()).contains("habits-gone", "list habits", "unreachable");
            });
        }
    }

    @Test
    void theToolsKeepHabitsInTheTableTheSettingsName() throws Exception {
        HabitSettings settings = new HabitSettings(Path.of("/nonexistent/habits.db"), "ann", false, table);
        Clock clock = Clock.fixed(NOW, PARIS);
        try (ToolRegistry tools = HabitTools.register(ToolRegistry.builder(), settings, clock).build()) {
            tools.call(ToolCall.of(HabitTools.CREATE, (ObjectNode) Json.MAPPER.readTree("{\"name\":\"Running\"}")));
            tools.call(ToolCall.of(HabitTools.LOG, (ObjectNode) Json.MAPPER.readTree("{\"habit\":\"running\",\"amount\":5}")));
            JsonNode list = tools.call(ToolCall.of(HabitTools.LIST, Json.object())).data();
            assertThat(list.at("/habits/0/habit/name").asText()).isEqualTo("Running");
            assertThat(list.at("/habits/0/status/today_state").asText()).isEqualTo("done");
        }
        assertThat(other.find("ann", "Running")).isPresent();
        assertThat(other.logs("ann").values()).singleElement().satisfies(l -> assertThat(l.getFirst().day()).isEqualTo(LocalDate.of(2026, 12, 1)));
    }
}
