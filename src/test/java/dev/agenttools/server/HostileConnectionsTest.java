package dev.agenttools.server;

import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile clients at the connection level, over real sockets on loopback (127.0.0.2 and up are other source
 * addresses): headers trickled in a byte at a time (Slowloris) are closed at the header deadline, whatever the trickle;
 * a stranger holding its maximum of connections gets no more while other addresses are served; past the cap in all,
 * a new connection waits until one closes; a keep-alive connection idle longer than a load balancer's 60 s still works.
 */
class HostileConnectionsTest {
    private static final Duration HEADER_DEADLINE = Duration.ofSeconds(3);
    private static final int PER_ADDRESS = 20;
    private static final int IN_ALL = 45;
    private static final byte[] HEALTHZ = "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static ToolRegistry registry;
    /** Header deadline 3 s, the default caps and idle timeout. */
    private static HttpService trickle;
    /** At most 20 connections per address and 45 in all. */
    private static HttpService capped;

    @BeforeAll
    static void start() throws Exception {
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).build());
        registry = Tools.builder().rootUrl(emulator.rootUri().toString()).build();
        HttpService.Limits d = HttpService.Limits.DEFAULT;
        trickle = start(emulator, new HttpService.Limits(d.userRate(), d.addressRate(), HEADER_DEADLINE, d.idleTimeout(),
                d.maxConnections(), d.maxConnectionsPerAddress(), List.of(), d.metricsHosts()));
        capped = start(emulator, new HttpService.Limits(d.userRate(), d.addressRate(), Duration.ofSeconds(60), d.idleTimeout(),
                IN_ALL, PER_ADDRESS, List.of(), d.metricsHosts()));
    }

    private static HttpService start(Emulator emulator, HttpService.Limits limits) throws Exception {
        HttpService.Options options = new HttpService.Options("127.0.0.1", 0, 100, 100, 64 * 1024, Duration.ofSeconds(2),
                null, ServiceKeys.hash("k"), Set.of(), List.of(emulator.rootUri())).withLimits(limits);
        return HttpService.start(registry, HttpService.Metrics.create(options), Tools.SHORT_NAMES, "test", options, () -> null);
    }

    @AfterAll
    static void stop() {
        trickle.close();
        capped.close();
        registry.close();
    }

    private static URI base(HttpService service) {
        return URI.create("http://127.0.0.1:" + service.port());
    }

    private static Socket connect(InetAddress from, HttpService service) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", service.port()), 5_000);
        socket.setSoTimeout(15_000); // no read waits without end, whatever goes wrong
        return socket;
    }

    /** Sends GET /healthz on the connection and reads its whole answer (a keep-alive one): its status line. */
    private static String healthz(Socket socket) throws IOException {
        socket.getOutputStream().write(HEALTHZ);
        socket.getOutputStream().flush();
        return readAnswer(socket.getInputStream());
    }

    /** One answer of known length off a keep-alive connection: its status line (null: the server closed it). */
    private static String readAnswer(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int c;
        while (!head.toString().endsWith("\r\n\r\n")) {
            c = in.read();
            if (c < 0) {
                return null;
            }
            head.append((char) c);
        }
        String length = head.toString().lines().filter(l -> l.regionMatches(true, 0, "Content-Length:", 0, 15))
                .map(l -> l.substring(15).strip()).findFirst().orElse("0");
        in.readNBytes(Integer.parseInt(length));
        return head.toString().lines().findFirst().orElseThrow();
    }

    /**
     * Trickles a request's headers one byte every 2 s; how long after {@code since} the server closed the connection,
     * or null if it was still open after 25 s.
     */
    private static Duration trickleUntilClosed(Socket socket, long since) throws IOException {
        byte[] request = ("GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: " + "a".repeat(200)).getBytes(StandardCharsets.US_ASCII);
        socket.setSoTimeout(2_000);
        OutputStream out = socket.getOutputStream();
        InputStream in = socket.getInputStream();
        for (int i = 0; i < request.length && System.nanoTime() - since < 25_000_000_000L; i++) {
            try {
                out.write(request[i]);
                out.flush();
                if (in.read() < 0) {
                    return Duration.ofNanos(System.nanoTime() - since);
                }
                return null; // an answer before the headers ended: not what this test is about
            } catch (SocketTimeoutException stillOpen) {
                // nothing from the server in 2 s: the next byte
            } catch (IOException reset) {
                return Duration.ofNanos(System.nanoTime() - since);
            }
        }
        return null;
    }

    @Test
    void closesConnectionsWhoseHeadersTrickleInPastTheDeadlineAndServesOthersMeanwhile() throws Exception {
        List<Future<Duration>> trickling = new ArrayList<>();
        Socket idle = connect(SourcedHttp.LOOPBACK, trickle);
        assertThat(healthz(idle)).isEqualTo("HTTP/1.1 200 OK");
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 50; i++) {
                boolean afterARequest = i % 5 == 0; // a keep-alive connection's next request trickled, too
                trickling.add(threads.submit(() -> {
                    try (Socket socket = connect(SourcedHttp.LOOPBACK, trickle)) {
                        if (afterARequest) {
                            assertThat(healthz(socket)).isEqualTo("HTTP/1.1 200 OK");
                        }
                        return trickleUntilClosed(socket, System.nanoTime());
                    }
                }));
            }
            Thread.sleep(1_000);
            // the 50 slow ones take nothing from a caller that sends its request at once
            SourcedHttp.Answer answer = SourcedHttp.send(SourcedHttp.LOOPBACK, base(trickle), "GET", "/healthz", null);
            assertThat(answer.status()).isEqualTo(200);
            for (Future<Duration> f : trickling) {
                Duration closedAfter = f.get();
                assertThat(closedAfter).as("closed at the header deadline, whatever the trickle").isNotNull();
                assertThat(closedAfter).isGreaterThanOrEqualTo(HEADER_DEADLINE.minusMillis(100)).isLessThan(Duration.ofSeconds(20));
            }
        }
        // a keep-alive connection that sent nothing meanwhile is no slow request: still open, and answered
        assertThat(healthz(idle)).as("an idle keep-alive connection outlives the header deadline").isEqualTo("HTTP/1.1 200 OK");
        idle.close();
        String metrics = SourcedHttp.send(SourcedHttp.LOOPBACK, base(trickle), "GET", "/metrics", null).body();
        assertThat(metrics).containsPattern("agent_tools_connections_closed_total\\{reason=\"header_timeout\"} (5\\d|[6-9]\\d)\\.0");
    }

    @Test
    void aStrangerAtItsMaximumOfConnectionsGetsNoMoreWhileOtherAddressesAreServed() throws Exception {
        InetAddress stranger = InetAddress.ofLiteral("127.0.0.3");
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < PER_ADDRESS; i++) {
                Socket s = connect(stranger, capped);
                held.add(s);
                assertThat(healthz(s)).isEqualTo("HTTP/1.1 200 OK"); // accepted and counted
            }
            try (Socket over = connect(stranger, capped)) {
                over.setSoTimeout(10_000);
                String answer;
                try {
                    answer = healthz(over);
                } catch (IOException reset) {
                    answer = null;
                }
                assertThat(answer).as("a connection past the cap per address is closed unanswered").isNull();
            }
            assertThat(SourcedHttp.send(SourcedHttp.LOOPBACK, base(capped), "GET", "/healthz", null).status()).isEqualTo(200);
            assertThat(SourcedHttp.send(SourcedHttp.OTHER, base(capped), "GET", "/healthz", null).status()).isEqualTo(200);
            // one of the stranger's own closed: room for another
            held.removeFirst().close();
            String again = null;
            for (int i = 0; i < 50 && again == null; i++) {
                Thread.sleep(100);
                Socket s = connect(stranger, capped);
                held.add(s);
                try {
                    again = healthz(s);
                } catch (IOException stillFull) {
                    held.removeLast().close();
                }
            }
            assertThat(again).isEqualTo("HTTP/1.1 200 OK");
            String metrics = SourcedHttp.send(SourcedHttp.LOOPBACK, base(capped), "GET", "/metrics", null).body();
            assertThat(metrics).contains("agent_tools_connections_closed_total{reason=\"address_limit\"}");
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void pastTheCapInAllANewConnectionWaitsUntilOneCloses() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < IN_ALL; i++) {
                Socket s = connect(InetAddress.ofLiteral("127.0.0." + (4 + i / PER_ADDRESS)), capped);
                held.add(s);
                assertThat(healthz(s)).isEqualTo("HTTP/1.1 200 OK");
            }
            try (Socket waiting = connect(SourcedHttp.LOOPBACK, capped)) { // the kernel's queue takes it
                waiting.getOutputStream().write(HEALTHZ);
                waiting.getOutputStream().flush();
                waiting.setSoTimeout(1_500);
                boolean answered;
                try {
                    answered = waiting.getInputStream().read() >= 0;
                } catch (SocketTimeoutException notYet) {
                    answered = false;
                }
                assertThat(answered).as("no answer while the server is at its cap in all").isFalse();
                held.removeFirst().close();
                waiting.setSoTimeout(10_000);
                // the byte read above was not read: the whole answer is still to come
                assertThat(readAnswer(waiting.getInputStream())).isEqualTo("HTTP/1.1 200 OK");
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void aKeepAliveConnectionIdleLongerThanABalancersSixtySecondsStillAnswers() throws Exception {
        try (Socket socket = connect(SourcedHttp.LOOPBACK, trickle)) {
            assertThat(healthz(socket)).isEqualTo("HTTP/1.1 200 OK");
            Thread.sleep(65_000);
            assertThat(healthz(socket)).as("the same connection after 65 s idle").isEqualTo("HTTP/1.1 200 OK");
        }
    }
}
