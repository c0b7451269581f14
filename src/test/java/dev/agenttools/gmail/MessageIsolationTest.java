package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.google.Retry;
import dev.agenttools.tool.ToolInterceptor;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static dev.agenttools.gmail.GmailToolsTest.fastSettings;
import static dev.agenttools.gmail.GmailToolsTest.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One listed email Gmail will not return never fails a list: it keeps its place with its ids and the answer's
 * {@code errors} names it, the same bytes from every strategy. What concerns the whole call (sign-in, quota, the
 * deadline) still fails it. Against the emulator over HTTP, with one message made unfetchable.
 */
class MessageIsolationTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    /** Short backoffs: eight attempts at a failing message fit in a unit test; the policy is the same. */
    private static final Retry QUICK = new Retry(Duration.ofMillis(5), Duration.ofMillis(50), 8);
    private static final List<String> STRATEGIES = List.of("sequential", "concurrent", "batch", "auto");
    /** The place in the page of the message made unfetchable: neither end, inside the first batch chunk. */
    private static final int VICTIM = 3;

    /** The registry agents get, fallback router included: a partial answer must not be taken for a failure. */
    private static ToolRegistry tools(Emulator emulator, Retry retry) {
        return HandBuilt.registry(ToolRegistry.builder().interceptor(ToolInterceptor.fallback()), fastSettings(emulator), retry);
    }

    private static ToolResult list(ToolRegistry tools, String strategy, String extra) {
        return tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":10,\"strategy\":\"" + strategy + "\"" + extra + "}")));
    }

    @ParameterizedTest(name = "HTTP {0}")
    @CsvSource(delimiter = '|', value = {
            "400 | invalid_argument | Gmail answered HTTP 400 when asked for this message: Invalid id value",
            "503 | upstream | Gmail answered HTTP 503 on all 8 attempts when asked for this message: The service is currently unavailable.",
            "500 | upstream | Gmail answered HTTP 500 on all 8 attempts when asked for this message: Internal error encountered."})
    void aMessageGmailWillNotReturnKeepsItsPlaceAndIsNamedInErrorsByEveryStrategy(int status, String code, String message) {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            ToolRegistry tools = tools(emulator, QUICK);
            JsonNode healthy = list(tools, "sequential", "").data();
            JsonNode victim = healthy.get("emails").get(VICTIM);
            String id = victim.get("id").asText();
            Emulators.failGets(emulator, id, status);

            String sequential = null;
            for (String strategy : STRATEGIES) {
                ToolResult r = list(tools, strategy, "");
                JsonNode data = r.data();

                assertThat(r.backend().wireName()).as(strategy).isEqualTo(strategy.equals("auto") ? "concurrent" : strategy);
                assertThat(data.get("emails")).as(strategy).hasSize(10);
                for (int i = 0; i < 10; i++) {
                    if (i != VICTIM) {
                        assertThat(data.get("emails").get(i)).as(strategy + " email " + i).isEqualTo(healthy.get("emails").get(i));
                    }
                }
                assertThat(data.get("emails").get(VICTIM)).as(strategy).isEqualTo(obj("{\"id\":\"" + id + "\",\"thread_id\":\""
                        + victim.get("thread_id").asText() + "\",\"subject\":\"(no subject)\"}"));
                assertThat(data.get("errors")).as(strategy)
                        .isEqualTo(Json.MAPPER.createArrayNode().add(obj("{\"id\":\"" + id + "\",\"code\":\"" + code + "\"}")
                                .put("message", message)));
                assertThat(data.get("skipped").asInt()).isZero();
                assertThat(data.get("next_page_token")).isEqualTo(healthy.get("next_page_token"));
                String json = Json.write(data);
                if (sequential == null) {
                    sequential = json;
                } else {
                    assertThat(json).as(strategy).isEqualTo(sequential);
                }
            }
            assertThat(healthy.has("errors")).as("no errors field when there are none").isFalse();
        }
    }

    @Test
    void aSearchAnswersInPlaceToo() {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            ToolRegistry tools = tools(emulator, QUICK);
            String params = "{\"query\":\"has:attachment\",\"max_results\":5,\"strategy\":\"batch\"}";
            JsonNode healthy = tools.call(ToolCall.of(GmailTools.SEARCH, obj(params))).data();
            String id = healthy.get("emails").get(0).get("id").asText();
            Emulators.failGets(emulator, id, 400);

            JsonNode data = tools.call(ToolCall.of(GmailTools.SEARCH, obj(params))).data();

            assertThat(data.get("emails")).hasSize(5);
            assertThat(data.get("emails").get(0).get("id").asText()).isEqualTo(id);
            assertThat(data.get("emails").get(0).has("has_attachments")).as("unknown, so left out").isFalse();
            assertThat(data.get("errors").get(0).get("id").asText()).isEqualTo(id);
        }
    }

    @ParameterizedTest(name = "HTTP {0}")
    @CsvSource({"401, UNAUTHENTICATED", "403, PERMISSION_DENIED", "429, RATE_LIMITED"})
    void aGetRefusedForTheWholeAccountStillFailsTheWholeCallWithEveryStrategy(int status, ToolException.Kind kind) {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            ToolRegistry tools = tools(emulator, QUICK);
            String id = list(tools, "sequential", "").data().get("emails").get(VICTIM).get("id").asText();
            Emulators.failGets(emulator, id, status);

            for (String strategy : STRATEGIES) {
                assertThatThrownBy(() -> list(tools, strategy, "")).as(strategy)
                        .isInstanceOfSatisfying(ToolException.class, e -> {
                            assertThat(e.kind()).isEqualTo(kind);
                            assertThat(e.getMessage()).contains("HTTP " + status).contains(id);
                        });
            }
        }
    }

    @Test
    void aFailingMessageWhoseRetriesWouldOutlastTheDeadlineIsNamedInErrorsAtOnce() {
        // every backoff (1 to 2 s) is longer than what is left of a 1 s deadline after the first attempt: the list
        // answers with the rest rather than failing whole, since no time was spent waiting (issue 44, item 3)
        Retry slow = new Retry(Duration.ofSeconds(2), Duration.ofSeconds(2), 8);
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            ToolRegistry tools = tools(emulator, slow);
            String id = list(tools, "sequential", "").data().get("emails").get(VICTIM).get("id").asText();
            Emulators.failGets(emulator, id, 503);

            for (String strategy : STRATEGIES) {
                JsonNode data = list(tools, strategy, ",\"timeout_ms\":1000").data();

                assertThat(data.get("emails")).as(strategy).hasSize(10);
                assertThat(data.get("errors")).as(strategy).isEqualTo(Json.MAPPER.createArrayNode().add(obj("{\"id\":\""
                        + id + "\",\"code\":\"upstream\"}").put("message", "Gmail answered HTTP 503 (not retried: no "
                        + "time left) when asked for this message: The service is currently unavailable.")));
            }
        }
    }

    @Test
    void getEmailStillFailsWhenItsMessageCannotBeFetched() {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            ToolRegistry tools = tools(emulator, QUICK);
            JsonNode emails = list(tools, "sequential", "").data().get("emails");
            String refused = emails.get(0).get("id").asText();
            String failing = emails.get(1).get("id").asText();
            Emulators.failGets(emulator, refused, 400);
            Emulators.failGets(emulator, failing, 503);

            assertThatThrownBy(() -> tools.call(ToolCall.of(GmailTools.GET, obj("{\"message_id\":\"" + refused + "\"}"))))
                    .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT));
            assertThatThrownBy(() -> tools.call(ToolCall.of(GmailTools.GET, obj("{\"message_id\":\"" + failing + "\"}"))))
                    .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM));
            JsonNode other = tools.call(ToolCall.of(GmailTools.GET, obj("{\"message_id\":\"" + emails.get(2).get("id").asText() + "\"}"))).data();
            assertThat(other.has("errors")).isFalse();
            assertThat(other.get("body").asText()).isNotEmpty();
        }
    }
}
