package dev.agenttools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every tool's wire answer, every strategy, errors and tools.list included, byte for byte as recorded in
 * {@code src/test/resources/answers/recorded.jsonl} (the answers before the core was reshaped): a refactoring that
 * changes what a caller reads fails here. Only clock readings are left out:
 * {@code meta.duration_ms} and the elapsed time in an error message. The emulator's
 * mailbox is anchored to a fixed day and the calendar ranges avoid today and tomorrow (the seed's only clock-dependent
 * events), so the answers do not depend on when the test runs.
 *
 * <p>To record anew after a deliberate change of an answer: {@code -Danswers.record=true}, then review the diff.
 */
class AnswersUnchangedTest {
    private static final Path RECORDED = Path.of("src/test/resources/answers/recorded.jsonl");
    private static final Instant ANCHOR = Instant.parse("2026-11-20T00:00:00Z");
    private static final List<String> STRATEGIES = List.of("sequential", "concurrent", "batch", "auto");

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static ToolRegistry registry;
    private static ToolRegistry indexed;
    private static ToolRegistry wrongToken;
    private static ToolProtocol protocol;

    @BeforeAll
    static void start() {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(1_000).anchor(ANCHOR).token("t").build());
        registry = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken("t").build();
        indexed = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken("t")
                .mailIndex(dir.resolve("index.db")).build();
        wrongToken = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken("not-the-token").build();
        protocol = new ToolProtocol(registry, Tools.SHORT_NAMES); // as serve and call answer
    }

    @AfterAll
    static void stop() {
        registry.close();
        indexed.close();
        wrongToken.close();
    }

    /** One exchange as recorded: the request and the answer without its duration. */
    private static String exchange(ToolProtocol p, String request) {
        ObjectNode answer = p.answer(request).json();
        JsonNode meta = answer.get("meta");
        if (meta instanceof ObjectNode m) {
            m.remove("duration_ms");
        }
        // an error's elapsed time ("attempt 1, 4 ms") is a clock reading too
        return request + " => " + Json.write(answer).replaceAll("attempt (\\d+), \\d+ ms\\)", "attempt $1, N ms)");
    }

    private static String request(String command, String params) {
        return "{\"command\":\"" + command + "\",\"params\":" + params + "}";
    }

    private static JsonNode data(ToolProtocol p, String command, String params) {
        return p.answer(request(command, params)).json().get("data");
    }

    private static List<String> exchanges() {
        List<String> out = new ArrayList<>();
        ToolProtocol p = protocol;
        out.add(exchange(p, "{\"command\":\"tools.list\"}"));
        // Gmail lists and searches, every strategy, a second page, the index's answers
        for (String params : List.of("{\"max_results\":10}", "{\"label\":\"Work\",\"max_results\":25}",
                "{\"label\":\"UNREAD\",\"max_results\":7}")) {
            for (String s : STRATEGIES) {
                out.add(exchange(p, request("gmail.list-emails", params.replace("}", ",\"strategy\":\"" + s + "\"}"))));
            }
        }
        String token = data(p, "gmail.list-emails", "{\"max_results\":5}").get("next_page_token").asText();
        for (String s : STRATEGIES) {
            out.add(exchange(p, request("gmail.list-emails", "{\"max_results\":5,\"page_token\":\"" + token
                    + "\",\"strategy\":\"" + s + "\"}")));
            out.add(exchange(p, request("gmail.search-emails", "{\"query\":\"has:attachment OR 見積書\",\"max_results\":40,"
                    + "\"strategy\":\"" + s + "\"}")));
        }
        ToolProtocol withIndex = new ToolProtocol(indexed);
        for (int i = 0; i < 2; i++) { // the first fills the index, the second is answered from it
            out.add(exchange(withIndex, request("gmail.list-emails", "{\"max_results\":10}")));
            out.add(exchange(withIndex, request("gmail.search-emails", "{\"query\":\"is:unread\",\"max_results\":10}")));
        }
        // whole emails: the newest and those with attachments, plain, cut and with HTML
        List<String> ids = new ArrayList<>();
        data(p, "gmail.list-emails", "{\"max_results\":8}").get("emails").forEach(e -> ids.add(e.get("id").asText()));
        data(p, "gmail.search-emails", "{\"query\":\"has:attachment\",\"max_results\":4}").get("emails")
                .forEach(e -> ids.add(e.get("id").asText()));
        for (String id : ids) {
            out.add(exchange(p, request("gmail.get-email", "{\"message_id\":\"" + id + "\"}")));
            out.add(exchange(p, request("gmail.get-email", "{\"message_id\":\"" + id + "\",\"max_body_chars\":100,\"include_html\":true}")));
        }
        // Calendar: the calendars, days and ranges (a DST change included), a query, paging, single events, busy time
        out.add(exchange(p, request("calendar.list-calendars", "{}")));
        for (String range : List.of("\"time_min\":\"2026-06-02\"", "\"time_min\":\"2026-03-28\",\"time_max\":\"2026-03-31\"",
                "\"time_min\":\"2026-10-31T00:00:00-04:00\",\"time_max\":\"2026-11-03T00:00:00-05:00\"")) {
            for (String s : STRATEGIES) {
                out.add(exchange(p, request("calendar.list-events", "{" + range + ",\"strategy\":\"" + s + "\"}")));
            }
        }
        out.add(exchange(p, request("calendar.list-events", "{\"time_min\":\"2026-01-01\",\"time_max\":\"2026-07-01\","
                + "\"query\":\"stand-up\",\"max_results\":3}")));
        JsonNode paged = data(p, "calendar.list-events", "{\"time_min\":\"2026-05-01\",\"time_max\":\"2026-06-01\",\"max_results\":4}");
        out.add(exchange(p, request("calendar.list-events", "{\"page_token\":" + Json.write(paged.get("next_page_token")) + "}")));
        JsonNode week = data(p, "calendar.list-events", "{\"time_min\":\"2026-06-01\",\"time_max\":\"2026-06-08\"}");
        week.get("events").forEach(e -> out.add(exchange(p, request("calendar.get-event", "{\"calendar_id\":"
                + Json.write(e.get("calendar_id")) + ",\"event_id\":" + Json.write(e.get("id")) + ",\"include_html\":true}"))));
        out.add(exchange(p, request("calendar.free-busy", "{\"time_min\":\"2026-06-01\",\"time_max\":\"2026-06-08\"}")));
        out.add(exchange(p, request("calendar.free-busy", "{\"time_min\":\"2026-06-01\",\"time_max\":\"2026-06-03\","
                + "\"calendar_ids\":[\"primary\",\"nobody@nowhere.example\"]}")));
        // errors as callers read them
        for (String bad : List.of(request("gmail.list-emails", "{\"strategy\":\"fast\"}"),
                request("gmail.list-emails", "{\"max_results\":0}"), request("gmail.list-emails", "{\"label\":\"NoSuchLabel\"}"),
                request("gmail.search-emails", "{}"), request("gmail.get-email", "{\"message_id\":\"xyz\"}"),
                request("gmail.get-email", "{\"message_id\":\"ffffffffffffffff\"}"),
                request("gmail.get-email", "{\"message_id\":\"1\",\"access_token\":\"a b\"}"),
                request("calendar.list-events", "{\"time_min\":\"yesterday\"}"),
                request("calendar.list-events", "{\"calendar_ids\":[]}"),
                request("calendar.get-event", "{\"event_id\":\"nope\"}"),
                request("calendar.free-busy", "{\"unknown\":1}"), request("no.such-tool", "{}"))) {
            out.add(exchange(p, bad));
        }
        // a token Google refuses, every tool (unauthenticated, not rerun by the fallback)
        ToolProtocol refused = new ToolProtocol(wrongToken);
        for (String call : List.of(request("gmail.list-emails", "{\"strategy\":\"concurrent\"}"),
                request("gmail.search-emails", "{\"query\":\"is:unread\",\"strategy\":\"batch\"}"),
                request("gmail.get-email", "{\"message_id\":\"" + ids.getFirst() + "\"}"),
                request("calendar.list-calendars", "{}"), request("calendar.list-events", "{\"time_min\":\"2026-06-02\"}"),
                request("calendar.get-event", "{\"event_id\":\"x\"}"), request("calendar.free-busy", "{\"time_min\":\"2026-06-02\"}"))) {
            out.add(exchange(refused, call));
        }
        return out;
    }

    @Test
    void everyToolAndStrategyAnswersAsRecorded() throws IOException {
        List<String> now = exchanges();
        if (Boolean.getBoolean("answers.record")) {
            Files.createDirectories(RECORDED.getParent());
            Files.write(RECORDED, now, StandardCharsets.UTF_8);
        }
        List<String> recorded = Files.readAllLines(RECORDED, StandardCharsets.UTF_8);
        assertThat(now).hasSameSizeAs(recorded);
        for (int i = 0; i < now.size(); i++) {
            assertThat(now.get(i)).as("exchange %d", i + 1).isEqualTo(recorded.get(i));
        }
    }
}
