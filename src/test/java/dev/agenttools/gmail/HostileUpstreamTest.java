package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.google.Retry;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolInterceptor;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.agenttools.gmail.GmailToolsTest.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A Gmail-shaped server that is wrong, not slow ({@link HostileGmail}): an answer that cannot be read is not retried
 * (the server sees one get), costs a list only that message's place (an {@code internal} error in {@code errors}, the
 * same from every strategy) and get_email a clear {@code internal} error; a body is read to its limit and no further
 * (as sent and once inflated); a list with more ids than asked costs no more gets than asked. The next call is
 * unaffected. With the default retry policy, so that a retry would show.
 */
@Tag("process")
class HostileUpstreamTest {
    private static final String VICTIM = "f3";
    private static HostileGmail gmail;
    private static ToolRegistry tools;

    @BeforeAll
    static void start() throws IOException {
        gmail = new HostileGmail();
        // the registry agents get, fallback router included: a partial answer must not be taken for a failure
        tools = HandBuilt.registry(ToolRegistry.builder().interceptor(ToolInterceptor.fallback()),
                GmailSettings.forRoot(gmail.root()).withPacing(60_000_000, 1_000_000, 50), Retry.DEFAULT);
    }

    @AfterAll
    static void stop() throws IOException {
        tools.close();
        gmail.close();
    }

    @BeforeEach
    void healthy() {
        gmail.answers.clear();
        gmail.listed = 10;
        gmail.reset();
    }

    private static ToolResult list(String strategy, int max) {
        return tools.call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\":" + max + ",\"strategy\":\"" + strategy
                + "\",\"timeout_ms\":20000}")));
    }

    private static ToolResult get(String id) {
        return tools.call(ToolCall.of(GmailTools.GET, obj("{\"message_id\":\"" + id + "\",\"timeout_ms\":20000}")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "BAD_UTF8           | true  | the answer is not the JSON expected: Invalid UTF-8",
            "NOT_JSON           | true  | the answer is not the JSON expected: Unexpected character ('<'",
            "DEEP               | true  | the message's MIME parts nest deeper than 100 levels, the most read",
            "TOO_LARGE          | true  | the answer is larger than 1 MiB, the most read",
            "TOO_LARGE_DECLARED | true  | the answer is larger than 1 MiB, the most read",
            "HUGE               | false | the answer is larger than 1 MiB, the most read",
            "GZIP_BOMB          | false | the answer is larger than 1 MiB once gzip is undone, the most read",
            "PROTOCOL_ERROR     | false | ProtocolException: Invalid status line"})
    void aMessageWhoseAnswerCannotBeReadKeepsItsPlaceWithAnInternalErrorAtOnceWithEveryStrategy(
            HostileGmail.Answer answer, boolean inBatch, String why) {
        gmail.answers.put(VICTIM, answer);
        List<String> strategies = inBatch ? List.of("sequential", "concurrent", "batch") : List.of("sequential", "concurrent");
        String first = null;
        for (String strategy : strategies) {
            gmail.reset();

            ToolResult r = list(strategy, 10);

            JsonNode data = r.data();
            assertThat(r.backend().wireName()).as(strategy).isEqualTo(strategy);
            assertThat(data.get("emails")).as(strategy).hasSize(10);
            assertThat(data.get("emails").get(3)).as(strategy).isEqualTo(obj("{\"id\":\"f3\",\"thread_id\":\"e3\",\"subject\":\"(no subject)\"}"));
            assertThat(data.get("emails").get(2).get("subject").asText()).as(strategy).isEqualTo("Subject f2");
            assertThat(data.get("errors")).as(strategy).hasSize(1);
            JsonNode error = data.get("errors").get(0);
            assertThat(error.get("id").asText()).isEqualTo(VICTIM);
            assertThat(error.get("code").asText()).as(strategy).isEqualTo("internal");
            assertThat(error.get("message").asText()).as(strategy)
                    .startsWith("Gmail's answer for this message could not be read: " + why);
            assertThat(gmail.getsOf(VICTIM)).as(strategy + ": asked once, never again").isEqualTo(1);
            if (answer == HostileGmail.Answer.HUGE || answer == HostileGmail.Answer.GZIP_BOMB) {
                // what the server got written is what the client read plus what the socket buffers held when it stopped
                // (up to 36 MB on loopback here, more of it filled when the machine is busy): the bound is above that
                // and well below the whole body (200 MB; the bomb's 128 MB, which would inflate to 128 GiB)
                assertThat(gmail.written.get()).as(strategy + ": the client stopped reading").isLessThan(answer == HostileGmail.Answer.HUGE
                        ? 100_000_000L : 64_000_000L);
            }
            String json = Json.write(data);
            if (first == null) {
                first = json;
            } else {
                assertThat(json).as(strategy + ", as sequential answered").isEqualTo(first);
            }
        }

        gmail.answers.clear();
        for (String strategy : strategies) {
            JsonNode next = list(strategy, 10).data();
            assertThat(next.has("errors")).as(strategy + ": the next call is unaffected").isFalse();
            assertThat(next.get("emails").get(3).get("subject").asText()).isEqualTo("Subject f3");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "BAD_UTF8          | the answer is not the JSON expected: Invalid UTF-8",
            "NOT_JSON          | the answer is not the JSON expected: Unexpected character ('<'",
            "DEEP              | the message's MIME parts nest deeper than 100 levels, the most read",
            "WIDE              | the message holds more than 100000 headers, parts and labels, the most read",
            "HUGE              | the answer is larger than 64 MiB, the most read",
            "GZIP_BOMB         | the answer is larger than 64 MiB once gzip is undone, the most read",
            "PROTOCOL_ERROR    | ProtocolException: Invalid status line"})
    void getEmailAnswersAnUnreadableMessageWithAnInternalErrorAtOnce(HostileGmail.Answer answer, String why) {
        gmail.answers.put(VICTIM, answer);

        ToolException e = catchThrowableOfType(ToolException.class, () -> get(VICTIM));

        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(ToolException.Kind.INTERNAL);
        assertThat(e.getMessage()).startsWith("gmail messages.get f3 failed: " + why).contains("(attempt 1, ");
        assertThat(gmail.getsOf(VICTIM)).as("asked once, never again").isEqualTo(1);
        if (answer == HostileGmail.Answer.HUGE) {
            assertThat(gmail.written.get()).as("the client stopped reading at the limit").isLessThan(100_000_000L);
        }
        gmail.answers.clear();
        assertThat(get(VICTIM).data().get("subject").asText()).as("the next call is unaffected").isEqualTo("Subject f3");
    }

    @Test
    void anHttp2ProtocolErrorIsNotRetried() throws IOException {
        // a service of its own: the JDK client offers h2c on a new connection, and this server takes it up only to break it
        try (ToolRegistry own = HandBuilt.registry(ToolRegistry.builder(), GmailSettings.forRoot(gmail.root()), Retry.DEFAULT)) {
            gmail.answers.put(VICTIM, HostileGmail.Answer.H2_PROTOCOL_ERROR);

            ToolException e = catchThrowableOfType(ToolException.class, () -> own.call(ToolCall.of(GmailTools.GET,
                    obj("{\"message_id\":\"f3\",\"timeout_ms\":20000}"))));

            assertThat(e).isNotNull();
            assertThat(e.kind()).isEqualTo(ToolException.Kind.INTERNAL);
            assertThat(e.getMessage()).startsWith("gmail messages.get f3 failed: ProtocolException: ").contains("(attempt 1, ");
            assertThat(gmail.getsOf(VICTIM)).as("asked once, never again").isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sequential", "concurrent", "batch"})
    void aListAnsweringAMillionIdsForTenCostsTenGets(String strategy) {
        gmail.listed = 1_000_000;

        ToolResult r = list(strategy, 10);

        assertThat(r.backend().wireName()).isEqualTo(strategy);
        assertThat(r.data().get("emails")).hasSize(10);
        assertThat(r.data().get("emails").get(9).get("id").asText()).isEqualTo("f9");
        assertThat(r.data().has("errors")).isFalse();
        assertThat(gmail.allGets()).as("one get per id asked for, none for the rest").isEqualTo(10);
        assertThat(gmail.getsOf("f10")).isZero();
    }

    @Test
    void aSearchTooLongForAGetIsBoundedTheSameOnTheGoogleClientsPath() {
        // past 2,048 characters of URL the Gmail client sends messages.list as a POST, and reads the answer itself
        String search = "{\"query\":\"subject:" + "x".repeat(2_100) + "\",\"max_results\":10,\"strategy\":\"sequential\",\"timeout_ms\":20000}";
        gmail.listed = 1_000_000;

        ToolResult r = tools.call(ToolCall.of(GmailTools.SEARCH, obj(search)));

        assertThat(r.data().get("emails")).hasSize(10);
        assertThat(gmail.allGets()).as("one get per id asked for, none for the rest").isEqualTo(10);

        gmail.reset();
        gmail.listBomb = true;

        // concurrent: the fallback router must not rerun it sequentially either (the same bytes would come back)
        String concurrent = search.replace("\"sequential\"", "\"concurrent\"");
        ToolException e = catchThrowableOfType(ToolException.class, () -> tools.call(ToolCall.of(GmailTools.SEARCH, obj(concurrent))));

        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(ToolException.Kind.INTERNAL);
        assertThat(e.getMessage()).startsWith("gmail messages.list failed: the answer is larger than 64 MiB once gzip is undone");
        assertThat(gmail.lists.get()).as("asked once, never again, not even by the fallback").isEqualTo(1);
    }

    /**
     * In a JVM of 128 MB heap ({@link HostileCalls}): a gzip bomb, a 200 MB body and 4,000,000 listed ids each fail
     * or answer within the deadline without running out of memory, and a good list afterwards answers whole.
     */
    @Test
    void hostileAnswersStayWithinASmallHeap() throws Exception {
        gmail.answers.put("f1", HostileGmail.Answer.GZIP_BOMB);
        gmail.answers.put("f2", HostileGmail.Answer.HUGE);
        gmail.answers.put("f4", HostileGmail.Answer.WIDE);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"), HostileCalls.class.getName(), gmail.root())
                .redirectErrorStream(true).start();
        // the child says which list it asks for next, and waits for the server to be set so
        String out;
        try (var in = child.getInputStream(); var toChild = child.getOutputStream()) {
            StringBuilder lines = new StringBuilder();
            var reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lines.append(line).append('\n');
                if (line.startsWith("listing ")) {
                    gmail.listed = Integer.parseInt(line.substring("listing ".length()));
                    toChild.write('\n');
                    toChild.flush();
                }
            }
            out = lines.toString();
        }
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(out).isZero();
        assertThat(out).contains("get f1: internal: gmail messages.get f1 failed: the answer is larger than 64 MiB once gzip is undone")
                .contains("get f2: internal: gmail messages.get f2 failed: the answer is larger than 64 MiB, the most read")
                .contains("get f4: internal: gmail messages.get f4 failed: the message holds more than 100000")
                .contains("list 4000000: internal: gmail messages.list failed: the answer is larger than 64 MiB, the most read")
                .contains("list 10: 10 emails, errors [f1, f2, f4]");
    }
}
