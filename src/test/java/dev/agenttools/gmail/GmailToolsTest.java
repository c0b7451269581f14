package dev.agenttools.gmail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.google.GoogleSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Gmail tools against the emulator over HTTP: the same answer from every strategy, paging, errors. */
class GmailToolsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    private static ToolRegistry tools;

    @BeforeAll
    static void start() {
        emulator = emulators.start(fastEmulator().token("tools-token").build());
        tools = Tools.builder().gmail(fastSettings(emulator)).defaultAccessToken("tools-token").build();
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    /** An emulator that answers at once and never limits: functional tests, not pacing tests. */
    static EmulatorConfig.Builder fastEmulator() {
        return EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .quotaPerMinute(60_000_000).maxConcurrent(1_000);
    }

    static GmailSettings fastSettings(Emulator emulator) {
        return GmailSettings.forRoot(emulator.rootUri().toString()).withPacing(60_000_000, 1_000_000, 50);
    }

    static ToolResult call(String tool, String paramsJson) {
        try {
            return tools.call(ToolCall.of(tool, (ObjectNode) Json.MAPPER.readTree(paramsJson)));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"label\":\"INBOX\",\"max_results\":60}", "{\"label\":\"Work\",\"max_results\":25}",
            "{\"label\":\"UNREAD\",\"max_results\":7}"})
    void everyStrategyGivesByteIdenticalLists(String params) {
        String sequential = Json.write(call(GmailTools.LIST, withStrategy(params, "sequential")).data());
        for (String strategy : new String[] {"concurrent", "batch", "auto"}) {
            ToolResult r = call(GmailTools.LIST, withStrategy(params, strategy));
            assertThat(Json.write(r.data())).as(strategy).isEqualTo(sequential);
            assertThat(r.backend().wireName()).isEqualTo(strategy.equals("auto") ? "concurrent" : strategy);
        }
    }

    @Test
    void everyStrategyGivesByteIdenticalSearches() {
        String params = "{\"query\":\"has:attachment OR 見積書\",\"max_results\":40}";
        String sequential = Json.write(call(GmailTools.SEARCH, withStrategy(params, "sequential")).data());
        assertThat(Json.write(call(GmailTools.SEARCH, withStrategy(params, "concurrent")).data())).isEqualTo(sequential);
        assertThat(Json.write(call(GmailTools.SEARCH, withStrategy(params, "batch")).data())).isEqualTo(sequential);
    }

    @Test
    void searchesWithAQueryTooLongForAUrl() {
        // 7,000 spaces are 21,000 characters in a URL, past what a server takes (the emulator's 16 KiB): sent as a POST
        String padded = "{\"query\":\"has:attachment" + " ".repeat(7_000) + "\",\"max_results\":5}";
        assertThat(Json.write(call(GmailTools.SEARCH, padded).data()))
                .isEqualTo(Json.write(call(GmailTools.SEARCH, "{\"query\":\"has:attachment\",\"max_results\":5}").data()));
    }

    private static String withStrategy(String params, String strategy) {
        return params.replaceFirst("}$", ",\"strategy\":\"" + strategy + "\"}");
    }

    @Test
    void listsTheNewestInboxEmailsWithEveryField() {
        JsonNode data = call(GmailTools.LIST, "{\"max_results\":10}").data();
        JsonNode emails = data.get("emails");
        assertThat(emails).hasSize(10);
        JsonNode first = emails.get(0);
        assertThat(first.get("id").asText()).matches("[0-9a-f]{16}");
        for (String field : new String[] {"thread_id", "subject", "from", "to", "date", "snippet", "label_ids", "unread", "has_attachments"}) {
            assertThat(first.has(field)).as(field).isTrue();
        }
        assertThat(first.get("date").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}([+-]\\d{2}:\\d{2}|Z)");
        assertThat(first.get("label_ids").toString()).contains("INBOX");
        assertThat(data.get("next_page_token").asText()).isNotBlank();
        assertThat(data.get("skipped").asInt()).isZero();
        for (int i = 1; i < emails.size(); i++) {
            assertThat(OffsetDateTime.parse(emails.get(i - 1).get("date").asText()).toInstant()
                    .plus(Duration.ofMinutes(1)))
                    .isAfterOrEqualTo(OffsetDateTime.parse(emails.get(i).get("date").asText()).toInstant());
        }
    }

    @Test
    void pagesWithTheNextPageToken() {
        JsonNode page1 = call(GmailTools.LIST, "{\"max_results\":5}").data();
        JsonNode page2 = call(GmailTools.LIST, "{\"max_results\":5,\"page_token\":\"" + page1.get("next_page_token").asText() + "\"}").data();
        JsonNode both = call(GmailTools.LIST, "{\"max_results\":10}").data();
        for (int i = 0; i < 5; i++) {
            assertThat(page1.get("emails").get(i).get("id")).isEqualTo(both.get("emails").get(i).get("id"));
            assertThat(page2.get("emails").get(i).get("id")).isEqualTo(both.get("emails").get(i + 5).get("id"));
        }
    }

    @Test
    void reportsMessagesThatVanishBetweenListAndGet() {
        try (Emulator vanishing = emulators.start(fastEmulator().vanishRate(0.3).seed(3).build())) {
            ToolRegistry r = Tools.builder().gmail(fastSettings(vanishing)).defaultAccessToken("t").build();
            for (String strategy : new String[] {"sequential", "concurrent", "batch"}) {
                JsonNode data = r.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":20,\"strategy\":\"" + strategy + "\"}"))).data();
                int skipped = data.get("skipped").asInt();
                assertThat(skipped).as(strategy).isPositive();
                assertThat(data.get("emails").size() + skipped).isEqualTo(20);
            }
        }
    }

    @Test
    void mapsGmailErrorsToToolErrors() {
        ToolRegistry wrongToken = Tools.builder().gmail(fastSettings(emulator)).defaultAccessToken("nope").build();
        assertThatThrownBy(() -> wrongToken.call(ToolCall.of(GmailTools.LIST, obj("{}"))))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ToolException.Kind.UNAUTHENTICATED);
                    assertThat(e.getMessage()).contains("HTTP 401").doesNotContain("nope");
                });
        assertThatThrownBy(() -> call(GmailTools.GET, "{\"message_id\":\"0000000000000abc\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ToolException.Kind.NOT_FOUND);
                    assertThat(e.getMessage()).contains("HTTP 404").contains("0000000000000abc");
                });
        assertThatThrownBy(() -> call(GmailTools.LIST, "{\"page_token\":\"garbage\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("HTTP 400").contains("pageToken");
                });
        assertThatThrownBy(() -> call(GmailTools.LIST, "{\"label\":\"No Such Label\"}"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("'No Such Label' does not exist").contains("Work"));
    }

    @Test
    void rejectsBadParamsNamingTheField() {
        assertInvalid(GmailTools.LIST, "{\"max_results\":-5}", "max_results must be 1..500, got -5");
        assertInvalid(GmailTools.LIST, "{\"max_results\":\"ten\"}", "max_results must be 1..500, got \"ten\"");
        assertInvalid(GmailTools.LIST, "{\"strategy\":\"fast\"}", "strategy must be one of auto, sequential, concurrent, batch");
        assertInvalid(GmailTools.LIST, "{\"timeout_ms\":5}", "timeout_ms must be 100..300000");
        assertInvalid(GmailTools.LIST, "{\"lable\":\"INBOX\"}", "unknown param 'lable'");
        assertInvalid(GmailTools.SEARCH, "{}", "query is required");
        assertInvalid(GmailTools.GET, "{\"message_id\":\"../etc/passwd\"}", "message_id must be a Gmail message id");
        assertInvalid(GmailTools.GET, "{\"message_id\":42}", "message_id must be a string");
        assertInvalid(GmailTools.GET, "{\"message_id\":\"18c0000000000001\",\"strategy\":\"batch\"}",
                "gmail.get-email: unknown param 'strategy'; its params: include_html, max_body_chars, message_id");
        assertInvalid(GmailTools.LIST, "{\"access_token\":123}", "access_token must be a string, got a number");
    }

    @Test
    void rejectsAnAccessTokenThatCannotBeAHeaderWithoutShowingItOrCallingGmail() {
        try (Emulator quiet = emulators.start(fastEmulator().build())) {
            ToolRegistry registry = Tools.builder().gmail(fastSettings(quiet)).build();
            for (String token : new String[] {"ya29.SECRET\n", "ya29.SECRET\r\nX-Evil: 1", "ya29.SECRET\u79d8\u5bc6",
                    "ya29.SECRET\u00e9", "ya29. SECRET", "\"ya29.SECRET\""}) {
                for (String tool : new String[] {GmailTools.LIST, GmailTools.GET}) {
                    ObjectNode params = obj(tool.equals(GmailTools.GET) ? "{\"message_id\":\"abc\"}" : "{\"strategy\":\"batch\"}");
                    params.put("access_token", token);
                    assertThatThrownBy(() -> registry.call(ToolCall.of(tool, params)))
                            .as(token).isInstanceOfSatisfying(ToolException.class, e -> {
                                assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
                                assertThat(e.getMessage()).startsWith("access_token is not an OAuth access token")
                                        .doesNotContain("SECRET");
                            });
                }
            }
            assertThat(quiet.counters().httpRequests()).as("nothing reached Gmail, no fallback ran").isZero();
        }
    }

    @Test
    void refusesAConfiguredAccessTokenThatCannotBeAHeaderWithoutShowingIt() {
        assertThatThrownBy(() -> Settings.from(Map.of("AGENT_TOOLS_ACCESS_TOKEN", "ya29.SECRET\n")))
                .isInstanceOfSatisfying(IllegalArgumentException.class, e -> assertThat(e.getMessage())
                        .startsWith("AGENT_TOOLS_ACCESS_TOKEN is not an OAuth access token: it has a line break at character 12 of 12")
                        .doesNotContain("SECRET"));
        assertThatThrownBy(() -> GoogleSettings.DEFAULT.withAccessToken("ya29.SECRET\u79d8"))
                .isInstanceOfSatisfying(IllegalArgumentException.class, e -> assertThat(e.getMessage()).doesNotContain("SECRET"));
        assertThat(Settings.from(Map.of("AGENT_TOOLS_ACCESS_TOKEN", "ya29.a0-_~+/Zz09==")).google().accessToken())
                .isEqualTo("ya29.a0-_~+/Zz09==");
    }

    private static void assertInvalid(String tool, String params, String message) {
        assertThatThrownBy(() -> call(tool, params)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains(message);
        });
    }

    static ObjectNode obj(String json) {
        try {
            return (ObjectNode) Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
