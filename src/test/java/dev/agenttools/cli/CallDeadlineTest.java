package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13, item 1, through the one-shot command: {@code call} with {@code timeout_ms} against a black-holed Gmail
 * (connections accepted, never read, never answered) answers {@code deadline} within timeout_ms + 10 % of its
 * spawn, as the agent that spawned it counts: the JVM's start is inside the deadline, not on top of it. Only the
 * kernel's 10 ms ticks (in which the process start is known) are allowed beyond.
 */
@Tag("process")
class CallDeadlineTest {
    private static final int TIMEOUT_MS = 2_000;
    /** Long enough that a JVM started on a loaded machine (1.5–2.7 s seen) still starts its call inside it. */
    private static final int BLACK_HOLE_TIMEOUT_MS = 5_000;
    private static final String TOKEN = "call-deadline-token-9e2d";

    private record Answered(JsonNode answer, long answerMs, int exit, long exitMs) {
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aOneShotCallAgainstABlackHoleAnswersDeadlineWithinItsTimeoutPlusStartUp() throws Exception {
        try (ServerSocket hole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> held = new CopyOnWriteArrayList<>();
            Thread.ofPlatform().daemon().name("black hole").start(() -> {
                try {
                    while (true) {
                        held.add(hole.accept()); // held open, never read, never answered
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            String root = "http://127.0.0.1:" + hole.getLocalPort() + "/";

            Answered late = call(root, "{\"command\":\"gmail.list-emails\",\"params\":{\"timeout_ms\":" + BLACK_HOLE_TIMEOUT_MS + "}}");
            long bound = BLACK_HOLE_TIMEOUT_MS * 110L / 100 + 20;
            String what = "call gmail.list-emails against a black hole, timeout_ms " + BLACK_HOLE_TIMEOUT_MS + ": answer after "
                    + late.answerMs() + " ms, exit after " + late.exitMs() + " ms; answer " + late.answer();
            System.err.println(what);
            assertThat(late.answer().path("status").asText()).as(what).isEqualTo("error");
            assertThat(late.answer().path("error").path("code").asText()).as(what).isEqualTo("deadline");
            String message = late.answer().path("error").path("message").asText();
            assertThat(message).as(what).contains(BLACK_HOLE_TIMEOUT_MS + " ms").doesNotContain(TOKEN);
            if (message.contains("before it could start")) {
                // the JVM's own start took the whole timeout (seen in CI with both cores busy: 2.7 s): no bound can hold
                // then, and the honest answer is this one, said at once, with the time it really took
                long said = Long.parseLong(message.replaceAll(".*exceeded after ([0-9]+) ms.*", "$1"));
                assertThat(said).as(what + ": the time it says").isBetween((long) BLACK_HOLE_TIMEOUT_MS, late.answerMs());
            } else {
                assertThat(late.answerMs()).as(what + ": at most timeout_ms × 1.10 + two ticks = " + bound + " ms")
                        .isLessThanOrEqualTo(bound);
            }
            assertThat(late.exit()).as(what + ": exit status").isEqualTo(7);
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /**
     * Issue 25, item 2: the launcher hands the in-process call its own start ({@code AGENT_TOOLS_CALL_STARTED_AT},
     * bash's $EPOCHREALTIME), and timeout_ms counts from there: a call started (by the launcher) 1.2 s before its JVM
     * answers deadline 1.2 s sooner, and says the true time. A value in the future or not a time is ignored.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theLaunchersStartIsWhereTimeoutMsCountsFrom() throws Exception {
        try (ServerSocket hole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> held = new CopyOnWriteArrayList<>();
            Thread.ofPlatform().daemon().name("black hole").start(() -> {
                try {
                    while (true) {
                        held.add(hole.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            String root = "http://127.0.0.1:" + hole.getLocalPort() + "/";
            String request = "{\"command\":\"gmail.list-emails\",\"params\":{\"timeout_ms\":" + TIMEOUT_MS + "}}";
            AgentToolsProcess.javaCommand("call"); // its one-time set-up (a class-data archive) before the clock starts
            Instant before = Instant.now().minusMillis(1_200);
            Answered early = call(root, request, Map.of(CallCommand.STARTED_AT, before.getEpochSecond() + "."
                    + String.format("%06d", before.getNano() / 1_000)));
            String what = "started 1.2 s before its JVM: answer after " + early.answerMs() + " ms: " + early.answer();
            assertThat(early.answer().path("error").path("code").asText()).as(what).isEqualTo("deadline");
            // the deadline it met is counted from the launcher's start, 1.2 s before the JVM's: the time it says is the
            // time since then, not since its own start (which, on a machine with both cores busy, can itself take
            // 1.5 s: how soon it answers is the JVM's start-up, not what this test checks)
            long said = Long.parseLong(early.answer().path("error").path("message").asText().replaceAll(".*exceeded after ([0-9]+) ms.*", "$1"));
            assertThat(said).as(what + ": the time it says, from the launcher's start").isBetween((long) TIMEOUT_MS, early.answerMs() + 1_200L + 50);
            // counted from its own start it would be at most 0; the answer's own writing, on a loaded machine, takes a
            // few hundred ms of the 1.2 s (seen: 976)
            assertThat(said - early.answerMs()).as(what + ": counted from 1.2 s before the JVM").isGreaterThanOrEqualTo(600L);

            for (String ignored : List.of("4102444800.000000", "soon", "1.5")) {
                Answered a = call(root, request, Map.of(CallCommand.STARTED_AT, ignored));
                assertThat(a.answerMs()).as("%s ignored: counted from the JVM's start", ignored).isGreaterThanOrEqualTo(TIMEOUT_MS - 20);
                assertThat(a.answer().path("error").path("code").asText()).isEqualTo("deadline");
            }
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void theServerTellsTheLauncherTheTimeoutTheCallWillHave() {
        assertThat(CallCommand.timeoutMillis("{\"command\":\"x\",\"params\":{\"timeout_ms\":2500}}".getBytes(StandardCharsets.UTF_8))).isEqualTo(2_500);
        assertThat(CallCommand.timeoutMillis("{\"command\":\"x\"}".getBytes(StandardCharsets.UTF_8))).isEqualTo(30_000);
        assertThat(CallCommand.timeoutMillis("{\"params\":{\"timeout_ms\":99}}".getBytes(StandardCharsets.UTF_8))).as("invalid: answered at once").isEqualTo(30_000);
        assertThat(CallCommand.timeoutMillis("not json".getBytes(StandardCharsets.UTF_8))).isEqualTo(30_000);
    }

    private static Answered call(String rootUrl, String request) throws Exception {
        return call(rootUrl, request, Map.of());
    }

    /**
     * Runs {@code call} with {@code request} on stdin and times, from the moment the process is started, its first line
     * on stdout (the answer) and its exit.
     */
    private static Answered call(String rootUrl, String request, Map<String, String> settings) throws Exception {
        ProcessBuilder b = new ProcessBuilder(AgentToolsProcess.javaCommand("call")).redirectError(ProcessBuilder.Redirect.DISCARD);
        Map<String, String> env = AgentToolsProcess.isolate(b.environment());
        env.put("AGENT_TOOLS_GMAIL_ROOT_URL", rootUrl);
        env.put("AGENT_TOOLS_ACCESS_TOKEN", TOKEN);
        env.put("AGENT_TOOLS_TRACKING_DB", AgentToolsProcess.TRACKING_DB.toString());
        env.putAll(settings);
        long start = System.nanoTime();
        Process p = b.start();
        var reader = Executors.newVirtualThreadPerTaskExecutor();
        try {
            try (OutputStream in = p.getOutputStream()) {
                in.write(request.getBytes(StandardCharsets.UTF_8));
            }
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            Future<String> line = reader.submit(out::readLine);
            String answer = line.get(60, TimeUnit.SECONDS);
            long answerMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(answer).as("an answer line from call " + request).isNotNull();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("call exits: " + request).isTrue();
            long exitMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            return new Answered(Json.MAPPER.readTree(answer), answerMs, p.exitValue(), exitMs);
        } finally {
            p.destroyForcibly(); // first: a reader still waiting on its stdout then sees the end and the executor can close
            reader.close();
        }
    }
}
