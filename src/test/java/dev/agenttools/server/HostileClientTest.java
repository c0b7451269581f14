package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.habit.HabitSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hostile client against {@code agent-tools server}, over real HTTP on raw sockets (forms java.net.http refuses to
 * send): every malformed form sent to {@code /mcp} and {@code /v1/call}, and every error Jetty finds itself, is answered
 * in our JSON envelope (JSON-RPC 2.0 with {@code id: null} on /mcp, the call protocol's elsewhere) with its own status,
 * and no answer shows a Java exception, a stack frame, a source file or a file path; an internal failure says what
 * failed in words, with an id that finds its detail in the server's log.
 */
class HostileClientTest {
    private static final String KEY = "hostile-test-key";
    private static final String TOKEN = "t";
    /** What no answer to a stranger may contain (issue 43's probe). */
    static final Pattern LEAK = Pattern.compile("Exception|at [a-z]+\\.|\\.java|/tmp/|/home/");
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String MCP_INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static ToolRegistry registry;
    private static HttpService service;
    private static final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private static PrintStream originalErr;

    /** The read timeout a stalled body waits out (the idle timeout, 120 s by default): short, so the test is. */
    private static final HttpService.Limits STALL_READ_TIMEOUT = new HttpService.Limits(HttpService.Limits.DEFAULT.userRate(),
            HttpService.Limits.DEFAULT.addressRate(), HttpService.Limits.DEFAULT.headerTimeout(), Duration.ofSeconds(5),
            HttpService.Limits.DEFAULT.maxConnections(), HttpService.Limits.DEFAULT.maxConnectionsPerAddress(), List.of(),
            HttpService.Limits.DEFAULT.metricsHosts());

    @BeforeAll
    static void start() throws Exception {
        originalErr = System.err;
        System.setErr(new PrintStream(new Tee(originalErr, stderr), true, StandardCharsets.UTF_8));
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).token(TOKEN).build());
        Path keys = dir.resolve("keys");
        Files.writeString(keys, ServiceKeys.hash(KEY) + "\n");
        // the internal failure: a habit store file that is not a database
        Path habits = dir.resolve("habits.db");
        Files.writeString(habits, "this is not a SQLite database, but a file someone wrote here\n".repeat(40));
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 100, 100,
                HttpService.Options.DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(5), keys, null, Set.of(),
                List.of(emulator.rootUri())).withLimits(STALL_READ_TIMEOUT);
        HttpService.Metrics metrics = HttpService.Metrics.create(options);
        registry = Tools.builder().rootUrl(emulator.rootUri().toString()).habit(new HabitSettings(habits, null, false).forManyUsers())
                .noTokenMessage("no Google access token").listener(metrics).build();
        service = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "test", options, () -> null);
    }

    @AfterAll
    static void stop() {
        System.setErr(originalErr);
        service.close();
        registry.close();
    }

    /** Which envelope an answer must be in. */
    private enum Envelope { JSON_RPC, CALL }

    /**
     * One malformed form and what it must get.
     *
     * @param code the JSON-RPC error code (an Integer), or the call protocol's error code (a String)
     */
    private record Form(String name, byte[] bytes, boolean stall, int status, Envelope envelope, Object code) {
    }

    private static final Map<String, String> MCP_HEADERS = headers("Authorization", "Bearer " + KEY,
            "X-Google-Access-Token", TOKEN, "Accept", "application/json, text/event-stream", "Content-Type", "application/json");
    private static final Map<String, String> CALL_HEADERS = headers("Authorization", "Bearer " + KEY,
            "X-Google-Access-Token", TOKEN, "Content-Type", "application/json");

    private static Map<String, String> headers(String... pairs) {
        Map<String, String> h = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            h.put(pairs[i], pairs[i + 1]);
        }
        return h;
    }

    /** A POST of {@code body} with the endpoint's usual headers, changed by {@code changes} (a null value drops one). */
    private static byte[] post(String target, Map<String, String> base, String body, String... changes) {
        Map<String, String> h = new LinkedHashMap<>(base);
        for (int i = 0; i < changes.length; i += 2) {
            if (changes[i + 1] == null) {
                h.remove(changes[i]);
            } else {
                h.put(changes[i], changes[i + 1]);
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("POST " + target + " HTTP/1.1");
        lines.add("Host: 127.0.0.1");
        h.forEach((k, v) -> lines.add(k + ": " + v));
        if (!h.containsKey("Transfer-Encoding")) {
            lines.add("Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length);
        }
        lines.add("Connection: close");
        return RawHttp.request(body, lines.toArray(String[]::new));
    }

    /** {"command": "\xff\xfe"}: bytes that are not UTF-8. */
    private static final byte[] NOT_UTF_8 = {'{', '"', 'c', 'o', 'm', 'm', 'a', 'n', 'd', '"', ':', '"', (byte) 0xff, (byte) 0xfe, '"', '}'};

    private static String nested(int levels) {
        return "[".repeat(levels) + "]".repeat(levels);
    }

    private static String chunked(String body) {
        return Integer.toHexString(body.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + body + "\r\n0\r\n\r\n";
    }

    /**
     * The forms for MCP at {@code target} with {@code h} as the usual headers (its Authorization the caller's), the
     * deep ones nested {@code levels} deep (under the server's body limit).
     */
    private static List<Form> mcpForms(String target, Map<String, String> h, int levels) {
        String auth = "Authorization: " + h.get("Authorization");
        String deep = nested(levels);
        String huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\""
                + "x".repeat(2 * HttpService.Options.DEFAULT_MAX_BODY_BYTES) + "\"}}";
        Envelope e = Envelope.JSON_RPC;
        return List.of(
                new Form("not JSON", post(target, h, "not json{"), false, 400, e, -32700),
                new Form("truncated JSON", post(target, h, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "), false, 400, e, -32700),
                new Form("empty body", post(target, h, ""), false, 400, e, -32700),
                new Form("JSON array (a batch)", post(target, h, "[" + MCP_INIT + "]"), false, 400, e, -32600),
                new Form("empty array", post(target, h, "[]"), false, 400, e, -32600),
                new Form("a JSON string", post(target, h, "\"tools/list\""), false, 400, e, -32600),
                new Form("nested " + levels + " levels", post(target, h, deep), false, 400, e, -32600),
                new Form("params nested " + levels + " levels", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                        + "\"tools/call\",\"params\":{\"name\":\"list_emails\",\"arguments\":{\"x\":" + deep + "}}}"), false, 400, e, -32600),
                new Form("over the body limit", post(target, h, huge), false, 413, e, -32600),
                new Form("over the body limit, chunked", post(target, h, chunked(huge), "Transfer-Encoding", "chunked"),
                        false, 413, e, -32600),
                new Form("Content-Type text/plain", post(target, h, MCP_INIT, "Content-Type", "text/plain"), false, 415, e, -32600),
                new Form("no Content-Type", post(target, h, MCP_INIT, "Content-Type", null), false, 415, e, -32600),
                new Form("Accept: application/json alone", post(target, h, MCP_INIT, "Accept", "application/json"),
                        false, 406, e, -32600),
                new Form("no Accept", post(target, h, MCP_INIT, "Accept", null), false, 406, e, -32600),
                new Form("jsonrpc 1.0", post(target, h, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"tools/list\"}"), false, 400, e, -32600),
                new Form("no jsonrpc", post(target, h, "{\"id\":1,\"method\":\"tools/list\"}"), false, 400, e, -32600),
                new Form("no method", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1}"), false, 400, e, -32600),
                new Form("method a number", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}"), false, 400, e, -32600),
                new Form("id an object", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/list\"}"), false, 400, e, -32600),
                new Form("a key twice", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"method\":\"x\"}"),
                        false, 400, e, -32600),
                new Form("unknown method", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no/such\"}"), false, 200, e, -32601),
                new Form("params a string", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":\"x\"}"),
                        false, 400, e, -32600),
                new Form("tools/call params of the wrong types", post(target, h,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":5,\"arguments\":\"x\"}}"), false, 200, e, -32602),
                new Form("tools/call of no such tool", post(target, h,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\",\"arguments\":{}}}"), false, 200, e, -32602),
                new Form("initialize params of the wrong types", post(target, h,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":[1],\"capabilities\":5}}"), false, 200, e, -32602),
                new Form("initialize without params", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}"),
                        false, 200, e, -32602),
                new Form("tools/call without params", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}"),
                        false, 200, e, -32602),
                new Form("a response, not a request", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"), false, 400, e, -32600),
                new Form("GET", RawHttp.request("", "GET " + target + " HTTP/1.1", "Host: 127.0.0.1", auth,
                        "Accept: text/event-stream", "Connection: close"), false, 405, e, -32600),
                new Form("DELETE", RawHttp.request("", "DELETE " + target + " HTTP/1.1", "Host: 127.0.0.1", auth,
                        "Connection: close"), false, 405, e, -32600),
                new Form("a charset other than UTF-8", post(target, h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\u00ff\u00fe\"}",
                        "Content-Type", "application/json; charset=ISO-8859-1"), false, 415, e, -32600),
                new Form("a body that is not UTF-8", RawHttp.request(NOT_UTF_8, "POST " + target + " HTTP/1.1", "Host: 127.0.0.1",
                        auth, "Accept: application/json, text/event-stream", "Content-Type: application/json",
                        "Content-Length: " + NOT_UTF_8.length, "Connection: close"), false, 400, e, -32700),
                new Form("a chunked body that stalls", RawHttp.request("5\r\n{\"jso", "POST " + target + " HTTP/1.1", "Host: 127.0.0.1",
                        auth, "Accept: application/json, text/event-stream", "Content-Type: application/json",
                        "Transfer-Encoding: chunked"), true, 408, e, -32600),
                new Form("a bad chunk size", post(target, h, "zz\r\n{}\r\n0\r\n\r\n", "Transfer-Encoding", "chunked"),
                        false, 400, e, null));
    }

    private static List<Form> callForms() {
        String deep = nested(100_000);
        String huge = "{\"command\":\"tools.list\",\"params\":{\"agent_name\":\"" + "x".repeat(2 * HttpService.Options.DEFAULT_MAX_BODY_BYTES) + "\"}}";
        Envelope e = Envelope.CALL;
        String bad = "invalid_argument";
        return List.of(
                new Form("not JSON", post("/v1/call", CALL_HEADERS, "not json{"), false, 400, e, bad),
                new Form("empty body", post("/v1/call", CALL_HEADERS, ""), false, 400, e, bad),
                new Form("JSON array", post("/v1/call", CALL_HEADERS, "[{\"command\":\"tools.list\"}]"), false, 400, e, bad),
                new Form("a JSON string", post("/v1/call", CALL_HEADERS, "\"tools.list\""), false, 400, e, bad),
                new Form("nested 100,000 levels", post("/v1/call", CALL_HEADERS, deep), false, 400, e, bad),
                new Form("params nested 100,000 levels", post("/v1/call", CALL_HEADERS,
                        "{\"command\":\"gmail.list-emails\",\"params\":{\"x\":" + deep + "}}"), false, 400, e, bad),
                new Form("over the body limit", post("/v1/call", CALL_HEADERS, huge), false, 413, e, bad),
                new Form("over the body limit, chunked", post("/v1/call", CALL_HEADERS, chunked(huge), "Transfer-Encoding", "chunked"),
                        false, 413, e, bad),
                new Form("no command", post("/v1/call", CALL_HEADERS, "{\"id\":1}"), false, 400, e, bad),
                new Form("unknown command", post("/v1/call", CALL_HEADERS, "{\"command\":\"no.such\"}"), false, 400, e, bad),
                new Form("a JSON-RPC request", post("/v1/call", CALL_HEADERS, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"tools/list\"}"),
                        false, 400, e, bad),
                new Form("params a string", post("/v1/call", CALL_HEADERS, "{\"command\":\"gmail.list-emails\",\"params\":\"x\"}"), false, 400, e, bad),
                new Form("a param of the wrong type", post("/v1/call", CALL_HEADERS,
                        "{\"command\":\"gmail.list-emails\",\"params\":{\"max_results\":\"many\"}}"), false, 400, e, bad),
                new Form("a body that is not UTF-8", RawHttp.request(NOT_UTF_8, "POST /v1/call HTTP/1.1", "Host: 127.0.0.1",
                        "Authorization: Bearer " + KEY, "Content-Length: " + NOT_UTF_8.length, "Connection: close"), false, 400, e, bad),
                new Form("GET", RawHttp.request("", "GET /v1/call HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer " + KEY,
                        "Connection: close"), false, 405, e, bad),
                new Form("a chunked body that stalls", RawHttp.request("5\r\n{\"com", "POST /v1/call HTTP/1.1", "Host: 127.0.0.1",
                        "Authorization: Bearer " + KEY, "Content-Type: application/json", "Transfer-Encoding: chunked"), true, 408, e, bad),
                new Form("a bad chunk size", post("/v1/call", CALL_HEADERS, "zz\r\n{}\r\n0\r\n\r\n", "Transfer-Encoding", "chunked"),
                        false, 400, e, bad));
    }

    /** What Jetty itself refuses, before any handler of ours runs. */
    private static List<Form> jettyForms() {
        List<Form> forms = new ArrayList<>();
        for (String target : List.of("/v1/%2e%2e/call", "/%2F", "/v1%2Fcall", "/v1/call%", "/v1/call%zz", "/v1/call%00")) {
            forms.add(new Form("URI " + target, post(target, CALL_HEADERS, "{\"command\":\"tools.list\"}"), false, 400, Envelope.CALL, "invalid_argument"));
        }
        // a target Jetty cannot read at all (a bad %-escape) leaves no path to tell /mcp by: the call protocol's error
        for (String target : List.of("/mcp%", "/mcp%zz", "/mcp%00")) {
            forms.add(new Form("URI " + target, post(target, MCP_HEADERS, MCP_INIT), false, 400, Envelope.CALL, "invalid_argument"));
        }
        for (String target : List.of("/mcp%2F", "/mcp/%2e%2e/v1/call", "/mcp/%2e%2e")) {
            forms.add(new Form("URI " + target, post(target, MCP_HEADERS, MCP_INIT), false, 400, Envelope.JSON_RPC, -32600));
        }
        forms.add(new Form("headers over the limit on /v1/call", post("/v1/call", CALL_HEADERS, "{}", "X-Big", "x".repeat(20_000)),
                false, 431, Envelope.CALL, "invalid_argument"));
        forms.add(new Form("headers over the limit on /mcp", post("/mcp", MCP_HEADERS, MCP_INIT, "X-Big", "x".repeat(20_000)),
                false, 431, Envelope.JSON_RPC, -32600));
        forms.add(new Form("a request line of three words and more", RawHttp.request("", "POST /v1/call HTTP/1.1 extra", "Host: x"),
                false, 400, Envelope.CALL, "invalid_argument"));
        forms.add(new Form("not HTTP at all", "HELLO\r\n\r\n".getBytes(StandardCharsets.US_ASCII), false, 400, Envelope.CALL, "invalid_argument"));
        forms.add(new Form("HTTP/9.9", RawHttp.request("", "GET /v1/call HTTP/9.9", "Host: x"), false, 505, Envelope.CALL, "invalid_argument"));
        forms.add(new Form("a header line without a colon", RawHttp.request("", "GET /healthz HTTP/1.1", "Host: x", "no colon here"),
                false, 400, Envelope.CALL, "invalid_argument"));
        forms.add(new Form("a URI over the limit", RawHttp.request("", "GET /v1/" + "x".repeat(20_000) + " HTTP/1.1", "Host: x"),
                false, 414, Envelope.CALL, "invalid_argument"));
        return forms;
    }

    /** Sends every form at once (the stalled ones wait out the server's read timeout), then checks every answer. */
    private static void assertAnsweredInEnvelope(int port, List<Form> forms) throws Exception {
        List<Future<RawHttp.Answer>> answers = new ArrayList<>();
        try (ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Form f : forms) {
                answers.add(senders.submit(() -> RawHttp.exchange(port, f.bytes(), f.stall(),
                        f.stall() ? Duration.ofMinutes(3) : WAIT)));
            }
        }
        SoftAssertions soft = new SoftAssertions();
        for (int i = 0; i < forms.size(); i++) {
            Form f = forms.get(i);
            RawHttp.Answer a;
            try {
                a = answers.get(i).get();
            } catch (ExecutionException ex) {
                soft.fail(f.name() + ": no answer: " + ex.getCause());
                continue;
            }
            String as = f.name() + " -> " + a.raw().substring(0, Math.min(a.raw().length(), 2_000));
            Matcher leak = LEAK.matcher(a.raw());
            soft.assertThat(leak.find()).as(as + "\nshows Java or a path: " + (leak.hitEnd() ? "" : leak.group())).isFalse();
            soft.assertThat(a.status()).as(as).isEqualTo(f.status());
            soft.assertThat(a.header("content-type")).as(as).startsWith("application/json");
            JsonNode json;
            try {
                json = Json.MAPPER.readTree(a.body());
            } catch (Exception ex) {
                soft.fail(as + "\nis not JSON");
                continue;
            }
            if (f.envelope() == Envelope.JSON_RPC) {
                soft.assertThat(json.path("jsonrpc").asText()).as(as).isEqualTo("2.0");
                soft.assertThat(json.has("id")).as(as + ": has an id").isTrue();
                soft.assertThat(json.path("error").path("message").isTextual()).as(as).isTrue();
                soft.assertThat(json.has("result")).as(as).isFalse();
                if (f.code() != null) {
                    soft.assertThat(json.path("error").path("code").asInt()).as(as).isEqualTo(f.code());
                } else {
                    soft.assertThat(json.path("error").path("code").isInt()).as(as).isTrue();
                }
            } else {
                soft.assertThat(json.path("status").asText()).as(as).isEqualTo("error");
                soft.assertThat(json.path("error").path("code").asText()).as(as).isEqualTo(f.code());
                soft.assertThat(json.path("error").path("message").isTextual()).as(as).isTrue();
            }
        }
        soft.assertAll();
    }

    @Test
    void everyMalformedFormOnMcpIsAJsonRpcErrorOfTheRightCodeAndStatus() throws Exception {
        assertAnsweredInEnvelope(service.port(), mcpForms("/mcp", MCP_HEADERS, 100_000).stream().filter(f -> !f.stall()).toList());
    }

    @Test
    void everyMalformedFormOnV1CallIsTheCallProtocolsErrorOfTheRightStatus() throws Exception {
        assertAnsweredInEnvelope(service.port(), callForms().stream().filter(f -> !f.stall()).toList());
    }

    /** Both endpoints' at once: each waits out the server's read timeout (Jetty's idle timeout), before a 408. */
    @Test
    void aChunkedBodyThatStallsIs408InTheEndpointsEnvelopeAfterTheReadTimeout() throws Exception {
        List<Form> stalled = new ArrayList<>();
        stalled.addAll(mcpForms("/mcp", MCP_HEADERS, 1).stream().filter(Form::stall).toList());
        stalled.addAll(callForms().stream().filter(Form::stall).toList());
        assertThat(stalled).hasSize(2);
        assertAnsweredInEnvelope(service.port(), stalled);
    }

    @Test
    void whatJettyRefusesItselfIsOurEnvelopeNeverItsPage() throws Exception {
        assertAnsweredInEnvelope(service.port(), jettyForms());
    }

    @Test
    void withMcpAuthorizationUnderAPathPrefixTheSameFormsGetTheSameAnswers() throws Exception {
        Emulator google = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(1).seedMessages(5).build());
        try (OAuthServer oauth = new OAuthServer(google, OAuthServer.settings(google, URI.create("http://127.0.0.1:0/agent-tools/"),
                dir.resolve("oauth.db")))) {
            OAuthClient.Tokens tokens = OAuthClient.register(URI.create(oauth.base + "/agent-tools")).signIn("me@example.com");
            Map<String, String> h = headers("Authorization", "Bearer " + tokens.access(), "Accept",
                    "application/json, text/event-stream", "Content-Type", "application/json");
            List<Form> forms = new ArrayList<>();
            for (String target : List.of("/mcp", "/agent-tools/mcp")) {
                // the stalled body waits out the read timeout: a test of its own has it; 10,000 levels: the body limit is 64 KiB
                forms.addAll(mcpForms(target, h, 10_000).stream().filter(f -> !f.stall()).toList());
            }
            for (String target : List.of("/agent-tools/mcp%2F", "/agent-tools/mcp/%2e%2e/v1/call")) {
                forms.add(new Form("URI " + target, post(target, h, MCP_INIT), false, 400, Envelope.JSON_RPC, -32600));
            }
            forms.add(new Form("URI /agent-tools/v1%2Fcall", post("/agent-tools/v1%2Fcall", CALL_HEADERS, "{}"), false, 400,
                    Envelope.CALL, "invalid_argument"));
            assertAnsweredInEnvelope(oauth.service.port(), forms);
        }
    }

    @Test
    void anInternalFailureSaysWhatFailedAndLeavesItsDetailUnderItsIdInTheServersLog() throws Exception {
        RawHttp.Answer call = RawHttp.exchange(service.port(), post("/v1/call", CALL_HEADERS, "{\"command\":\"habit.list\"}"), false, WAIT);
        assertThat(call.status()).as(call.raw()).isEqualTo(500);
        JsonNode error = Json.MAPPER.readTree(call.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo("internal");
        String message = error.path("message").asText();
        RawHttp.Answer mcp = RawHttp.exchange(service.port(), post("/mcp", MCP_HEADERS, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
                + "\"tools/call\",\"params\":{\"name\":\"list_habits\",\"arguments\":{}}}"), false, WAIT);
        assertThat(mcp.status()).as(mcp.raw()).isEqualTo(200);
        JsonNode result = Json.MAPPER.readTree(mcp.body()).path("result");
        assertThat(result.path("isError").asBoolean()).as(mcp.body()).isTrue();
        String text = result.path("content").path(0).path("text").asText();
        for (String said : List.of(message, text)) {
            assertThat(said).as("what the caller is told").doesNotContainPattern(LEAK).doesNotContain(dir.toString())
                    .doesNotContain("SQLITE").doesNotContain("habits.db").contains("habit store");
            Matcher id = Pattern.compile("error id ([0-9a-f]{16})").matcher(said);
            assertThat(id.find()).as(said + ": carries the id of its log line").isTrue();
            // the operator finds the whole detail, the file and SQLite's words, under that id
            assertThat(stderr.toString(StandardCharsets.UTF_8)).containsPattern(Pattern.quote(id.group(1)) + ".*"
                    + Pattern.quote(dir.resolve("habits.db").toString()) + ".*SQLITE_NOTADB");
        }
        assertThat(text).startsWith("internal: ");
        // on the user's own machine (call, serve, mcp over stdio) the same failure keeps its detail: it is their own file
        String local = new ToolProtocol(registry, Tools.SHORT_NAMES)
                .answer("{\"command\":\"habit.list\"}", System.nanoTime(), TOKEN).line();
        assertThat(local).contains(dir.resolve("habits.db").toString()).contains("SQLITE_NOTADB").doesNotContain("error id");
        assertThat(mcp.raw()).doesNotContainPattern(LEAK);
        assertThat(call.raw()).doesNotContainPattern(LEAK);
    }

    /** Copies what is written to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            synchronized (b) {
                b.write(c);
            }
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws IOException {
            a.write(bytes, off, len);
            synchronized (b) {
                b.write(bytes, off, len);
            }
        }
    }
}
