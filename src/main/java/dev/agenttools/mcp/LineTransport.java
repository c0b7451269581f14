package dev.agenttools.mcp;

import dev.agenttools.serve.BoundedLines;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * MCP's stdio transport: newline-delimited JSON-RPC on an input and an output stream, for one session.
 *
 * <p>Replaces the SDK's {@code io.modelcontextprotocol.server.transport.StdioServerTransportProvider} (MCP Java SDK
 * 2.1.0), which has defects no configuration avoids, to be reported upstream: after one line that fails to parse
 * (or is too long) it stops reading for good, answers nothing (no -32700/-32600) and ignores end of input; requests
 * before {@code initialize} wait forever in {@code McpServerSession} for an exchange that never comes; and it hands
 * every message to one {@code flatMap} (at most 256 in flight), so a ping waits behind queued tool calls. The SDK
 * still does everything else: the session, initialization, tools/list, tools/call dispatch, the schemas.
 *
 * <p>What this transport guarantees: every line with a request gets exactly one answer (parse error -32700 and
 * invalid request -32600 with id null when the line has no usable id; -32601 and -32602 as JSON-RPC defines them);
 * notifications get none. Before {@code initialize} (and between it and {@code notifications/initialized}) requests
 * other than ping get -32600 "server not initialized" (the MCP spec defines no code for this, and MCP uses -32002
 * for "resource not found", so a JSON-RPC code is used); a second {@code initialize} gets -32600 too. Pings are answered by the reading thread itself; tool calls
 * run on virtual threads, at most {@link #CALL_SLOTS} at a time, and the reader stops taking new requests only
 * when the requests admitted but unanswered hold {@link #ADMITTED_BYTES} (back-pressure instead of unbounded
 * memory). At end of input it stops reading, finishes the calls in flight and returns from {@link #run}.
 *
 * <p>Thread safety: {@link #run} is called once, from one thread; answers are written whole, one line each, by
 * whichever thread has them, under a lock on the output.
 */
final class LineTransport implements McpServerTransportProvider {
    /** Longest line read; a longer one is skipped to its end and answered -32600. */
    static final int MAX_LINE_BYTES = 1 << 20;
    /** Tool calls running at once. */
    static final int CALL_SLOTS = 32;
    /** Bytes of request lines admitted but not yet answered (each request counts at least {@link #MIN_COST} bytes). */
    static final int ADMITTED_BYTES = 64 << 20;
    private static final int MIN_COST = 4096;

    private enum State { NEW, INITIALIZING, READY }

    private final McpJsonMapper sdkMapper;
    private final JsonMapper mapper;
    private final InputStream in;
    private final OutputStream out;
    private final Consumer<String> log;
    private final Semaphore admitted = new Semaphore(ADMITTED_BYTES);
    private final Semaphore callSlots = new Semaphore(CALL_SLOTS);
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    private McpServerSession session;
    private State state = State.NEW; // read and written by the reading thread only
    private volatile boolean outputGone;

    LineTransport(McpJsonMapper sdkMapper, JsonMapper mapper, InputStream in, OutputStream out, Consumer<String> log) {
        this.sdkMapper = sdkMapper;
        this.mapper = mapper;
        this.in = new BufferedInputStream(in, 64 * 1024);
        this.out = out;
        this.log = log;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        this.session = sessionFactory.create(new SessionTransport());
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return session == null ? Mono.empty() : session.sendNotification(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.empty(); // run() has already finished the calls in flight
    }

    /** Reads and answers until end of input, then waits for the calls in flight. */
    void run() throws IOException, InterruptedException {
        if (session == null) {
            throw new IllegalStateException("no MCP session: build the server on this transport first");
        }
        try (workers) {
            BoundedLines.SkipHandler tooLong = () -> writeError(null, Inbound.INVALID_REQUEST,
                    "invalid request: line over " + MAX_LINE_BYTES + " bytes; it was skipped");
            if (BoundedLines.read(in, MAX_LINE_BYTES, () -> false, this::accept, tooLong)) {
                tooLong.skipped(); // even a last line without its newline gets its answer
            }
        } // close() waits for the calls in flight
    }

    private void accept(byte[] line) throws InterruptedException {
        Inbound message = Inbound.of(line, mapper);
        try {
            dispatch(message, line.length);
        } catch (RuntimeException e) { // one line must never end the session: answer it and read on
            log.accept("mcp: a line could not be handled: " + e);
            if (message instanceof Inbound.Request r) {
                writeError(r.id(), Inbound.INTERNAL_ERROR, "internal error");
            }
        }
    }

    private void dispatch(Inbound message, int bytes) throws InterruptedException {
        switch (message) {
            case Inbound.Blank ignored -> {
            }
            case Inbound.Invalid invalid -> writeError(invalid.id(), invalid.code(), invalid.message());
            case Inbound.Response response -> response(response);
            case Inbound.Notification n -> notification(n);
            case Inbound.Request r -> request(r, bytes);
        }
    }

    private void response(Inbound.Response response) {
        McpSchema.JSONRPCResponse message;
        try {
            message = sdkMapper.convertValue(plain(response.message()), new TypeRef<McpSchema.JSONRPCResponse>() { });
        } catch (RuntimeException e) {
            log.accept("mcp: ignored a malformed response from the client: " + e.getMessage());
            return;
        }
        handleInline(message);
    }

    private void notification(Inbound.Notification n) {
        if (state == State.NEW) {
            log.accept("mcp: ignored " + n.method() + " before initialize");
            return;
        }
        if (state == State.INITIALIZING && !n.method().equals(McpSchema.METHOD_NOTIFICATION_INITIALIZED)) {
            log.accept("mcp: ignored " + n.method() + " before notifications/initialized");
            return;
        }
        // on this thread, so that the next request finds the session initialized
        handleInline(new McpSchema.JSONRPCNotification(n.method(), plain(n.params())));
        if (n.method().equals(McpSchema.METHOD_NOTIFICATION_INITIALIZED)) {
            state = State.READY;
        }
    }

    private void request(Inbound.Request r, int bytes) throws InterruptedException {
        String method = r.method();
        if (method.equals(McpSchema.METHOD_PING)) {
            writeLine(mapper.createObjectNode().put("jsonrpc", "2.0").set("id", r.id()).set("result", mapper.createObjectNode()));
            return;
        }
        if (method.equals(McpSchema.METHOD_INITIALIZE)) {
            initialize(r);
            return;
        }
        if (state != State.READY) {
            writeError(r.id(), Inbound.INVALID_REQUEST, "server not initialized: " + (state == State.NEW
                    ? "send initialize first (only ping is allowed before it)" : "send notifications/initialized first"));
            return;
        }
        if (method.equals(McpSchema.METHOD_TOOLS_CALL)) {
            McpSchema.CallToolRequest call = convert(r.params(), new TypeRef<>() { });
            if (call == null || call.name() == null) {
                writeError(r.id(), Inbound.INVALID_PARAMS,
                        "invalid params: tools/call needs {\"name\": string, \"arguments\": object}");
                return;
            }
        }
        McpSchema.JSONRPCRequest request = new McpSchema.JSONRPCRequest(method, plainId(r.id()), plain(r.params()));
        boolean toolCall = method.equals(McpSchema.METHOD_TOOLS_CALL);
        int cost = Math.min(ADMITTED_BYTES, Math.max(MIN_COST, bytes));
        admitted.acquire(cost); // back-pressure: stop reading while too much is admitted
        workers.execute(() -> {
            try {
                if (toolCall) {
                    callSlots.acquire();
                }
                try {
                    handleRequest(request, r.id());
                } finally {
                    if (toolCall) {
                        callSlots.release();
                    }
                }
            } catch (InterruptedException e) {
                writeError(r.id(), Inbound.INTERNAL_ERROR, "internal error: the server is shutting down");
                Thread.currentThread().interrupt();
            } finally {
                admitted.release(cost);
            }
        });
    }

    private void initialize(Inbound.Request r) {
        if (state != State.NEW) {
            writeError(r.id(), Inbound.INVALID_REQUEST, "invalid request: already initialized");
            return;
        }
        ObjectNode p = r.params();
        // the raw types first: Jackson would coerce a number into the version string
        boolean shaped = p != null && p.path("protocolVersion").isString() && p.path("capabilities").isObject()
                && p.path("clientInfo").path("name").isString();
        McpSchema.InitializeRequest init = shaped ? convert(p, new TypeRef<>() { }) : null;
        if (init == null || init.capabilities() == null || init.clientInfo() == null) {
            writeError(r.id(), Inbound.INVALID_PARAMS, "invalid params: initialize needs {\"protocolVersion\": string, "
                    + "\"capabilities\": object, \"clientInfo\": {\"name\": string, \"version\": string}}");
            return;
        }
        handleRequest(new McpSchema.JSONRPCRequest(r.method(), plainId(r.id()), plain(r.params())), r.id());
        state = State.INITIALIZING;
    }

    /** Runs the SDK's handling of a request on this thread; answers it if the SDK could not. */
    private void handleRequest(McpSchema.JSONRPCRequest request, JsonNode id) {
        try {
            session.handle(request).block();
        } catch (Throwable e) { // the session answers what it can; this is what escaped it, so nobody has answered
            log.accept("mcp: " + request.method() + " failed: " + e);
            writeError(id, Inbound.INTERNAL_ERROR, "internal error");
        }
    }

    private void handleInline(McpSchema.JSONRPCMessage message) {
        try {
            session.handle(message).block();
        } catch (RuntimeException e) {
            log.accept("mcp: handling a message failed: " + e);
        }
    }

    private <T> T convert(ObjectNode params, TypeRef<T> type) {
        if (params == null) {
            return null;
        }
        try {
            return sdkMapper.convertValue(plain(params), type);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private Map<String, Object> plain(ObjectNode node) {
        return node == null ? null : mapper.convertValue(node, new tools.jackson.core.type.TypeReference<>() { });
    }

    private static Object plainId(JsonNode id) {
        return id.isString() ? id.asString() : id.numberValue();
    }

    private void writeError(JsonNode id, int code, String message) {
        ObjectNode error = mapper.createObjectNode().put("code", code).put("message", message);
        ObjectNode answer = mapper.createObjectNode().put("jsonrpc", "2.0");
        answer.set("id", id == null ? mapper.nullNode() : id);
        answer.set("error", error);
        writeLine(answer);
    }

    private void writeLine(JsonNode answer) {
        write(mapper.writeValueAsString(answer));
    }

    private void write(String json) {
        byte[] bytes = (json + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
            if (outputGone) {
                return;
            }
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                outputGone = true; // the client went away: keep reading to end of input, answer nothing
                log.accept("mcp: cannot write to stdout (" + e.getMessage() + "); answers are dropped from now on");
            }
        }
    }

    /** The session's side: its answers go out as lines; internal errors lose their Java text. */
    private final class SessionTransport implements McpServerTransport {
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromRunnable(() -> {
                McpSchema.JSONRPCMessage sent = message;
                if (message instanceof McpSchema.JSONRPCResponse r && r.error() != null
                        && r.error().code() == Inbound.INTERNAL_ERROR) {
                    log.accept("mcp: internal error answering id " + r.id() + ": " + r.error().message());
                    sent = McpSchema.JSONRPCResponse.error(r.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                            Inbound.INTERNAL_ERROR, "internal error", null));
                }
                try {
                    write(sdkMapper.writeValueAsString(sent));
                } catch (IOException e) {
                    log.accept("mcp: cannot serialize an answer: " + e.getMessage());
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return sdkMapper.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }
    }
}
