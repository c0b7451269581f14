package dev.agenttools.google;

import com.google.api.client.http.ByteArrayContent;
import com.google.api.client.http.GZipEncoding;
import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpRequestFactory;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.http.HttpResponseException;
import com.google.api.client.http.LowLevelHttpRequest;
import com.google.api.client.http.LowLevelHttpResponse;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.Message;
import com.google.api.services.gmail.model.ModifyMessageRequest;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Deadline;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.SSLHandshakeException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The Google client on {@link JdkHttpTransport} against real servers on port 0: a local Jetty (HTTP/1.1 and h2c)
 * whose routes record what reached them, and the emulator over TLS for h2 by ALPN.
 */
class JdkHttpTransportTest {
    /** How long a test waits for something that should happen at once, before it calls it a hang. */
    private static final long HANG_SECONDS = 20;

    private final Recording server = new Recording();

    @BeforeEach
    void start() throws Exception {
        server.listen();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void keepsAnIdleHttp2ConnectionFourMinutesNotTheJdksThirtySeconds() {
        JdkHttpTransport.http2(Duration.ofSeconds(1), null).shutdown();
        // read by the JDK when its first client is built: set before any, unless the user chose (-D wins)
        assertThat(System.getProperty("jdk.httpclient.keepalive.timeout.h2")).isEqualTo("240");
    }

    @Test
    void neverQuotesAHeaderValueItCannotSend() throws Exception {
        LowLevelHttpRequest request = JdkHttpTransport.http2(Duration.ofSeconds(1), null).buildRequest("GET", "http://127.0.0.1:9/");
        request.addHeader("Authorization", "Bearer ya29.SECRET\n");
        IllegalArgumentException e = catchThrowableOfType(IllegalArgumentException.class, request::execute);
        assertThat(e).hasMessageContaining("Authorization").hasMessageNotContaining("SECRET");
        assertThat(e.getCause()).isNull();
    }

    @Test
    void aTransportFailureQuotingABearerTokenIsTranslatedWithoutIt() {
        var quoted = new IllegalArgumentException("invalid header value: \"Bearer ya29.SECRET\n\"");
        assertThat(GoogleErrors.message(quoted)).doesNotContain("SECRET").contains("Bearer (not shown)");
        assertThat(GoogleErrors.translate(quoted, "gmail messages.list", 1, Deadline.in(Duration.ofSeconds(1))).getMessage())
                .doesNotContain("SECRET");
    }

    @Test
    void speaksHttp11ToAServerWhenTheClientIsSetToHttp11() throws Exception {
        JdkHttpTransport transport = new JdkHttpTransport(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());

        HttpResponse response = transport.createRequestFactory().buildGetRequest(server.url("/echo")).execute();
        LowLevelHttpResponse raw = transport.buildRequest("GET", server.url("/echo").build()).execute();

        assertThat(response.parseAsString()).isEqualTo("{\"ok\":true}");
        assertThat(raw.getStatusLine()).isEqualTo("HTTP/1.1 200");
        assertThat(server.seen).extracting(Seen::version).containsOnly("HTTP/1.1");
    }

    @Test
    void upgradesPlainHttpToH2cAndMultiplexesConcurrentCallsOnOneConnection() throws Exception {
        JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), null);
        HttpRequestFactory requests = transport.createRequestFactory();

        assertThat(requests.buildGetRequest(server.url("/echo")).execute().parseAsString()).isEqualTo("{\"ok\":true}");
        List<Future<String>> burst = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 12; i++) {
                burst.add(pool.submit(() -> requests.buildGetRequest(server.url("/echo")).execute().parseAsString()));
            }
        }
        LowLevelHttpResponse raw = transport.buildRequest("GET", server.url("/echo").build()).execute();

        for (Future<String> f : burst) {
            assertThat(f.get()).isEqualTo("{\"ok\":true}");
        }
        assertThat(raw.getStatusLine()).isEqualTo("HTTP/2 200");
        Seen upgrade = server.seen.getFirst();
        assertThat(server.seen).hasSize(14);
        assertThat(server.seen.subList(1, 14)).extracting(Seen::version).containsOnly("HTTP/2.0");
        assertThat(server.seen).extracting(Seen::remotePort).containsOnly(upgrade.remotePort());
    }

    @Test
    void negotiatesH2ByAlpnOverTlsWithATrustedSelfSignedCertificate(@TempDir Path dir) throws Exception {
        Path cert = dir.resolve("emulator.pem");
        try (Emulator emulator = Emulator.start(fastEmulator().tls(true).certFile(cert).build())) {
            JdkHttpTransport transport = new JdkHttpTransport(HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                    .sslContext(Emulators.trusting(emulator.certificate())).build());
            Gmail gmail = new Gmail.Builder(transport, GsonFactory.getDefaultInstance(),
                    r -> r.getHeaders().setAuthorization("Bearer t")).setRootUrl(emulator.rootUri().toString())
                    .setApplicationName("transport-test").build();

            String address = gmail.users().getProfile("me").execute().getEmailAddress();
            String id = gmail.users().messages().list("me").setMaxResults(1L).execute().getMessages().getFirst().getId();
            // a POST whose JSON body the Gmail client gzips
            Message starred = gmail.users().messages().modify("me", id,
                    new ModifyMessageRequest().setAddLabelIds(List.of("STARRED"))).execute();
            LowLevelHttpRequest profile = transport.buildRequest("GET",
                    emulator.rootUri().resolve("gmail/v1/users/me/profile").toString());
            profile.addHeader("Authorization", "Bearer t");
            LowLevelHttpResponse raw = profile.execute();

            assertThat(address).isEqualTo("me@example.com");
            assertThat(starred.getLabelIds()).contains("STARRED");
            assertThat(raw.getStatusLine()).isEqualTo("HTTP/2 200");
            assertThat(emulator.counters().connectionsOpened()).isEqualTo(1);
        }
    }

    @Test
    void anEarlyConnectionCarriesNoCredentialsAndTheFirstCallUsesIt(@TempDir Path dir) throws Exception {
        Path cert = dir.resolve("emulator.pem");
        try (Emulator emulator = Emulator.start(fastEmulator().tls(true).certFile(cert).build())) {
            JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), Emulators.trusting(emulator.certificate()));
            String root = emulator.rootUri().toString();
            transport.preconnect(root, Duration.ofSeconds(5));
            assertThat(emulator.counters().connectionsOpened()).isEqualTo(1);
            assertThat(emulator.counters().authFailures()).as("sent without a token").isEqualTo(1);
            assertThat(emulator.counters().users().values()).as("no user's quota spent").allSatisfy(u -> assertThat(u.apiCalls()).isZero());

            try (JdkHttpTransport.Answer a = transport.get(root + "gmail/v1/users/me/profile", "Bearer t", "test", false,
                    Duration.ofSeconds(5), 1 << 20)) {
                assertThat(a.status()).isEqualTo(200);
            }
            assertThat(emulator.counters().connectionsOpened()).as("the call went on the early connection").isEqualTo(1);
            transport.shutdown();
        }
    }

    @Test
    void anEarlyConnectionStandsDownOnceACallHasBeenMade(@TempDir Path dir) throws Exception {
        try (Emulator emulator = Emulator.start(fastEmulator().tls(true).certFile(dir.resolve("emulator.pem")).build())) {
            JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), Emulators.trusting(emulator.certificate()));
            String root = emulator.rootUri().toString();
            try (JdkHttpTransport.Answer a = transport.get(root + "gmail/v1/users/me/profile", "Bearer t", "test", false,
                    Duration.ofSeconds(5), 1 << 20)) {
                assertThat(a.status()).isEqualTo(200);
            }
            transport.preconnect(root, Duration.ofSeconds(5));
            assertThat(emulator.counters().httpRequests()).as("only the call").isEqualTo(1);
            assertThat(emulator.counters().authFailures()).isZero();
            transport.shutdown();
        }
    }

    @Test
    void aCallMadeWhileTheEarlyConnectionOpensWaitsForItInsteadOfOpeningASecond(@TempDir Path dir) throws Exception {
        // each new connection's first request waits 400 ms, as a handshake across a network
        try (Emulator emulator = Emulator.start(fastEmulator().handshake(Duration.ofMillis(400)).tls(true)
                .certFile(dir.resolve("emulator.pem")).build())) {
            JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), Emulators.trusting(emulator.certificate()));
            String root = emulator.rootUri().toString();
            Thread early = Thread.ofVirtual().start(() -> transport.preconnect(root, Duration.ofSeconds(10)));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
            while (emulator.counters().connectionsOpened() == 0 && System.nanoTime() < until) {
                Thread.sleep(5); // the early connection is open, its first request not answered yet
            }
            try (JdkHttpTransport.Answer a = transport.get(root + "gmail/v1/users/me/profile", "Bearer t", "test", false,
                    Duration.ofSeconds(10), 1 << 20)) {
                assertThat(a.status()).isEqualTo(200);
            }
            early.join(Duration.ofSeconds(HANG_SECONDS));
            assertThat(emulator.counters().connectionsOpened()).as("one connection, not two racing handshakes").isEqualTo(1);
            assertThat(emulator.counters().handshakes()).isEqualTo(1);
            transport.shutdown();
        }
    }

    @Test
    void refusesATlsServerWhoseCertificateItDoesNotTrust(@TempDir Path dir) {
        try (Emulator emulator = Emulator.start(fastEmulator().tls(true).certFile(dir.resolve("emulator.pem")).build())) {
            JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), null); // the JDK's default trust only

            SSLHandshakeException refused = catchThrowableOfType(SSLHandshakeException.class, () -> transport.createRequestFactory()
                    .buildGetRequest(new GenericUrl(emulator.rootUri().resolve("gmail/v1/users/me/profile"))).execute());

            assertThat(refused).isNotNull();
            assertThat(emulator.counters().httpRequests()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = HttpClient.Version.class, names = {"HTTP_1_1", "HTTP_2"})
    void dropsTheHeadersTheJdkClientOwnsAndSendsTheTrueValuesInstead(HttpClient.Version version) throws Exception {
        JdkHttpTransport transport = new JdkHttpTransport(HttpClient.newBuilder().version(version).build());
        HttpRequestFactory requests = transport.createRequestFactory();
        requests.buildGetRequest(server.url("/echo")).execute().disconnect(); // over h2c, later calls go over HTTP/2
        byte[] body = "{\"hello\":\"world\"}".getBytes(StandardCharsets.UTF_8);
        HttpRequest post = requests.buildPostRequest(server.url("/echo"), new ByteArrayContent("application/json", body));
        post.getHeaders().setContentLength(999L);
        post.getHeaders().set("Host", "elsewhere.example");
        post.getHeaders().set("Connection", "close");
        post.getHeaders().set("Expect", "100-continue");
        post.getHeaders().set("Upgrade", "websocket");
        post.getHeaders().set("X-Kept", "yes");

        HttpResponse response = post.execute();

        assertThat(response.getStatusCode()).isEqualTo(200);
        assertThat(response.parseAsString()).isEqualTo("{\"ok\":true}"); // read to the end: the connection is free again
        Seen seen = server.seen.getLast();
        assertThat(seen.method()).isEqualTo("POST");
        assertThat(seen.body()).isEqualTo(body);
        assertThat(seen.headers().get(HttpHeader.CONTENT_LENGTH)).isEqualTo(Integer.toString(body.length));
        assertThat(seen.authority()).isEqualTo("127.0.0.1:" + server.port());
        assertThat(seen.headers().get("X-Kept")).isEqualTo("yes");
        assertThat(seen.headers().get(HttpHeader.EXPECT)).isNull();
        assertThat(seen.headers().get(HttpHeader.UPGRADE)).isNull();
        assertThat(seen.headers().get(HttpHeader.CONNECTION)).isNull();
        // Connection: close was not obeyed either: the next call reuses the connection
        requests.buildGetRequest(server.url("/echo")).execute().disconnect();
        assertThat(server.seen.getLast().remotePort()).isEqualTo(seen.remotePort());
    }

    @ParameterizedTest
    @EnumSource(value = HttpClient.Version.class, names = {"HTTP_1_1", "HTTP_2"})
    void sendsAGzippedBodyWithItsTypeEncodingAndExactLength(HttpClient.Version version) throws Exception {
        JdkHttpTransport transport = new JdkHttpTransport(HttpClient.newBuilder().version(version).build());
        String json = "{\"addLabelIds\":[\"STARRED\"],\"note\":\"" + "x".repeat(5_000) + "\"}";
        HttpRequest post = transport.createRequestFactory().buildPostRequest(server.url("/echo"),
                new ByteArrayContent("application/json; charset=UTF-8", json.getBytes(StandardCharsets.UTF_8)));
        post.setEncoding(new GZipEncoding()); // what the Gmail client does to every request body

        post.execute();

        Seen seen = server.seen.getLast();
        assertThat(seen.headers().get(HttpHeader.CONTENT_ENCODING)).isEqualTo("gzip");
        assertThat(seen.headers().get(HttpHeader.CONTENT_TYPE)).isEqualToIgnoringCase("application/json; charset=UTF-8");
        assertThat(seen.headers().get(HttpHeader.CONTENT_LENGTH)).isEqualTo(Integer.toString(seen.body().length));
        assertThat(seen.headers().get(HttpHeader.TRANSFER_ENCODING)).isNull();
        assertThat(new String(new GZIPInputStream(new ByteArrayInputStream(seen.body())).readAllBytes(),
                StandardCharsets.UTF_8)).isEqualTo(json);
    }

    @Test
    void moreExchangesAtOnceThanOneConnectionCarriesWaitOrGoOnAnotherConnectionNeverFail() throws Exception {
        // the emulator, as Google, allows 100 streams on a connection; 300 calls of 300 ms at once
        try (Emulator emulator = Emulator.start(fastEmulator().latency(Duration.ofMillis(300)).maxConcurrent(10_000).build());
             var callers = Executors.newVirtualThreadPerTaskExecutor()) {
            JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), null);
            JdkHttpTransport oneConnection = new JdkHttpTransport(HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build());
            for (JdkHttpTransport t : List.of(transport, oneConnection)) {
                // one call first: the connection is HTTP/2 by then (before, a burst goes out on HTTP/1.1 connections)
                try (JdkHttpTransport.Answer a = t.get(emulator.rootUri() + "gmail/v1/users/me/profile", "Bearer t",
                        "transport-test", false, Duration.ofSeconds(60), 1 << 20)) {
                    a.body().readAllBytes();
                }
                List<Future<Integer>> calls = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    calls.add(callers.submit(() -> {
                        try (JdkHttpTransport.Answer a = t.get(emulator.rootUri() + "gmail/v1/users/me/profile", "Bearer t",
                                "transport-test", false, Duration.ofSeconds(60), 1 << 20)) {
                            a.body().readAllBytes();
                            return a.status();
                        }
                    }));
                }
                List<Integer> statuses = new ArrayList<>();
                for (var call : calls) {
                    statuses.add(call.get()); // an exchange that failed ("too many concurrent streams") throws here
                }
                assertThat(statuses).hasSize(300).containsOnly(200);
                t.shutdown();
            }
        }
    }

    @Test
    void sendsEveryMethodAsGiven() throws Exception {
        JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), null);
        HttpRequestFactory requests = transport.createRequestFactory();

        requests.buildPatchRequest(server.url("/echo"), ByteArrayContent.fromString("text/plain", "patched")).execute();
        requests.buildPutRequest(server.url("/echo"), ByteArrayContent.fromString("text/plain", "put")).execute();
        requests.buildDeleteRequest(server.url("/echo")).execute();
        requests.buildRequest("OPTIONS", server.url("/echo"), null).execute();

        assertThat(server.seen).extracting(Seen::method).containsExactly("PATCH", "PUT", "DELETE", "OPTIONS");
        assertThat(server.seen).extracting(s -> new String(s.body(), StandardCharsets.UTF_8))
                .containsExactly("patched", "put", "", "");
    }

    @ParameterizedTest
    @EnumSource(value = HttpClient.Version.class, names = {"HTTP_1_1", "HTTP_2"})
    void handsStatusHeadersAndBodyToTheCaller(HttpClient.Version version) throws Exception {
        HttpRequestFactory requests = new JdkHttpTransport(HttpClient.newBuilder().version(version).build())
                .createRequestFactory();

        HttpResponse ok = requests.buildGetRequest(server.url("/echo")).execute();
        HttpResponse gzipped = requests.buildGetRequest(server.url("/gzipped")).execute();
        HttpResponseException unavailable = catchThrowableOfType(HttpResponseException.class,
                () -> requests.buildGetRequest(server.url("/unavailable")).execute());

        assertThat(ok.getStatusCode()).isEqualTo(200);
        assertThat(ok.getContentType()).isEqualTo("application/json");
        assertThat(ok.getHeaders().getHeaderStringValues("X-Multi")).containsExactly("one", "two");
        assertThat(ok.getHeaders().keySet()).noneMatch(name -> name.startsWith(":"));
        assertThat(ok.parseAsString()).isEqualTo("{\"ok\":true}");
        assertThat(gzipped.parseAsString()).isEqualTo(Recording.GZIPPED_TEXT); // decoded, as Content-Encoding says
        assertThat(unavailable.getStatusCode()).isEqualTo(503);
        assertThat(unavailable.getHeaders().getRetryAfter()).isEqualTo("7");
        assertThat(unavailable.getContent()).isEqualTo("come back later");
    }

    @ParameterizedTest
    @EnumSource(value = HttpClient.Version.class, names = {"HTTP_1_1", "HTTP_2"})
    void anInterruptEndsABlockedCallWithInterruptedIoExceptionAndKeepsTheInterruptFlag(HttpClient.Version version)
            throws Exception {
        HttpRequestFactory requests = new JdkHttpTransport(HttpClient.newBuilder().version(version).build())
                .createRequestFactory();
        requests.buildGetRequest(server.url("/echo")).execute().disconnect(); // over h2c, the blocked call is an HTTP/2 stream
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> flagged = new AtomicReference<>();
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                HttpRequest blocked = requests.buildGetRequest(server.url("/block"));
                blocked.setReadTimeout(0); // no timeout: only the interrupt can end this call
                blocked.execute();
            } catch (Throwable e) {
                failure.set(e);
                flagged.set(Thread.currentThread().isInterrupted());
            }
        });
        assertThat(server.blockedArrived.await(HANG_SECONDS, TimeUnit.SECONDS)).as("the call reached the server").isTrue();

        caller.interrupt();

        assertThat(caller.join(Duration.ofSeconds(HANG_SECONDS))).as("the call ended").isTrue();
        assertThat(failure.get()).isInstanceOf(InterruptedIOException.class)
                .hasMessage("GET " + server.url("/block") + " cancelled");
        assertThat(flagged.get()).isTrue();
        // the transport stays usable
        assertThat(requests.buildGetRequest(server.url("/echo")).execute().getStatusCode()).isEqualTo(200);
    }

    @ParameterizedTest
    @EnumSource(value = HttpClient.Version.class, names = {"HTTP_1_1", "HTTP_2"})
    void anErrorAnswerIsReadWholeWhenTheCallIsCancelledAsItArrives(HttpClient.Version version) throws Exception {
        // A streamed body read after the interrupt failed with IOException(InterruptedException), and the Google
        // client's error path printed that stack trace on stderr; the body must already be in memory.
        HttpRequest request = new JdkHttpTransport(HttpClient.newBuilder().version(version).build())
                .createRequestFactory().buildGetRequest(server.url("/unavailable"));
        request.setResponseInterceptor(response -> Thread.currentThread().interrupt()); // cancelled as the answer came

        HttpResponseException unavailable;
        try {
            unavailable = catchThrowableOfType(HttpResponseException.class, request::execute);
        } finally {
            assertThat(Thread.interrupted()).as("the interrupt flag is kept").isTrue();
        }

        assertThat(unavailable.getStatusCode()).isEqualTo(503);
        assertThat(unavailable.getContent()).isEqualTo("come back later");
    }

    @Test
    void aCallTheServerDoesNotAnswerInTheReadTimeoutFailsWithHttpTimeoutException() throws Exception {
        HttpRequest blocked = JdkHttpTransport.http2(Duration.ofSeconds(5), null).createRequestFactory()
                .buildGetRequest(server.url("/block"));
        blocked.setReadTimeout(300);

        HttpTimeoutException timedOut = catchThrowableOfType(HttpTimeoutException.class, blocked::execute);

        assertThat(timedOut).isNotNull();
        assertThat(GoogleErrors.retryable(timedOut)).isTrue();
    }

    @Test
    void aConnectionThatCannotBeMadeNamesTheServerAndWhyInWords() throws Exception {
        int stopped;
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            stopped = socket.getLocalPort(); // bound, noted and closed: nothing listens there now
        }
        JdkHttpTransport transport = JdkHttpTransport.http2(Duration.ofSeconds(5), null);
        try {
            HttpRequest refused = transport.createRequestFactory()
                    .buildGetRequest(new GenericUrl("http://127.0.0.1:" + stopped + "/gmail/v1/users/me/messages"));
            HttpRequest unknown = transport.createRequestFactory()
                    .buildGetRequest(new GenericUrl("https://no-such-host.invalid/gmail/v1/users/me/messages"));

            Unreachable r = catchThrowableOfType(Unreachable.class, refused::execute);
            Unreachable u = catchThrowableOfType(Unreachable.class, unknown::execute);
            Unreachable l = catchThrowableOfType(Unreachable.class, () -> transport.get("http://127.0.0.1:" + stopped
                    + "/x", "Bearer t", "test", false, Duration.ofSeconds(5), 1_000).close());

            assertThat(GoogleErrors.message(r)).isEqualTo("cannot connect to 127.0.0.1:" + stopped + ": connection refused");
            assertThat(GoogleErrors.message(l)).isEqualTo(GoogleErrors.message(r));
            assertThat(GoogleErrors.message(u)).isEqualTo("cannot connect to no-such-host.invalid:443: unknown host");
            assertThat(List.of(r, u, l)).allSatisfy(e -> {
                assertThat(GoogleErrors.connectionFailed(e)).isTrue();
                assertThat(GoogleErrors.retryable(e)).isTrue();
                assertThat(e.timedOut()).isFalse();
            });
        } finally {
            transport.shutdown();
        }
    }

    private static EmulatorConfig.Builder fastEmulator() {
        return EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .quotaPerMinute(6_000_000).maxConcurrent(1_000).seedMessages(20);
    }


    /** What one request brought to the server. */
    private record Seen(String method, String version, HttpFields headers, String authority, byte[] body, int remotePort) {
    }

    /**
     * A Jetty server on port 0 speaking HTTP/1.1 and h2c (by upgrade or prior knowledge). Routes: {@code /echo}
     * (200, JSON, two values of X-Multi), {@code /gzipped} (a gzip-encoded text), {@code /unavailable} (503 with
     * Retry-After), {@code /block} (answers only when the test ends). Every request is recorded.
     */
    private static final class Recording extends Handler.Abstract implements AutoCloseable {
        static final String GZIPPED_TEXT = "unzipped by the client";
        final List<Seen> seen = new CopyOnWriteArrayList<>();
        final CountDownLatch blockedArrived = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Server jetty = new Server();
        private ServerConnector connector;

        void listen() throws Exception {
            HttpConfiguration config = new HttpConfiguration();
            connector = new ServerConnector(jetty, new HttpConnectionFactory(config), new HTTP2CServerConnectionFactory(config));
            connector.setHost("127.0.0.1");
            jetty.addConnector(connector);
            jetty.setHandler(this);
            jetty.start();
        }

        int port() {
            return connector.getLocalPort();
        }

        GenericUrl url(String path) {
            return new GenericUrl(URI.create("http://127.0.0.1:" + port() + path));
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            byte[] body = Content.Source.asInputStream(request).readAllBytes();
            seen.add(new Seen(request.getMethod(), request.getConnectionMetaData().getHttpVersion().asString(),
                    HttpFields.build(request.getHeaders()).asImmutable(), request.getHttpURI().getAuthority(), body,
                    Request.getRemotePort(request)));
            switch (request.getHttpURI().getPath()) {
                case "/echo" -> {
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                    response.getHeaders().add("X-Multi", "one");
                    response.getHeaders().add("X-Multi", "two");
                    Content.Sink.write(response, true, "{\"ok\":true}", callback);
                }
                case "/gzipped" -> {
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                    response.getHeaders().put(HttpHeader.CONTENT_ENCODING, "gzip");
                    response.write(true, ByteBuffer.wrap(gzip(GZIPPED_TEXT)), callback);
                }
                case "/unavailable" -> {
                    response.setStatus(503);
                    response.getHeaders().put(HttpHeader.RETRY_AFTER, "7");
                    Content.Sink.write(response, true, "come back later", callback);
                }
                case "/block" -> {
                    blockedArrived.countDown();
                    release.await(HANG_SECONDS, TimeUnit.SECONDS);
                    Content.Sink.write(response, true, "released", callback);
                }
                default -> {
                    response.setStatus(404);
                    callback.succeeded();
                }
            }
            return true;
        }

        @Override
        public void close() throws IOException {
            release.countDown();
            try {
                jetty.stop();
            } catch (Exception e) {
                throw new IOException("cannot stop the test server", e);
            }
        }

        private static byte[] gzip(String text) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                gz.write(text.getBytes(StandardCharsets.UTF_8));
            }
            return out.toByteArray();
        }
    }
}
