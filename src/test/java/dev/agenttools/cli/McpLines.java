package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.tool.Json;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real {@code agent-tools mcp} process spoken to in raw lines, for what an SDK client never sends. Answers are
 * read on their own thread, so a server that stops answering fails the test (after a generous wait) instead of
 * hanging it.
 */
final class McpLines implements AutoCloseable {
    static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";
    static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    private static final long WAIT_SECONDS = 60;
    private static final JsonNode END = Json.object();

    private final Process process;
    private final OutputStream in;
    private final BlockingQueue<JsonNode> answers = new LinkedBlockingQueue<>();

    McpLines(Emulator emulator) throws IOException {
        process = AgentToolsProcess.start(emulator, "mcp");
        in = process.getOutputStream();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    answers.add(Json.MAPPER.readTree(line));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                answers.add(END);
            }
        });
    }

    /** Starts a process and takes it through initialize and notifications/initialized. */
    static McpLines initialized(Emulator emulator) throws IOException, InterruptedException {
        McpLines mcp = new McpLines(emulator);
        mcp.send(INITIALIZE);
        assertThat(mcp.next().get("result").get("serverInfo").get("name").asText()).isEqualTo("agent-tools");
        mcp.send(INITIALIZED);
        return mcp;
    }

    McpLines send(String... lines) throws IOException {
        for (String line : lines) {
            sendBytes(line.getBytes(StandardCharsets.UTF_8));
        }
        return this;
    }

    McpLines sendBytes(byte[] line) throws IOException {
        in.write(line);
        in.write('\n');
        in.flush();
        return this;
    }

    /** The next answer; fails if none comes within a minute or the output ends. */
    JsonNode next() throws InterruptedException {
        JsonNode answer = answers.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(answer).as("an answer within %d s", WAIT_SECONDS).isNotNull();
        assertThat(answer).as("an answer before the output ended").isNotSameAs(END);
        return answer;
    }

    /** Closes the server's input and returns its exit status; fails if it does not exit within a minute. */
    int endInput() throws IOException, InterruptedException {
        in.close();
        assertThat(process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).as("the server exits at end of input").isTrue();
        return process.exitValue();
    }

    /** The answers left once the output has ended (call after {@link #endInput}). */
    List<JsonNode> rest() throws InterruptedException {
        List<JsonNode> rest = new ArrayList<>();
        JsonNode a;
        while ((a = answers.poll(WAIT_SECONDS, TimeUnit.SECONDS)) != null && a != END) {
            rest.add(a);
        }
        return rest;
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
