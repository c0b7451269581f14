package dev.agenttools.serve;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The persistent JSON-lines mode: one request per input line, one answer per output line, each request on its
 * own virtual thread (answers may come out of order; the {@code id} matches them). A bad line (an empty one
 * included) gets an error answer and the server goes on; a line over the limit is skipped to its end and answered.
 * At end of input (or {@link #stop}) it finishes the calls admitted, then returns.
 *
 * <p>Admission control: at most {@link Limits#maxInFlight} calls run at once and at most {@link Limits#maxQueued}
 * more wait for a slot, in arrival order; their request text together stays under {@link #MAX_ADMITTED_CHARS}.
 * A request beyond that is answered at once with {@code overloaded} and not run. We answer rather than stop reading
 * stdin (back-pressure) because the agent then learns at once that it should slow down (like HTTP 503) instead of
 * seeing its calls hang in a pipe where no deadline applies, and a bad line or end of input is still seen at once.
 * The reader writes the overloaded answers itself, so a client that does not read its answers stops the reading too
 * (once the stdout pipe is full): memory stays bounded either way.
 * A slot is freed before the call's answer is written, so a client that sends a new request for each answer it gets
 * never meets {@code overloaded}.
 *
 * <p>Thread safety: {@link #run} is called once, from one thread (the only one that admits requests);
 * {@link #stop}, {@link #drain} and the counters may be called from any thread.
 */
public final class StdioServer {
    public static final int MAX_LINE_BYTES = 1 << 20;
    /** Request text held by admitted calls (running or queued), in chars: 32 Mi (32 MiB of heap for ASCII, 64 MiB at most). */
    public static final long MAX_ADMITTED_CHARS = 32L << 20;

    /**
     * How much work the server admits.
     *
     * @param maxInFlight calls running at once, 1..10,000
     * @param maxQueued   calls waiting for a running slot, 0..100,000; beyond them requests are answered {@code overloaded}
     */
    public record Limits(int maxInFlight, int maxQueued) {
        public static final int DEFAULT_MAX_IN_FLIGHT = 32;
        public static final int DEFAULT_MAX_QUEUED = 256;
        public static final Limits DEFAULT = new Limits(DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_QUEUED);

        public Limits {
            if (maxInFlight < 1 || maxInFlight > 10_000) {
                throw new IllegalArgumentException("max in flight must be 1..10000, got " + maxInFlight);
            }
            if (maxQueued < 0 || maxQueued > 100_000) {
                throw new IllegalArgumentException("max queued must be 0..100000, got " + maxQueued);
            }
        }
    }

    private final ToolProtocol protocol;
    private final InputStream in;
    private final OutputStream out;
    private final Limits limits;
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    /** Admitted calls not started yet, oldest first: one per worker task, taken by the task that gets a slot. */
    private final ConcurrentLinkedQueue<Arrived> arrived = new ConcurrentLinkedQueue<>();
    /** Running slots. */
    private final Semaphore running;
    /** Calls admitted and not yet answered (running plus queued), and the request text they hold. */
    private final AtomicInteger admitted = new AtomicInteger();
    private final AtomicLong admittedChars = new AtomicLong();
    private final AtomicLong overloaded = new AtomicLong();
    private volatile boolean stopping;

    public StdioServer(ToolProtocol protocol, InputStream in, OutputStream out) {
        this(protocol, in, out, Limits.DEFAULT);
    }

    public StdioServer(ToolProtocol protocol, InputStream in, OutputStream out, Limits limits) {
        this.protocol = protocol;
        this.in = new BufferedInputStream(in, 64 * 1024);
        this.out = out;
        this.limits = limits;
        this.running = new Semaphore(limits.maxInFlight(), true);
    }

    /** Serves until end of input; returns once every answer is written. */
    public void run() throws IOException, InterruptedException {
        // an over-long last line without its newline is dropped unanswered, as before: no request reached us
        BoundedLines.read(in, MAX_LINE_BYTES, () -> stopping,
                bytes -> dispatch(new String(bytes, StandardCharsets.UTF_8)),
                () -> write(ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT,
                        "request line over " + MAX_LINE_BYTES + " bytes (1 MB); it was skipped").line()));
        workers.shutdown();
        workers.awaitTermination(10, TimeUnit.MINUTES);
        out.flush();
    }

    /** Waits for the calls admitted (for a shutdown hook). */
    public void drain(long timeout, TimeUnit unit) throws InterruptedException {
        stopping = true;
        workers.shutdown();
        workers.awaitTermination(timeout, unit);
    }

    /** Requests answered {@code overloaded} without being run. */
    public long overloaded() {
        return overloaded.get();
    }

    /** Calls admitted and not yet answered: running plus queued. */
    public int admitted() {
        return admitted.get();
    }

    private void dispatch(String request) {
        long chars = request.length();
        // Only this (reader) thread admits, so checking then counting cannot overshoot.
        if (admitted.get() >= limits.maxInFlight() + limits.maxQueued() || admittedChars.get() + chars > MAX_ADMITTED_CHARS) {
            overloaded.incrementAndGet();
            write(ToolProtocol.error(idOf(request), ToolException.Kind.OVERLOADED, overloadMessage()).line());
            return;
        }
        admitted.incrementAndGet();
        admittedChars.addAndGet(chars);
        // the call's timeout_ms counts its time in the queue too
        arrived.add(new Arrived(request, chars, System.nanoTime()));
        workers.execute(() -> {
            Arrived call = null;
            String answer;
            try {
                running.acquire(); // the queue: wait here for a running slot
                try {
                    // whichever worker gets a slot runs the oldest call that arrived: workers reach the semaphore in
                    // no set order, and calls must start in the order they came
                    call = arrived.poll();
                    answer = protocol.answer(call.request().strip(), call.received()).line();
                } finally {
                    running.release();
                }
            } catch (InterruptedException e) {
                call = call != null ? call : arrived.poll();
                answer = ToolProtocol.error(idOf(call.request()), ToolException.Kind.INTERNAL,
                        "serve was interrupted before the call could start").line();
            } finally {
                admitted.decrementAndGet(); // before the answer goes out: its arrival means the slot is free
                admittedChars.addAndGet(-(call != null ? call.chars() : 0));
            }
            write(answer);
        });
    }

    /** An admitted call waiting for a running slot, in arrival order. */
    private record Arrived(String request, long chars, long received) {
    }

    private String overloadMessage() {
        return "serve is at its limit of " + limits.maxInFlight() + " calls in flight and " + limits.maxQueued()
                + " queued (" + admitted.get() + " admitted, holding " + (admittedChars.get() >> 10) + " Ki chars of request text of "
                + (MAX_ADMITTED_CHARS >> 20) + " Mi); the request was not run: retry it after some answers come back, "
                + "or raise --max-in-flight/--max-queued (AGENT_TOOLS_SERVE_MAX_IN_FLIGHT, AGENT_TOOLS_SERVE_MAX_QUEUED)";
    }

    /** The request's top-level id (string or integer) found by a streaming scan, or null: an answer must echo it. */
    static JsonNode idOf(String request) {
        try (JsonParser p = Json.MAPPER.getFactory().createParser(request)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("id")) {
                    return switch (value) {
                        case VALUE_STRING -> JsonNodeFactory.instance.textNode(p.getText());
                        case VALUE_NUMBER_INT -> JsonNodeFactory.instance.numberNode(p.getBigIntegerValue());
                        default -> null;
                    };
                }
                p.skipChildren();
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null; // not JSON: the overloaded answer goes without an id, as a bad line's answer does
        }
    }

    private void write(String answer) {
        byte[] bytes = (answer + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                stopping = true; // the reader went away: nobody to answer
            }
        }
    }
}
