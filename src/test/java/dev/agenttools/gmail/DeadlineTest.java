package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13, item 1: {@code timeout_ms} holds within 10 % for every tool and strategy against an upstream that answers
 * every call 503, one that answers too late, a stopped server and a black-holed connection (accepted and never
 * answered, or never accepted). The caller's own clock is the judge: each call is timed around {@code registry.call}.
 * What nothing answers in time is {@code deadline}; what answers, but only with failures (the 503s, the refused
 * connection), is {@code upstream} once the retries are spent (issue 44, item 3), well within the timeout.
 *
 * <p>All cases run at once, each on its own thread, released together: the test takes about one timeout, not
 * forty-five, and a busy machine slows every case alike instead of stretching a serial run.
 */
class DeadlineTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    static final int TIMEOUT_MS = 2_000;
    /** The most a call may take: timeout_ms plus 10 %. */
    static final long UPPER_MS = TIMEOUT_MS * 110L / 100;
    /** The least a call may take when the upstream cannot answer before the deadline: timeout_ms less 10 %. */
    static final long LOWER_MS = TIMEOUT_MS * 90L / 100;
    /** How long the test waits for a case that never answers before calling it hung (it is then reported, not joined). */
    private static final Duration HUNG_AFTER = Duration.ofSeconds(20);
    private static final String TOKEN = "deadline-test-token-5f1c";
    private static final String MESSAGE_ID = "00000000000000ab";
    private static final List<String> STRATEGIES = List.of("auto", "sequential", "concurrent", "batch");

    /**
     * A misbehaving Gmail.
     *
     * @param name        how failure messages name it
     * @param rootUrl     its plain http:// root URL
     * @param says        what the error message must mention besides the budget (null: the budget alone)
     * @param neverAnswers true when nothing can come back before the deadline, so an answer before
     *                    {@link #LOWER_MS} means the call gave up early (or never waited), and the error is
     *                    {@code deadline}; else it is {@code upstream}
     */
    private record Upstream(String name, String rootUrl, String says, boolean neverAnswers) {
        ToolException.Kind kind() {
            return neverAnswers ? ToolException.Kind.DEADLINE : ToolException.Kind.UPSTREAM;
        }
    }

    private record Case(Upstream upstream, String tool, String strategy) {
        @Override
        public String toString() {
            return upstream.name() + " × " + tool + (strategy == null ? "" : " (strategy " + strategy + ")");
        }

        ObjectNode params() {
            ObjectNode p = Json.object().put("timeout_ms", TIMEOUT_MS);
            if (tool.equals(GmailTools.SEARCH)) {
                p.put("query", "is:unread");
            } else if (tool.equals(GmailTools.GET)) {
                p.put("message_id", MESSAGE_ID);
            }
            if (strategy != null) {
                p.put("strategy", strategy);
            }
            return p;
        }
    }

    /** What the caller saw: the error (or null if the call answered) and the caller's own elapsed time. */
    private record Outcome(Case c, Throwable error, long elapsedMs, boolean hung) {
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyToolAnswersWithinItsTimeoutWhateverTheUpstreamDoes() throws Exception {
        long begun = System.nanoTime();
        try (Emulator always503 = emulators.start(smallEmulator().failRate(1.0).failStatuses(Map.of(503, 1)).build());
             Emulator slow = emulators.start(smallEmulator().latency(Duration.ofSeconds(30)).handshake(Duration.ofSeconds(30)).build());
             Emulator healthy = emulators.start(smallEmulator().build());
             BlackHole accepting = BlackHole.accepting();
             BlackHole unaccepted = BlackHole.neverAccepting()) {
            assertThat(rawStatus(always503)).as("the fault model answers a plain messages.list with 503").isEqualTo(503);
            long started = System.nanoTime();
            warmUp(healthy);
            long warm = System.nanoTime();

            List<Upstream> upstreams = List.of(
                    new Upstream("constant 503s", always503.rootUri().toString(), "503", false),
                    new Upstream("slow responses (30 s)", slow.rootUri().toString(), null, true),
                    new Upstream("stopped server", "http://127.0.0.1:" + stoppedPort() + "/", "connection refused",
                            false),
                    new Upstream("black hole (accepted, never answered)", accepting.rootUrl(), null, true),
                    new Upstream("black hole (never accepted)", unaccepted.rootUrl(), null, true));
            List<Case> cases = new ArrayList<>();
            for (Upstream u : upstreams) {
                for (String tool : List.of(GmailTools.LIST, GmailTools.SEARCH)) {
                    STRATEGIES.forEach(s -> cases.add(new Case(u, tool, s)));
                }
                cases.add(new Case(u, GmailTools.GET, null));
            }

            List<Outcome> outcomes = runTogether(cases);
            long ran = System.nanoTime();

            SoftAssertions soft = new SoftAssertions();
            StringBuilder table = new StringBuilder("deadline cases (timeout_ms " + TIMEOUT_MS + ", at most " + UPPER_MS + " ms):\n");
            for (Outcome o : outcomes) {
                table.append(String.format("  %6d ms  %-9s %s: %s%n", o.elapsedMs(),
                        o.hung() ? "HUNG" : o.error() instanceof ToolException t ? t.kind().code() : o.error() == null ? "answered" : "thrown",
                        o.c(), o.error() == null ? "" : o.error().getMessage()));
                check(soft, o);
            }
            table.append(String.format("  (upstreams up in %d ms, warm-up %d ms, the %d cases %d ms)%n", ms(started - begun),
                    ms(warm - started), cases.size(), ms(ran - warm)));
            System.err.print(table);
            assertThat(always503.counters().faultsInjected()).as("503s injected").isPositive();
            soft.assertAll();
        }
    }

    /** The emulator answering at once, with a mailbox just big enough for the warm-up: no case needs mail. */
    private static EmulatorConfig.Builder smallEmulator() {
        return fastEmulator().token(TOKEN).seedMessages(50);
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static void check(SoftAssertions soft, Outcome o) {
        String what = o.c() + ", " + o.elapsedMs() + " ms";
        if (o.hung()) {
            soft.fail(what + ": no answer within " + HUNG_AFTER.toMillis() + " ms (timeout_ms " + TIMEOUT_MS + ")");
            return;
        }
        soft.assertThat(o.elapsedMs()).as(what + ": the caller's wall time").isLessThanOrEqualTo(UPPER_MS);
        if (o.c().upstream().neverAnswers()) {
            soft.assertThat(o.elapsedMs()).as(what + ": nothing can answer before the deadline, so it cannot end this early")
                    .isGreaterThanOrEqualTo(LOWER_MS);
        }
        ToolException.Kind kind = o.c().upstream().kind();
        if (!(o.error() instanceof ToolException e)) {
            soft.fail(what + ": expected a ToolException of kind " + kind.code() + ", got "
                    + (o.error() == null ? "an answer" : o.error().toString()));
            return;
        }
        soft.assertThat(e.kind()).as(what + ": kind (message: " + e.getMessage() + ")").isEqualTo(kind);
        if (kind == ToolException.Kind.DEADLINE) {
            soft.assertThat(e.getMessage()).as(what + ": the message names the budget").contains(TIMEOUT_MS + " ms");
        }
        if (o.c().upstream().says() != null) {
            soft.assertThat(e.getMessage()).as(what + ": the message says what the upstream did")
                    .containsIgnoringCase(o.c().upstream().says());
        }
        soft.assertThat(e.getMessage()).as(what + ": the message never shows the token").doesNotContain(TOKEN);
    }

    /**
     * Runs every case on its own (daemon) thread, all released at once, each timing its own call; a case still
     * running after {@link #HUNG_AFTER} is reported as hung and left behind (a daemon, so it cannot hold the JVM).
     */
    private static List<Outcome> runTogether(List<Case> cases) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(cases.size());
        CountDownLatch go = new CountDownLatch(1);
        List<AtomicReference<Outcome>> results = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (Case c : cases) {
            AtomicReference<Outcome> result = new AtomicReference<>();
            results.add(result);
            // its own registry (own HTTP client, own connections): one case's stuck connection is not another's
            ToolRegistry tools = Tools.builder().gmail(GmailSettings.forRoot(c.upstream().rootUrl())
                    .withPacing(60_000_000, 1_000_000, 50)).defaultAccessToken(TOKEN).build();
            ObjectNode params = c.params();
            threads.add(Thread.ofPlatform().daemon().name("deadline " + c).start(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long start = System.nanoTime();
                Throwable error = null;
                try {
                    tools.call(ToolCall.of(c.tool(), params));
                } catch (Throwable t) {
                    error = t;
                }
                result.set(new Outcome(c, error, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), false));
            }));
        }
        assertThat(ready.await(30, TimeUnit.SECONDS)).as("all case threads ready").isTrue();
        long released = System.nanoTime();
        go.countDown();
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            long left = HUNG_AFTER.toNanos() - (System.nanoTime() - released);
            threads.get(i).join(Duration.ofNanos(Math.max(1, left)));
            Outcome o = results.get(i).get();
            outcomes.add(o != null ? o : new Outcome(cases.get(i), null,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released), true));
        }
        return outcomes;
    }

    /** One answered call of each tool and strategy first, so that class loading is not what the timed cases measure. */
    private static void warmUp(Emulator healthy) {
        ToolRegistry tools = Tools.builder().gmail(GmailSettings.forRoot(healthy.rootUri().toString())
                .withPacing(60_000_000, 1_000_000, 50)).defaultAccessToken(TOKEN).build();
        for (String strategy : STRATEGIES) {
            tools.call(ToolCall.of(GmailTools.LIST, Json.object().put("max_results", 5).put("strategy", strategy)));
            tools.call(ToolCall.of(GmailTools.SEARCH, Json.object().put("query", "is:unread").put("max_results", 5)
                    .put("strategy", strategy)));
        }
        try {
            tools.call(ToolCall.of(GmailTools.GET, Json.object().put("message_id", MESSAGE_ID)));
        } catch (ToolException e) {
            // not_found is fine: the get and its error path ran
        }
    }

    /** A plain messages.list against the 503 emulator, outside our client: the status the fault model answers. */
    private static int rawStatus(Emulator emulator) throws IOException, InterruptedException {
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpRequest request = HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/messages"))
                    .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).GET().build();
            return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }

    /** A loopback port where nothing listens: bound, noted and closed again. */
    private static int stoppedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * A server that swallows connections: either it accepts them and never reads or writes (the request sits in
     * the socket buffers, the answer never comes), or it never accepts at all (a backlog of one fills at once and
     * later connects wait on the handshake). Closing it resets everything it holds.
     */
    static final class BlackHole implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> held = new CopyOnWriteArrayList<>();

        private BlackHole(ServerSocket server) {
            this.server = server;
        }

        static BlackHole accepting() throws IOException {
            BlackHole hole = new BlackHole(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
            Thread.ofPlatform().daemon().name("black hole " + hole.server.getLocalPort()).start(() -> {
                try {
                    while (true) {
                        hole.held.add(hole.server.accept());
                    }
                } catch (IOException closed) {
                    // closed by close(): the hole is gone
                }
            });
            return hole;
        }

        static BlackHole neverAccepting() throws IOException {
            return new BlackHole(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        }

        String rootUrl() {
            return "http://127.0.0.1:" + server.getLocalPort() + "/";
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
