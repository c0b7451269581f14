package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code call} and {@code serve --stdio} as separate processes against the emulator, the way agents use them. */
@Tag("process")
class CallAndServeTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(5)).jitter(Duration.ZERO)
                .quotaPerMinute(60_000_000).maxConcurrent(1_000).build());
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    private record Result(int exit, JsonNode answer, String raw) {
    }

    private static Result call(String request) throws Exception {
        Process p = AgentToolsProcess.start(emulator, "call");
        try (OutputStream in = p.getOutputStream()) {
            in.write(request.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), Json.MAPPER.readTree(out), out);
    }

    @Test
    void callAnswersTheArticlesProtocol() throws Exception {
        Result r = call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 3, \"agent_name\": \"test\"}}");
        assertThat(r.exit()).isZero();
        assertThat(r.raw().strip().lines()).hasSize(1);
        assertThat(r.answer().get("status").asText()).isEqualTo("ok");
        assertThat(r.answer().get("data").get("emails")).hasSize(3);
        assertThat(r.answer().get("meta").get("backend").asText()).isEqualTo("concurrent");
        assertThat(r.answer().get("meta").get("duration_ms").asDouble()).isPositive();
    }

    @Test
    void callListsToolsWithSchemas() throws Exception {
        Result r = call("{\"command\": \"tools.list\", \"params\": {}}");
        assertThat(r.exit()).isZero();
        assertThat(r.answer().get("data").findValuesAsText("command"))
                .containsExactly("tools.list", "gmail.list-emails", "gmail.search-emails", "gmail.get-email",
                        "calendar.list-calendars", "calendar.list-events", "calendar.get-event", "calendar.free-busy",
                        "habit.create", "habit.update", "habit.archive", "habit.restore", "habit.log", "habit.list", "habit.history");
    }

    @Test
    void callFailsWithANamedErrorAndANonZeroStatus() throws Exception {
        Result bad = call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 9999}}");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.answer().get("error").get("code").asText()).isEqualTo("invalid_argument");
        assertThat(bad.answer().get("error").get("message").asText()).contains("max_results must be 1..500, got 9999");
        Result missing = call("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}");
        assertThat(missing.exit()).isEqualTo(3);
        assertThat(missing.answer().get("error").get("code").asText()).isEqualTo("not_found");
        Result empty = call("");
        assertThat(empty.exit()).isEqualTo(2);
        assertThat(empty.answer().get("error").get("message").asText()).contains("no request on stdin");
        Result garbage = call("\u0001\u0002binary\u00ff");
        assertThat(garbage.exit()).isEqualTo(2);
        assertThat(garbage.raw()).doesNotContain("Exception");
    }

    @Test
    void callWritesNoStackTraceWhenAListFailsWithGetsInFlight() throws Exception {
        // every call takes 300 to 500 ms: when one get is refused or the deadline passes, the other gets are in
        // flight and are cancelled (their threads interrupted), which once printed the Google client's stack traces
        try (Emulator slow = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(400)).jitter(Duration.ofMillis(100))
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(1_000).build())) {
            String victim = Tools.builder().gmail(GmailSettings.forRoot(slow.rootUri().toString())).defaultAccessToken("t").build().call(ToolCall.of("gmail.list-emails",
                            (ObjectNode) Json.MAPPER.readTree("{\"max_results\": 40}")))
                    .data().get("emails").get(20).get("id").asText();
            Emulators.failGets(slow, victim, 401);

            for (String strategy : new String[] {"concurrent", "batch"}) {
                Traced refused = callTraced(slow, "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 40, "
                        + "\"strategy\": \"" + strategy + "\"}}");
                assertThat(refused.exit()).as(strategy).isEqualTo(4);
                assertNoStackTrace(refused.stderr());
            }
            Traced late = callTraced(slow, "{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 40, \"timeout_ms\": 700}}");
            assertThat(late.exit()).isEqualTo(7);
            assertNoStackTrace(late.stderr());
        }
    }

    private record Traced(int exit, String stdout, String stderr) {
    }

    /** Runs {@code call} with its stderr kept (the other tests discard it). */
    private static Traced callTraced(Emulator emulator, String request) throws Exception {
        Path err = Files.createTempFile("agent-tools-call-", ".stderr");
        try {
            Process p = AgentToolsProcess.builder(emulator, "call").redirectError(err.toFile()).start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(request.getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return new Traced(p.exitValue(), out, Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private static void assertNoStackTrace(String stderr) {
        assertThat(stderr).doesNotContain("\tat ").doesNotContain("Caused by:")
                .doesNotContainPattern("(?m)^[\\w.$]+(Exception|Error)\\b");
    }

    @Test
    void callNeverEchoesTheAccessToken() throws Exception {
        Result r = call("{\"command\": \"gmail.list-emails\", \"params\": {\"access_token\": 12345678}}");
        assertThat(r.raw()).doesNotContain("12345678");
    }

    /** Runs {@code args} with one setting changed and {@code stdin} as input; stdout and stderr together. */
    private static Result runWith(String variable, String value, String stdin, String... args) throws Exception {
        ProcessBuilder b = AgentToolsProcess.builder(emulator, args).redirectErrorStream(true);
        b.environment().put(variable, value);
        Process p = b.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException exitedBeforeReading) {
            // a process that refuses its settings may exit without reading stdin: its output is what counts
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), null, out);
    }

    @Test
    void callServeAndMcpRefuseAMalformedRootUrlAtStartUpNamingTheVariable() throws Exception {
        String list = "{\"id\": 1, \"command\": \"gmail.list-emails\", \"params\": {\"strategy\": \"batch\"}}\n";
        for (String[] args : new String[][] {{"call"}, {"serve", "--stdio"}, {"mcp"}}) {
            Result r = runWith("AGENT_TOOLS_GMAIL_ROOT_URL", "http://[::1/", list, args);
            assertThat(r.exit()).as(args[0]).isEqualTo(2);
            assertThat(r.raw()).as(args[0]).contains("AGENT_TOOLS_GMAIL_ROOT_URL must be an http(s) URL")
                    .contains("http://[::1/").doesNotContain("upstream").doesNotContain("falling back");
            assertNoStackTrace(r.raw());
        }
    }

    @Test
    void callAndServeRefuseAConfiguredTokenThatCannotBeAHeaderWithoutShowingIt() throws Exception {
        String list = "{\"id\": 1, \"command\": \"gmail.list-emails\", \"params\": {\"strategy\": \"batch\"}}\n";
        for (String[] args : new String[][] {{"call"}, {"serve", "--stdio"}}) {
            Result r = runWith("AGENT_TOOLS_ACCESS_TOKEN", "ya29.SECRET\n", list, args);
            assertThat(r.exit()).as(args[0]).isEqualTo(2);
            assertThat(r.raw()).as(args[0]).contains("AGENT_TOOLS_ACCESS_TOKEN is not an OAuth access token")
                    .doesNotContain("SECRET").doesNotContain("falling back");
        }
    }

    @Test
    void serveAnswersConcurrentRequestsByIdAndExitsAtEndOfInput() throws Exception {
        Process p = AgentToolsProcess.start(emulator, "serve", "--stdio");
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        OutputStream in = p.getOutputStream();
        int requests = 30;
        for (int i = 0; i < requests; i++) {
            String command = i % 3 == 0 ? "tools.list" : "gmail.list-emails";
            in.write(("{\"id\": " + i + ", \"command\": \"" + command + "\", \"params\": {\"max_results\": 2}}\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        in.write("this is not json\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
        Map<Integer, JsonNode> byId = new HashMap<>();
        int errors = 0;
        for (int i = 0; i < requests + 1; i++) {
            JsonNode a = Json.MAPPER.readTree(out.readLine());
            if (a.has("id")) {
                byId.put(a.get("id").asInt(), a);
            } else {
                errors++;
            }
        }
        assertThat(byId).hasSize(requests);
        assertThat(byId.values()).allSatisfy(a -> assertThat(a.get("status").asText()).isEqualTo("ok"));
        assertThat(errors).isEqualTo(1);
        in.close();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("exits at end of input").isTrue();
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void serveAnswersTheFirstCallsDeadlineWellBeforeASlowHandshakeCompletes() throws Exception {
        try (Emulator slowStart = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(5)).jitter(Duration.ZERO)
                .handshake(Duration.ofSeconds(5)).build())) {
            Process p = AgentToolsProcess.start(slowStart, "serve", "--stdio");
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            OutputStream in = p.getOutputStream();
            in.write("{\"id\": \"warm\", \"command\": \"tools.list\"}\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertThat(out.readLine()).contains("\"warm\""); // the JVM is up; the Gmail client is not made yet
            long start = System.nanoTime();
            in.write("{\"id\": \"first\", \"command\": \"gmail.list-emails\", \"params\": {\"timeout_ms\": 100}}\n"
                    .getBytes(StandardCharsets.UTF_8));
            in.flush();
            JsonNode answer = Json.MAPPER.readTree(out.readLine());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(answer.path("error").path("code").asText()).isEqualTo("deadline");
            // client set-up and the 5 s handshake are both inside the 100 ms: answered long before the handshake could
            // end (a call that waited for it would take 5 s; beside the whole suite a JVM was seen to stall 1.2 s)
            assertThat(took).isLessThan(Duration.ofMillis(2_500));
            in.close();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void serveFinishesCallsInFlightOnSigterm() throws Exception {
        try (Emulator slow = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(700)).jitter(Duration.ZERO).build())) {
            Process p = AgentToolsProcess.start(slow, "serve", "--stdio");
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            OutputStream in = p.getOutputStream();
            in.write("{\"id\": \"warm\", \"command\": \"tools.list\"}\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertThat(out.readLine()).contains("\"warm\"");
            in.write("{\"id\": \"slow\", \"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1}}\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            // Wait until the call has reached Gmail (the emulator holds it 700 ms), however slow the machine is
            long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (slow.counters().httpRequests() == 0 && System.nanoTime() < giveUp) {
                Thread.sleep(5);
            }
            assertThat(slow.counters().httpRequests()).as("the call reached the emulator").isPositive();
            // SIGTERM while the call is in flight (Process.destroy would also close our end of its pipes)
            new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
            String answer = out.readLine();
            assertThat(answer).contains("\"slow\"").contains("\"status\":\"ok\"");
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
