package dev.agenttools.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolProtocolTest;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JSON-lines loop in-process: every line answered, ids matched, long lines skipped, end of input drains, and no
 * more work admitted than the limits allow.
 */
class StdioServerTest {

    /** A tool whose calls all wait until released, counting how many run at once. */
    static final class HeldTool implements Tool {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();

        @Override
        public ToolSpec spec() {
            return new ToolSpec("test.held", "Waits until released.", Json.object().put("type", "object"), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) {
            started.incrementAndGet();
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
            return new ToolResult(Json.object(), Backend.SEQUENTIAL, 0);
        }
    }

    private static List<JsonNode> serve(byte[] input) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ToolProtocol protocol = new ToolProtocol(ToolRegistry.builder().tool(new ToolProtocolTest.EchoTool(null, 0)).build());
        new StdioServer(protocol, new ByteArrayInputStream(input), out).run();
        List<JsonNode> answers = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty()) {
                answers.add(Json.MAPPER.readTree(line));
            }
        }
        return answers;
    }

    @Test
    void answersEveryLineAndEchoesIds() throws Exception {
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            in.append("{\"id\": \"r").append(i).append("\", \"command\": \"test.echo\", \"params\": {\"n\": ").append(i).append("}}\n");
        }
        in.append("not json\n\n{\"id\": 999, \"command\": \"tools.list\"}"); // last line without a newline
        List<JsonNode> answers = serve(in.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(answers).hasSize(203);
        Set<String> ids = new HashSet<>();
        for (JsonNode a : answers) {
            if (a.has("id") && a.get("id").asText().startsWith("r")) {
                assertThat(a.get("data").get("n").asInt()).isEqualTo(Integer.parseInt(a.get("id").asText().substring(1)));
                ids.add(a.get("id").asText());
            }
        }
        assertThat(ids).hasSize(200);
        assertThat(answers.stream().filter(a -> a.get("status").asText().equals("error"))).hasSize(2);
    }

    @Test
    void skipsALineOverOneMegabyteAndGoesOn() throws Exception {
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(("{\"command\": \"test.echo\", \"params\": {\"big\": \"" + "x".repeat(2 * StdioServer.MAX_LINE_BYTES) + "\"}}\n")
                .getBytes(StandardCharsets.UTF_8));
        in.writeBytes("{\"id\": 1, \"command\": \"tools.list\"}\n".getBytes(StandardCharsets.UTF_8));
        List<JsonNode> answers = serve(in.toByteArray());
        assertThat(answers).hasSize(2);
        assertThat(answers).anySatisfy(a -> assertThat(a.path("error").path("message").asText()).contains("over 1048576 bytes"));
        assertThat(answers).anySatisfy(a -> assertThat(a.path("id").asInt()).isEqualTo(1));
    }

    @Test
    void answersOverloadedBeyondTheLimitsAndRunsTheRestLater() throws Exception {
        HeldTool held = new HeldTool();
        ToolProtocol protocol = new ToolProtocol(ToolRegistry.builder().tool(held).build());
        int requests = 500;
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < requests - 1; i++) {
            in.append("{\"id\": \"r").append(i).append("\", \"command\": \"test.held\", \"params\": {}}\n");
        }
        in.append("not json\n"); // beyond the limit too: answered overloaded, without an id
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StdioServer server = new StdioServer(protocol, new ByteArrayInputStream(in.toString().getBytes(StandardCharsets.UTF_8)), out,
                new StdioServer.Limits(4, 8));
        Thread serving = Thread.ofPlatform().start(() -> {
            try {
                server.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.overloaded() < requests - 12 && System.nanoTime() < waitUntil) {
            Thread.sleep(10);
        }
        assertThat(server.overloaded()).as("every request past 4 running and 8 queued").isEqualTo(requests - 12);
        assertThat(server.admitted()).isEqualTo(12);
        assertThat(held.started.get()).as("calls started while the first 4 hold their slots").isEqualTo(4);
        held.release.countDown();
        serving.join();
        assertThat(held.peak.get()).isEqualTo(4);
        assertThat(held.started.get()).isEqualTo(12);
        assertThat(server.admitted()).isZero();

        List<JsonNode> answers = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            answers.add(Json.MAPPER.readTree(line));
        }
        assertThat(answers).hasSize(requests);
        Set<String> ids = new HashSet<>();
        for (JsonNode a : answers) {
            if (a.has("id")) {
                assertThat(ids.add(a.get("id").asText())).as("one answer per id: %s", a).isTrue();
            }
        }
        assertThat(ids).hasSize(requests - 1);
        assertThat(answers).filteredOn(a -> a.path("status").asText().equals("ok")).hasSize(12);
        assertThat(answers).filteredOn(a -> a.path("error").path("code").asText().equals("overloaded")).hasSize(requests - 12)
                .allSatisfy(a -> assertThat(a.path("error").path("message").asText())
                        .contains("limit of 4 calls in flight and 8 queued", "AGENT_TOOLS_SERVE_MAX_IN_FLIGHT"));
    }

    @Test
    void findsTheIdOfARequestWithoutParsingItWhole() {
        assertThat(StdioServer.idOf("{\"params\": {\"id\": 5}, \"id\": \"x\"}").asText()).isEqualTo("x");
        assertThat(StdioServer.idOf("{\"id\": 12345678901234567890}").bigIntegerValue()).hasToString("12345678901234567890");
        assertThat(StdioServer.idOf("{\"id\": {\"a\": 1}}")).isNull();
        assertThat(StdioServer.idOf("[1]")).isNull();
        assertThat(StdioServer.idOf("{\"id\": ")).isNull();
    }
    @Test
    void aCallThatWaitedInTheQueuePastItsTimeoutIsAnsweredDeadlineWithoutRunning() throws Exception {
        HeldTool held = new HeldTool();
        ToolProtocol protocol = new ToolProtocol(ToolRegistry.builder().tool(held).build());
        PipedOutputStream feed = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(feed, 1 << 16);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StdioServer server = new StdioServer(protocol, in, out, new StdioServer.Limits(1, 4));
        Thread loop = Thread.ofVirtual().start(() -> {
            try {
                server.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        feed.write("{\"id\": 1, \"command\": \"test.held\"}\n{\"id\": 2, \"command\": \"test.held\", \"params\": {\"timeout_ms\": 200}}\n"
                .getBytes(StandardCharsets.UTF_8));
        feed.flush();
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (held.started.get() < 1 && System.nanoTime() < waitUntil) {
            Thread.sleep(5);
        }
        Thread.sleep(400); // call 2 waits in the queue past its 200 ms

        held.release.countDown();
        feed.close();
        loop.join(Duration.ofSeconds(20));

        List<JsonNode> answers = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            answers.add(Json.MAPPER.readTree(line));
        }
        assertThat(answers).hasSize(2);
        JsonNode second = answers.stream().filter(a -> a.get("id").asInt() == 2).findFirst().orElseThrow();
        assertThat(second.path("error").path("code").asText()).isEqualTo("deadline");
        assertThat(second.path("error").path("message").asText()).contains("waited its whole timeout before it could start");
        assertThat(held.started.get()).as("the late call never ran").isEqualTo(1);
    }
}
