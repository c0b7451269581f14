package dev.agenttools.google;

import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.LowLevelHttpRequest;
import com.google.api.client.http.LowLevelHttpResponse;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

/**
 * A google-http-client transport on the JDK's {@link HttpClient}, so that Google API calls use HTTP/2: a burst
 * of concurrent calls shares one multiplexed connection instead of opening one socket each, and a blocked call
 * can be cancelled by interrupting its (virtual) thread.
 *
 * <p>Written here because no maintained library adapts java.net.http to the Google client: Google's own
 * transports speak HTTP/1.1 only (google-http-java-client#1117, #1880 open since 2023). Thread-safe.
 *
 * <p>Bodies are streamed from the connection and read through {@link BoundedBody}: at most a limit, as sent and once
 * gzip is undone (here: the JDK client never inflates, and the Google client's own inflation has no limit), so a
 * hostile answer costs at most the limit in memory. For the Google client, the body is read whole here, before
 * {@link LowLevelHttpRequest#execute} returns, so that it only ever reads bytes already in memory: a streamed body
 * read on an interrupted thread fails with {@code IOException: InterruptedException}, and the client's error path
 * ({@code GoogleJsonResponseException.from}) answers that with {@code printStackTrace()} on stderr. A cancelled call
 * (its thread interrupted) fails with an {@link InterruptedIOException}, whether it was waiting for the answer or
 * reading it.
 */
final class JdkHttpTransport extends HttpTransport {
    /** Headers the JDK client sets itself and refuses from callers. */
    private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade");
    /**
     * Exchanges at once on one client, whose HTTP/2 connection to an origin carries at most what the server's
     * SETTINGS_MAX_CONCURRENT_STREAMS allows: Google's front ends (and the emulator) say 100. The JDK's client does not
     * queue past it, nor open a second connection: the next request fails at once with "too many concurrent
     * streams" (seen with 1,000 users' lists on one server). So each client takes at most this many, and more clients
     * (connections) are opened as needed, up to {@link #MAX_CONNECTIONS}; past them a request waits for a free stream.
     */
    static final int STREAMS_PER_CONNECTION = 100;
    static final int MAX_CONNECTIONS = 16;
    /**
     * How long an idle HTTP/2 connection is kept, in seconds, unless the user set {@value #IDLE_PROPERTY} (read by the
     * JDK when its first client is built). The JDK's default, 30 s, is shorter than the gap between an agent's calls:
     * through the resident server a get_email after 40 s idle took 370 ms instead of 178, a new connection and TLS
     * handshake (the emulator's handshake model) each time. Four minutes stays under the idle limits of common NAT
     * gateways (AWS's: 350 s), so a kept connection is not silently dead; a server that closes it sooner says so
     * (GOAWAY) and the next call opens another.
     */
    static final String IDLE_PROPERTY = "jdk.httpclient.keepalive.timeout.h2";
    static final int IDLE_SECONDS = 240;

    static {
        if (System.getProperty(IDLE_PROPERTY) == null) {
            System.setProperty(IDLE_PROPERTY, Integer.toString(IDLE_SECONDS));
        }
    }

    private final Connections connections;

    /** On this client alone: at most {@value #STREAMS_PER_CONNECTION} exchanges at once, the next ones waiting. */
    public JdkHttpTransport(HttpClient client) {
        this.connections = new Connections(() -> client, 1);
    }

    private JdkHttpTransport(Supplier<HttpClient> clients, int maxConnections) {
        this.connections = new Connections(clients, maxConnections);
    }

    /** The clients (connections) this transport spreads its exchanges over, each with its streams counted. */
    private static final class Connections {
        private record Slot(HttpClient client, Semaphore streams) {
        }

        private final Supplier<HttpClient> make;
        private final int maxConnections;
        private final Semaphore total;
        private final List<Slot> slots = new CopyOnWriteArrayList<>();

        Connections(Supplier<HttpClient> make, int maxConnections) {
            this.make = make;
            this.maxConnections = maxConnections;
            this.total = new Semaphore(maxConnections * STREAMS_PER_CONNECTION, true);
        }

        /** Exchanges asked for so far: an early connection is only opened before the first. */
        private final AtomicLong exchanges = new AtomicLong();
        /** Early connections being opened, by server ({@code scheme://authority}): done when the attempt ends. */
        private final Map<String, CompletableFuture<Void>> opening =
                new ConcurrentHashMap<>();

        /**
         * A stream for an exchange with {@code target}: first waits (at most {@code wait}) for an early connection to
         * its server still being opened, whose handshake is further along than a second one would be (two first
         * requests racing each other's handshakes took 1.0 to 1.5 s against the emulator, one 0.56 s).
         */
        Stream acquire(URI target, Duration wait, String cancelled) throws InterruptedIOException {
            exchanges.incrementAndGet(); // before looking: an early connection started after this sees it and stands down
            var early = opening.get(server(target));
            if (early != null) {
                try {
                    early.get(wait == null ? PRECONNECT_WAIT.toNanos() : Math.min(wait.toNanos(), PRECONNECT_WAIT.toNanos()),
                            TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException(cancelled + " cancelled");
                } catch (ExecutionException | TimeoutException e) {
                    // not opened in time: this exchange opens its own
                }
            }
            return acquire(cancelled);
        }

        /** A stream on some connection, waiting for one when all are taken; {@link Stream#close} gives it back. */
        Stream acquire(String cancelled) throws InterruptedIOException {
            try {
                total.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(cancelled + " cancelled");
            }
            try {
                while (true) {
                    for (Slot slot : slots) {
                        if (slot.streams().tryAcquire()) {
                            return new Stream(this, slot);
                        }
                    }
                    synchronized (this) {
                        if (slots.size() < maxConnections) {
                            Slot slot = new Slot(make.get(), new Semaphore(STREAMS_PER_CONNECTION - 1));
                            slots.add(slot);
                            return new Stream(this, slot);
                        }
                    }
                    Thread.onSpinWait(); // a stream is being given back: the total says one is free
                }
            } catch (RuntimeException | Error e) {
                total.release();
                throw e;
            }
        }

        void shutdown() {
            for (Slot slot : slots) {
                slot.client().shutdownNow();
            }
        }
    }

    /** One exchange's stream: its client, given back once. */
    private static final class Stream implements AutoCloseable {
        private final Connections connections;
        private final Connections.Slot slot;
        private final AtomicBoolean closed = new AtomicBoolean();

        Stream(Connections connections, Connections.Slot slot) {
            this.connections = connections;
            this.slot = slot;
        }

        HttpClient client() {
            return slot.client();
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                slot.streams().release();
                connections.total.release();
            }
        }
    }

    /**
     * An HTTP/2 client (h2 by ALPN over TLS, h2c upgrade over plain HTTP) that never follows redirects.
     *
     * @param trust the TLS context to trust servers by, or null for the JDK's default trust
     */
    public static JdkHttpTransport http2(Duration connectTimeout, SSLContext trust) {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .connectTimeout(connectTimeout).followRedirects(HttpClient.Redirect.NEVER);
        if (trust != null) {
            b.sslContext(trust);
        }
        return new JdkHttpTransport(b::build, MAX_CONNECTIONS);
    }

    /**
     * Stops the client at once, its selector thread included: requests in flight fail. Without it a JVM waits
     * 300 ms at exit for that thread, which sits in native code.
     */
    @Override
    public void shutdown() {
        connections.shutdown();
    }

    /**
     * What {@link #get} answered: the status, the headers and the body, streamed, gzip undone and bounded (read it,
     * then close the answer: closing before the end cancels the rest). For a status other than 2xx the body is at most
     * {@link BoundedBody#MAX_ERROR_BYTES}, else empty.
     */
    public record Answer(int status, HttpHeaders headers, InputStream body) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            body.close();
        }
    }

    /**
     * One GET on this transport's client (the same HTTP/2 connection), outside the Google client's request
     * machinery: for the calls hot enough that its per-request cost shows (see {@code GoogleConnection}). Asks for
     * gzip when {@code gzip}, and undoes it. Cancelled by interrupting the calling thread.
     *
     * @param authorization the Authorization header's value (never shown in an error)
     * @param timeout       how long to wait for the answer
     * @param limit         the most of a 2xx body read, as sent and once inflated; past it reading fails with
     *                      {@link UnreadableAnswer}
     * @throws IOException when the exchange fails ({@link InterruptedIOException} when cancelled)
     */
    public Answer get(String url, String authorization, String userAgent, boolean gzip, Duration timeout, long limit)
            throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).header("User-Agent", userAgent);
        if (gzip) {
            b.header("Accept-Encoding", "gzip");
        }
        try {
            b.header("Authorization", authorization);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot send HTTP header Authorization: the JDK refuses its value (not shown)");
        }
        String cancelled = "GET " + url;
        Stream stream = connections.acquire(URI.create(url), timeout, cancelled);
        try {
            HttpResponse<InputStream> r = send(stream.client(), b.build(), cancelled);
            if (r.statusCode() / 100 != 2) {
                try (stream) {
                    return new Answer(r.statusCode(), r.headers(), new ByteArrayInputStream(BoundedBody.errorBody(r, cancelled)));
                }
            }
            // the stream is the connection's until the body is read or closed
            InputStream body = BoundedBody.open(r, limit, cancelled);
            return new Answer(r.statusCode(), r.headers(), new FilterInputStream(body) {
                @Override
                public void close() throws IOException {
                    try {
                        super.close();
                    } finally {
                        stream.close();
                    }
                }
            });
        } catch (IOException | RuntimeException e) {
            stream.close();
            throw e;
        }
    }

    /** The longest an exchange waits for an early connection to its server (see {@link #preconnect}). */
    private static final Duration PRECONNECT_WAIT = Duration.ofSeconds(10);

    /**
     * Opens a connection to {@code url}'s server ahead of the calls that will need it, unless an exchange has already
     * been asked for (it opens its own): a HEAD without credentials (refused at Google's front end, costing no quota;
     * nothing of the user's is sent), whose answer is dropped. A failure is only the connection not opened early.
     * Why: the first request of a process pays the TCP and TLS handshake and runs the JDK's TLS and HTTP/2 code cold
     * (~230 ms over the handshake on this machine's emulator); a process that serves many calls ({@code serve},
     * {@code mcp}, the HTTP service) pays it here, before its first call comes. An exchange asked for meanwhile waits
     * for it ({@link Connections#acquire(URI, Duration, String)}) rather than racing it.
     */
    public void preconnect(String url, Duration timeout) {
        URI target = URI.create(url);
        String server = server(target);
        var done = new CompletableFuture<Void>();
        if (connections.opening.putIfAbsent(server, done) != null) {
            return;
        }
        try {
            if (connections.exchanges.get() > 0) { // after the put: an exchange asked for since then waits for this
                return;
            }
            HttpRequest request = HttpRequest.newBuilder(target).timeout(timeout).method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
            try (Stream stream = connections.acquire("HEAD " + url)) {
                stream.client().send(request, HttpResponse.BodyHandlers.discarding());
            } catch (IOException | RuntimeException e) {
                // not opened early: the first call opens it, as it would have
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } finally {
            connections.opening.remove(server, done);
            done.complete(null);
        }
    }

    private static String server(URI u) {
        return u.getScheme() + "://" + u.getRawAuthority();
    }

    /**
     * Sends and waits for the answer's head; its body is left to stream. A connection that cannot be made is an
     * {@link Unreachable} naming the server, in words.
     */
    private static HttpResponse<InputStream> send(HttpClient client, HttpRequest request, String cancelled) throws IOException {
        long start = System.nanoTime();
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (ConnectException | HttpConnectTimeoutException e) {
            URI u = request.uri();
            int port = u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
            throw Unreachable.of(u.getHost() + ":" + port, e, (System.nanoTime() - start) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(cancelled + " cancelled");
        }
    }

    @Override
    public boolean supportsMethod(String method) {
        return true;
    }

    @Override
    protected LowLevelHttpRequest buildRequest(String method, String url) {
        return new Request(connections, method, url);
    }

    private static final class Request extends LowLevelHttpRequest {
        private final Connections connections;
        private final String method;
        private final String url;
        private final List<String[]> headers = new ArrayList<>();
        private Duration readTimeout = Duration.ofSeconds(20);

        Request(Connections connections, String method, String url) {
            this.connections = connections;
            this.method = method;
            this.url = url;
        }

        @Override
        public void addHeader(String name, String value) {
            if (!RESTRICTED.contains(name.toLowerCase(Locale.ROOT))) {
                headers.add(new String[] {name, value});
            }
        }

        @Override
        public void setTimeout(int connectTimeout, int readTimeout) {
            // The connect timeout belongs to the shared client; the read timeout bounds this exchange.
            this.readTimeout = readTimeout > 0 ? Duration.ofMillis(readTimeout) : null;
        }

        @Override
        public LowLevelHttpResponse execute() throws IOException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
            if (readTimeout != null) {
                b.timeout(readTimeout);
            }
            for (String[] h : headers) {
                try {
                    b.header(h[0], h[1]);
                } catch (IllegalArgumentException e) {
                    // the JDK's message quotes the value, and the value may be "Bearer <token>": not passed on
                    throw new IllegalArgumentException("cannot send HTTP header " + h[0]
                            + ": the JDK refuses its name or its value (the value is not shown)");
                }
            }
            HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.noBody();
            if (getStreamingContent() != null) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                getStreamingContent().writeTo(out);
                body = HttpRequest.BodyPublishers.ofByteArray(out.toByteArray());
                if (getContentType() != null) {
                    b.setHeader("Content-Type", getContentType());
                }
                if (getContentEncoding() != null) {
                    b.setHeader("Content-Encoding", getContentEncoding());
                }
            }
            b.method(method, body);
            String cancelled = method + " " + url;
            try (Stream stream = connections.acquire(URI.create(url), readTimeout, cancelled)) {
                HttpResponse<InputStream> r = send(stream.client(), b.build(), cancelled);
                byte[] content;
                if (r.statusCode() / 100 != 2) {
                    content = BoundedBody.errorBody(r, cancelled);
                } else {
                    try (InputStream in = BoundedBody.open(r, BoundedBody.MAX_BYTES, cancelled)) {
                        content = in.readAllBytes();
                    }
                }
                return new Response(r, content);
            }
        }
    }

    /** An answer for the Google client, its body in memory and already inflated (so it says no Content-Encoding). */
    private static final class Response extends LowLevelHttpResponse {
        private final HttpResponse<?> response;
        private final byte[] body;
        private final List<String[]> headers = new ArrayList<>();

        Response(HttpResponse<?> response, byte[] body) {
            this.response = response;
            this.body = body;
            HttpHeaders all = response.headers();
            for (Map.Entry<String, List<String>> e : all.map().entrySet()) {
                // the body handed on is the inflated one: its encoding and length as sent no longer apply
                if (!e.getKey().startsWith(":") && !e.getKey().equalsIgnoreCase("Content-Encoding")
                        && !e.getKey().equalsIgnoreCase("Content-Length")) {
                    e.getValue().forEach(v -> headers.add(new String[] {e.getKey(), v}));
                }
            }
        }

        @Override
        public InputStream getContent() {
            return new ByteArrayInputStream(body);
        }

        @Override
        public String getContentEncoding() {
            return null; // inflated already, within the limit: the client's own inflation would have none
        }

        @Override
        public long getContentLength() {
            return body.length;
        }

        @Override
        public String getContentType() {
            return response.headers().firstValue("Content-Type").orElse(null);
        }

        @Override
        public String getStatusLine() {
            return (response.version() == HttpClient.Version.HTTP_2 ? "HTTP/2 " : "HTTP/1.1 ") + response.statusCode();
        }

        @Override
        public int getStatusCode() {
            return response.statusCode();
        }

        @Override
        public String getReasonPhrase() {
            return null;
        }

        @Override
        public int getHeaderCount() {
            return headers.size();
        }

        @Override
        public String getHeaderName(int index) {
            return headers.get(index)[0];
        }

        @Override
        public String getHeaderValue(int index) {
            return headers.get(index)[1];
        }

        @Override
        public void disconnect() {
            // the body is in memory and the connection is the shared client's: nothing to release
        }
    }
}
