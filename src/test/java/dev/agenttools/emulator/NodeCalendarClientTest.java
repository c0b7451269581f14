package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official Node Calendar client ({@code @googleapis/calendar}, installed by the build from src/test/node's lock
 * file) against the emulator's Calendar v3: the same seeded facts the Java client test checks, through another
 * client's URL building, JSON reading and error handling.
 */
@Tag("process")
class NodeCalendarClientTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static JsonNode results;

    @BeforeAll
    static void runTheNodeClient() throws Exception {
        Path dir = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        assertThat(dir.resolve("node_modules/@googleapis/calendar"))
                .as("npm packages of the Node client test (the build runs 'npm install' in %s)", dir).exists();
        Emulator emulator = emulators.start(JavaGmailClient.fastConfig().token("node-token").build());
        Process node = new ProcessBuilder("node", "calendar-client-check.mjs", emulator.rootUri().toString(), "node-token")
                .directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = node.getInputStream().readAllBytes();
        assertThat(node.waitFor(60, TimeUnit.SECONDS)).as("node finished").isTrue();
        assertThat(node.exitValue()).as("node exit status, output: %s", new String(out, StandardCharsets.UTF_8)).isZero();
        results = new ObjectMapper().readTree(out);
    }

    private static JsonNode ok(String check) {
        JsonNode r = results.get(check);
        assertThat(r).as("check %s ran", check).isNotNull();
        assertThat(r.get("ok").asBoolean()).as("check %s succeeded: %s", check, r).isTrue();
        return r.get("value");
    }

    private static JsonNode failed(String check) {
        JsonNode r = results.get(check);
        assertThat(r).as("check %s ran", check).isNotNull();
        assertThat(r.get("ok").asBoolean()).as("check %s failed as it should: %s", check, r).isFalse();
        return r;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(v -> out.add(v.asText()));
        return out;
    }

    @Test
    void listsTheCalendarsPrimaryFirst() {
        JsonNode calendars = ok("calendarList");
        assertThat(calendars).hasSize(9);
        assertThat(calendars.get(0).get("id").asText()).isEqualTo("me@example.com");
        assertThat(calendars.get(0).get("primary").asBoolean()).isTrue();
        assertThat(calendars.findValuesAsText("timeZone")).contains("Asia/Tokyo", "America/Los_Angeles", "Europe/Berlin");
    }

    @Test
    void expandsSeriesWithTheirExceptionsAndGetsAnInstanceById() {
        assertThat(ok("eventsInRange").findValuesAsText("start")).containsExactly("2026-03-10T20:00:00+01:00",
                "2026-03-19T19:00:00+01:00", "2026-03-24T19:00:00+01:00", "2026-03-26T19:00:00+01:00");
        assertThat(ok("eventsInRange").get(0).get("summary").asText()).isEqualTo("Gym (late)");
        JsonNode instance = ok("getInstance");
        assertThat(texts(instance.get("recurrence"))).containsExactly("RRULE:FREQ=WEEKLY;BYDAY=TU,TH",
                "EXDATE;TZID=Europe/Berlin:20260317T190000");
        assertThat(instance.get("start").asText()).isEqualTo("2026-03-19T19:00:00+01:00");
        assertThat(instance.get("recurringEventId").asText()).isEqualTo(instance.get("seriesId").asText());
        assertThat(texts(ok("instances"))).containsExactly("2026-03-03T19:00:00+01:00", "2026-03-05T19:00:00+01:00");
    }

    @Test
    void pagesToASyncTokenThatFindsNoChanges() {
        JsonNode paged = ok("paged");
        assertThat(paged.get("count").asInt()).isEqualTo(21);
        assertThat(paged.get("distinct").asInt()).isEqualTo(21);
        assertThat(paged.get("pages").asInt()).isEqualTo(6);
        assertThat(paged.get("changes").asInt()).isZero();
    }

    @Test
    void freeBusyAndColoursAndJapaneseTitles() {
        JsonNode calendars = ok("freeBusy");
        assertThat(calendars.get("c_work.example@group.calendar.google.com").get("busy")).hasSize(2);
        assertThat(calendars.get("nobody@example.com").get("errors").get(0).get("reason").asText()).isEqualTo("notFound");
        assertThat(texts(ok("holidaysInJapanese"))).containsExactly("2026-05-03 憲法記念日", "2026-05-04 みどりの日",
                "2026-05-05 こどもの日", "2026-05-06 休日 憲法記念日");
        assertThat(ok("colors").get("calendar").asInt()).isEqualTo(24);
        assertThat(ok("colors").get("event").asInt()).isEqualTo(11);
    }

    @Test
    void errorsReachTheClientWithGooglesStatusAndReason() {
        assertThat(failed("staleSyncToken").get("status").asInt()).isEqualTo(410);
        assertThat(failed("staleSyncToken").get("reason").asText()).isEqualTo("fullSyncRequired");
        assertThat(failed("orderByWithoutSingleEvents").get("status").asInt()).isEqualTo(400);
        assertThat(failed("vanishedCalendar").get("status").asInt()).isEqualTo(404);
    }
}
