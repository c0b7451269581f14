package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.calendar.CalendarTools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;

/**
 * Issue 44, item 3: an upstream whose failures never clear ends the call with what it said, within the call's
 * deadline and after at most four requests per message: a 5xx is {@code upstream} naming the status, a spent quota
 * {@code rate_limited} saying how long to wait, and a server that refuses connections {@code upstream} within two
 * seconds whatever the tool and its timeout, so that a caller's own fallback has time. Over real HTTP, through the
 * registry agents get (fallback router included), each call with a registry and (when there is one) an emulator of
 * its own, so that its requests can be counted; the calls run at once.
 */
class PersistentFailureTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final String TOKEN = "persistent-failure-token-31c7";
    private static final int TIMEOUT_MS = 8_000;
    /** The most requests one message may cost: Retry.DEFAULT's attempts. */
    private static final int MAX_REQUESTS = 4;
    /** How long a call may take when the server refuses connections, whatever its timeout_ms. */
    private static final long REFUSED_WITHIN_MS = 2_000;

    /** The requests every case sends: get_email, list_emails with each strategy, search_emails. */
    private static final List<String> GMAIL_CALLS = List.of(
            "{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"%s}}",
            "{\"command\": \"gmail.list-emails\", \"params\": {\"strategy\": \"sequential\"%s}}",
            "{\"command\": \"gmail.list-emails\", \"params\": {\"strategy\": \"concurrent\"%s}}",
            "{\"command\": \"gmail.list-emails\", \"params\": {\"strategy\": \"batch\"%s}}",
            "{\"command\": \"gmail.list-emails\", \"params\": {\"strategy\": \"auto\"%s}}",
            "{\"command\": \"gmail.search-emails\", \"params\": {\"query\": \"is:unread\", "
                    + "\"strategy\": \"batch\"%s}}");
    private static final List<String> CALENDAR_CALLS = List.of(
            "{\"command\": \"" + CalendarTools.LIST_CALENDARS + "\", \"params\": {%s}}",
            "{\"command\": \"" + CalendarTools.LIST_EVENTS + "\", \"params\": {\"time_min\": \"2026-06-02\"%s}}",
            "{\"command\": \"" + CalendarTools.GET_EVENT + "\", \"params\": {\"event_id\": \"x\"%s}}");

    /** What the caller saw: the error object (null: an answer), its own elapsed time, and the requests it cost. */
    private record Seen(String request, JsonNode error, long elapsedMs, long requests) {
        @Override
        public String toString() {
            return request + " => " + elapsedMs + " ms, " + requests + " requests: " + error;
        }
    }

    @Test
    void aGmailOrCalendarThatAlwaysAnswers500IsUpstreamAfterAtMostFourRequests() throws Exception {
        EmulatorConfig always500 = fastEmulator().token(TOKEN).seedMessages(50).failRate(1.0)
                .failStatuses(Map.of(500, 1)).build();
        List<String> requests = new ArrayList<>(GMAIL_CALLS);
        requests.addAll(CALENDAR_CALLS);

        List<Seen> seen = runAtOnce(requests, always500, TIMEOUT_MS);

        assertEachFailed("always 500", seen, (soft, s) -> {
            soft.assertThat(s.error().path("code").asText()).as(s.toString()).isEqualTo("upstream");
            soft.assertThat(s.error().path("message").asText()).as(s.toString())
                    .contains("HTTP 500: Internal error encountered.").containsPattern("\\(attempt [1-4], \\d+ ms\\)");
            soft.assertThat(s.error().has("retry_after_ms")).as(s.toString()).isFalse();
            soft.assertThat(s.requests()).as(s.toString()).isBetween(2L, (long) MAX_REQUESTS);
            soft.assertThat(s.elapsedMs()).as(s.toString()).isLessThan(TIMEOUT_MS + 1_000L);
        });
    }

    @Test
    void aGmailWhoseQuotaIsSpentIsRateLimitedSayingHowLongToWait() throws Exception {
        // a bucket of 1 unit, refilled one unit a minute, never holds what a Gmail call costs: every call is refused,
        // in Gmail's two shapes in turn (429, and 403 rateLimitExceeded)
        EmulatorConfig spent = fastEmulator().token(TOKEN).seedMessages(50).quotaPerMinute(1).burst(1).build();

        List<Seen> seen = runAtOnce(GMAIL_CALLS, spent, TIMEOUT_MS);

        assertEachFailed("quota spent", seen, (soft, s) -> {
            soft.assertThat(s.error().path("code").asText()).as(s.toString()).isEqualTo("rate_limited");
            soft.assertThat(s.error().path("message").asText()).as(s.toString())
                    .containsPattern("HTTP (429|403)").contains("quota is spent").contains("retry after");
            soft.assertThat(s.error().path("retry_after_ms").isIntegralNumber()).as(s.toString()).isTrue();
            soft.assertThat(s.error().path("retry_after_ms").asLong()).as(s.toString()).isPositive();
            soft.assertThat(s.requests()).as(s.toString()).isBetween(2L, (long) MAX_REQUESTS);
            soft.assertThat(s.elapsedMs()).as(s.toString()).isLessThan(TIMEOUT_MS + 1_000L);
        });
    }

    @Test
    void aServerThatRefusesConnectionsIsUpstreamWithinTwoSecondsWhateverTheTool() throws Exception {
        List<String> requests = new ArrayList<>(GMAIL_CALLS);
        requests.addAll(CALENDAR_CALLS);

        runAtOnce(requests, null, 0); // a warm-up: class loading and the JIT are not what is timed
        // the default timeout_ms (30 s): the bound must come from the failure, not from the deadline
        List<Seen> seen = runAtOnce(requests, null, 0);

        assertEachFailed("refused", seen, (soft, s) -> {
            soft.assertThat(s.error().path("code").asText()).as(s.toString()).isEqualTo("upstream");
            soft.assertThat(s.error().path("message").asText()).as(s.toString())
                    .contains("cannot connect to 127.0.0.1:1: connection refused")
                    .doesNotContain("Exception", "\n\tat ");
            soft.assertThat(s.elapsedMs()).as(s.toString()).isLessThanOrEqualTo(REFUSED_WITHIN_MS);
        });
    }

    /**
     * Every call of {@code seen} failed, and each failure meets {@code check}; all the calls are shown on stderr under
     * {@code what}, and every miss is reported at once.
     */
    private static void assertEachFailed(String what, List<Seen> seen,
                                         BiConsumer<SoftAssertions, Seen> check) {
        SoftAssertions soft = new SoftAssertions();
        for (Seen s : seen) {
            soft.assertThat(s.error()).as(s.toString()).isNotNull();
            if (s.error() != null) {
                check.accept(soft, s);
            }
        }
        System.err.println(what + ":\n  " + String.join("\n  ", seen.stream().map(Seen::toString).toList()));
        soft.assertAll();
    }

    @Test
    void aGmailThatStopsListeningAfterTheListEndsTheFetchAtTheFirstRefusal() throws Exception {
        SoftAssertions soft = new SoftAssertions();
        for (String strategy : List.of("sequential", "concurrent", "batch")) {
            try (ListsThenStops gmail = ListsThenStops.start(20);
                 ToolRegistry tools = Tools.builder().rootUrl(gmail.root()).defaultAccessToken(TOKEN).build()) {
                long start = System.nanoTime();
                JsonNode answer = new ToolProtocol(tools).answer("{\"command\": \"gmail.list-emails\", \"params\": "
                        + "{\"max_results\": 20, \"strategy\": \"" + strategy + "\"}}").json();
                long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

                // the first get to give up fails the call and cancels the others: not twenty retrying alone
                String what = strategy + ", " + elapsedMs + " ms: " + answer;
                soft.assertThat(answer.path("error").path("code").asText()).as(what).isEqualTo("upstream");
                soft.assertThat(answer.path("error").path("message").asText()).as(what)
                        .contains("cannot connect to 127.0.0.1:").contains("connection refused");
                soft.assertThat(elapsedMs).as(what).isLessThanOrEqualTo(REFUSED_WITHIN_MS);
                System.err.println("lists, then stops: " + what);
            }
        }
        soft.assertAll();
    }

    /**
     * A Gmail that answers one messages.list (HTTP/1.1, the connection closed after it) and then stops listening, so
     * that every get after it is refused.
     */
    private record ListsThenStops(ServerSocket server) implements AutoCloseable {
        static ListsThenStops start(int messages) throws IOException {
            var server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            StringBuilder list = new StringBuilder("{\"messages\": [");
            for (int i = 0; i < messages; i++) {
                list.append(i == 0 ? "" : ", ").append("{\"id\": \"f").append(i).append("\", \"threadId\": \"e")
                        .append(i).append("\"}");
            }
            byte[] body = list.append("], \"resultSizeEstimate\": ").append(messages).append("}").toString()
                    .getBytes(StandardCharsets.UTF_8);
            Thread.ofVirtual().start(() -> {
                try (server; var socket = server.accept()) {
                    var in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                            StandardCharsets.ISO_8859_1));
                    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                        // the request's head: whatever it asked, it gets the list
                    }
                    var out = socket.getOutputStream();
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\n"
                            + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(body);
                    out.flush();
                } catch (IOException e) {
                    // closed by the test
                }
            });
            return new ListsThenStops(server);
        }

        String root() {
            return "http://127.0.0.1:" + server.getLocalPort() + "/";
        }

        @Override
        public void close() throws IOException {
            server.close(); // its thread ends with it
        }
    }

    /**
     * Sends each request (its {@code %s} filled with the timeout, if any) at once, each on a registry of its own
     * against an emulator of its own ({@code upstream}), or against a port where nothing listens when it is null.
     */
    private static List<Seen> runAtOnce(List<String> requests, EmulatorConfig upstream, int timeoutMs)
            throws Exception {
        List<Callable<Seen>> calls = new ArrayList<>();
        for (String template : requests) {
            String timeout = timeoutMs == 0 ? ""
                    : (template.contains("{%s}") ? "" : ", ") + "\"timeout_ms\": " + timeoutMs;
            String request = template.formatted(timeout);
            calls.add(() -> {
                Emulator emulator = upstream == null ? null : emulators.start(upstream);
                String root = emulator == null ? "http://127.0.0.1:1/" : emulator.rootUri().toString();
                try (emulator; ToolRegistry tools = Tools.builder().rootUrl(root).defaultAccessToken(TOKEN).build()) {
                    long start = System.nanoTime();
                    JsonNode answer = new ToolProtocol(tools).answer(request).json();
                    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    return new Seen(request, answer.get("error"), elapsedMs,
                            emulator == null ? 0 : emulator.counters().apiCalls());
                }
            });
        }
        List<Seen> seen = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Seen> f : pool.invokeAll(calls)) {
                seen.add(f.get());
            }
        }
        return seen;
    }
}
