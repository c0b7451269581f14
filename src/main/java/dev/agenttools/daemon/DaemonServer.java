package dev.agenttools.daemon;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The resident server behind the launcher's one-shot {@code call}: a loopback TCP port that answers one call per
 * connection. Loopback TCP because bash reaches it through {@code /dev/tcp} with no helper program (a Unix socket
 * would need socat or nc, which a fresh machine lacks). A port is open to every local user, so each side checks the
 * other: the launcher asks the kernel who owns the port before it sends anything ({@code /proc/net/tcp}: the
 * socket listening on 127.0.0.1 at that port must be its user's; why that suffices: see the launcher), and the server drops any connection whose first fields
 * do not carry the client secret, kept in the owner-only {@link DaemonDirectory}. The greeting,
 * {@value #GREETING}, is no secret: it names the protocol, nothing more (a secret greeting told anyone who
 * connected what to say to pass as the server once it died).
 *
 * <p>After reading the request the server sends its {@code timeout_ms} as a line (the call's deadline counts from
 * the launcher's start, so the launcher knows what is left if the server dies mid-call), then
 * {@code fallback\n} when the handler cannot answer this caller faithfully (the launcher then runs the call
 * in-process), else {@code <exit status>\n<stderr byte count>\n<stdout byte count>\n<stderr bytes><stdout bytes>}
 * and the connection closes (the counts let bash read each part in a few reads, where a read up to a delimiter
 * takes one system call per byte). Each connection runs on its own virtual thread. The server stops after
 * {@code idle} with no call, or as soon as {@code stale} says so (the jar changed, the address file is gone), once
 * the calls in flight are answered. Thread-safe.
 */
public final class DaemonServer implements AutoCloseable {
    /** How long a connection may take to send its request: the launcher sends it in one go. */
    static final Duration REQUEST_READ_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration HOUSEKEEPING = Duration.ofMillis(500);

    /** The first line on every connection: the protocol, for the launcher to check; no secret. */
    public static final String GREETING = "agent-tools-server-2";

    /** Answers one forwarded call. */
    public interface Handler {
        /** @return the answer, or {@link Reply#FALLBACK} */
        Reply handle(LauncherRequest request);

        /**
         * The call's {@code timeout_ms} (counted from the launcher's start), sent before the answer so that the
         * launcher knows its deadline if the server dies mid-call; 0 when unknown.
         */
        default long timeoutMillis(LauncherRequest request) {
            return 0;
        }
    }

    /** What the launcher writes: {@code stderr} to its stderr, {@code stdout} to its stdout, then it exits with the status. */
    public record Reply(int exitStatus, byte[] stderr, byte[] stdout) {
        /** The launcher should answer this call in-process. */
        public static final Reply FALLBACK = new Reply(-1, new byte[0], new byte[0]);
    }

    private final ServerSocket socket;
    private final Handler handler;
    private final String clientSecret = secret();
    private final PrintWriter log;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong lastActivity = new AtomicLong(System.nanoTime());
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledExecutorService housekeeping;

    private final Runnable onStop;

    private DaemonServer(ServerSocket socket, Handler handler, PrintWriter log, Duration idle, BooleanSupplier stale, Runnable onStop) {
        this.socket = socket;
        this.onStop = onStop;
        this.handler = handler;
        this.log = log;
        this.housekeeping = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("daemon-housekeeping").factory());
        housekeeping.scheduleWithFixedDelay(() -> {
            boolean idleTooLong = inFlight.get() == 0 && System.nanoTime() - lastActivity.get() >= idle.toNanos();
            if (idleTooLong || stale.getAsBoolean()) {
                log("stopping: " + (idleTooLong ? "idle for " + idle.toSeconds() + " s" : "the jar or the address file changed"));
                stop();
            }
        }, HOUSEKEEPING.toMillis(), HOUSEKEEPING.toMillis(), TimeUnit.MILLISECONDS);
        Thread.ofPlatform().name("daemon-accept").start(this::acceptLoop);
    }

    /**
     * Listens on a free loopback port.
     *
     * @param idle   how long without a call before the server stops
     * @param stale  asked twice a second: true stops the server
     * @param onStop run once when the server stops taking connections (before the calls in flight are answered)
     */
    public static DaemonServer start(Handler handler, PrintWriter log, Duration idle, BooleanSupplier stale, Runnable onStop)
            throws IOException {
        // An IPv4 socket on 127.0.0.1 (Java would make an IPv6 one, bound to ::ffff:127.0.0.1, where IPv6 exists): the
        // launcher finds its listener in /proc/net/tcp under that exact address (see port_is_ours in the launcher).
        ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.INET);
        try {
            channel.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 128);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return new DaemonServer(channel.socket(), handler, log, idle, stale, onStop);
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** Stops taking connections and waits, at most {@code wait}, for the calls in flight (a SIGTERM's shutdown). */
    public void stopAndDrain(Duration wait) throws InterruptedException {
        stop();
        long until = System.nanoTime() + wait.toNanos();
        while (inFlight.get() > 0 && System.nanoTime() - until < 0) {
            Thread.sleep(20);
        }
    }

    public String clientSecret() {
        return clientSecret;
    }

    /** Blocks until the server stopped and every call it took is answered. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
        while (inFlight.get() > 0) {
            Thread.sleep(20);
        }
    }

    /** Stops taking connections; calls in flight still get their answers. */
    public synchronized void stop() {
        if (stopped.getCount() == 0) {
            return;
        }
        onStop.run();
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
        housekeeping.shutdown();
        stopped.countDown();
    }

    @Override
    public void close() {
        stop();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                Socket connection = socket.accept();
                inFlight.incrementAndGet();
                lastActivity.set(System.nanoTime());
                Thread.ofVirtual().name("daemon-call").start(() -> serve(connection));
            } catch (SocketException e) {
                return; // closed by stop()
            } catch (IOException e) {
                log("accept failed: " + e.getMessage());
            }
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            connection.setSoTimeout((int) REQUEST_READ_TIMEOUT.toMillis());
            connection.setTcpNoDelay(true); // each write is a whole message: send it now
            OutputStream out = connection.getOutputStream();
            out.write((GREETING + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            LauncherRequest request;
            try {
                request = LauncherRequest.read(new BufferedInputStream(connection.getInputStream()),
                        clientSecret.getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                log("dropped a connection: " + e.getMessage());
                return;
            }
            long timeout;
            try {
                timeout = Math.max(0, handler.timeoutMillis(request));
            } catch (RuntimeException e) {
                timeout = 0;
            }
            out.write((timeout + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Reply reply;
            try {
                reply = handler.handle(request);
            } catch (RuntimeException e) {
                log("the call failed in the server, the launcher runs it itself: " + e);
                reply = Reply.FALLBACK;
            }
            ByteArrayOutputStream whole = new ByteArrayOutputStream(reply.stdout().length + 64);
            whole.write(header(reply));
            whole.write(reply.stderr());
            whole.write(reply.stdout());
            whole.writeTo(out); // one write: the launcher reads the status line at once
            out.flush();
        } catch (IOException e) {
            log("connection failed: " + e.getMessage());
        } finally {
            lastActivity.set(System.nanoTime());
            inFlight.decrementAndGet();
        }
    }

    private static byte[] header(Reply reply) {
        String header = reply == Reply.FALLBACK ? "fallback\n"
                : reply.exitStatus() + "\n" + reply.stderr().length + "\n" + reply.stdout().length + "\n";
        return header.getBytes(StandardCharsets.US_ASCII);
    }

    private void log(String line) {
        synchronized (log) {
            log.println(Instant.now() + " " + line);
            log.flush();
        }
    }

    /** 32 random bytes as URL-safe base64: no spaces or NULs, so that it fits the address file's one line. */
    private static String secret() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
