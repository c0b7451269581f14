package dev.agenttools.tool;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The persistent JSON-lines mode: one request per input line, one answer per output line, each request on its
 * own virtual thread (answers may come out of order; the {@code id} matches them). A bad line (an empty one
 * included) gets an error answer and the server goes on; a line over the limit is skipped to its end and answered. At end of input
 * (or {@link #stop}) it finishes the calls in flight, then returns.
 */
public final class StdioServer {
    public static final int MAX_LINE_BYTES = 1 << 20;
    private final ToolProtocol protocol;
    private final InputStream in;
    private final OutputStream out;
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    private final AtomicLong answered = new AtomicLong();
    private volatile boolean stopping;

    public StdioServer(ToolProtocol protocol, InputStream in, OutputStream out) {
        this.protocol = protocol;
        this.in = new BufferedInputStream(in, 64 * 1024);
        this.out = out;
    }

    /** Serves until end of input; returns once every answer is written. */
    public void run() throws IOException, InterruptedException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
        boolean tooLong = false;
        int b;
        while (!stopping && (b = in.read()) != -1) {
            if (b == '\n') {
                if (tooLong) {
                    write(ToolProtocol.error(null, ToolException.Kind.INVALID_ARGUMENT,
                            "request line over " + MAX_LINE_BYTES + " bytes (1 MB); it was skipped").line());
                } else {
                    dispatch(line.toString(StandardCharsets.UTF_8));
                }
                line.reset();
                tooLong = false;
            } else if (!tooLong) {
                if (line.size() >= MAX_LINE_BYTES) {
                    tooLong = true;
                    line.reset();
                } else {
                    line.write(b);
                }
            }
        }
        if (line.size() > 0 && !tooLong) {
            dispatch(line.toString(StandardCharsets.UTF_8)); // a last line without its newline
        }
        workers.shutdown();
        workers.awaitTermination(10, TimeUnit.MINUTES);
        out.flush();
    }

    /** Stops reading; calls in flight still finish and are answered. */
    public void stop() {
        stopping = true;
    }

    /** Waits for the calls in flight (for a shutdown hook). */
    public void drain(long timeout, TimeUnit unit) throws InterruptedException {
        stopping = true;
        workers.shutdown();
        workers.awaitTermination(timeout, unit);
    }

    public long answered() {
        return answered.get();
    }

    private void dispatch(String request) {
        workers.execute(() -> write(protocol.answer(request.strip()).line()));
    }

    private void write(String answer) {
        byte[] bytes = (answer + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
            try {
                out.write(bytes);
                out.flush();
                answered.incrementAndGet();
            } catch (IOException e) {
                stopping = true; // the reader went away: nobody to answer
            }
        }
    }
}
