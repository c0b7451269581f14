package dev.agenttools.daemon;

import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The resident server over a real loopback socket, spoken to as the launcher speaks (see LauncherRequest). */
class DaemonServerTest {
    private final StringWriter log = new StringWriter();
    private final List<LauncherRequest> received = new CopyOnWriteArrayList<>();
    private DaemonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private DaemonServer start(DaemonServer.Handler handler, Duration idle, AtomicBoolean stale, Runnable onStop) throws IOException {
        server = DaemonServer.start(request -> {
            received.add(request);
            return handler.handle(request);
        }, new PrintWriter(log, true), idle, stale::get, onStop);
        return server;
    }

    /** What the launcher sends: NUL-terminated fields, then the request's bytes. */
    static byte[] launcherMessage(String clientSecret, String epochRealtime, String pwd, List<String> settings, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> fields = new ArrayList<>(List.of(LauncherRequest.PROTOCOL, clientSecret, epochRealtime, pwd,
                Integer.toString(settings.size())));
        fields.addAll(settings);
        fields.add(Integer.toString(body.length));
        for (String f : fields) {
            out.writeBytes(f.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        out.writeBytes(body);
        return out.toByteArray();
    }

    @Test
    void encodesRequestsAsTheLauncherWritesThem() throws IOException {
        LauncherRequest r = new LauncherRequest(new LinkedHashMap<>(Map.of("A", "1")), "/w", 1_700_000_000_000_042L,
                new byte[] {'{', 0, '}'});
        assertThat(r.encode("sec")).isEqualTo(launcherMessage("sec", "1700000000.000042", "/w", List.of("A=1"), new byte[] {'{', 0, '}'}));
        LauncherRequest back = LauncherRequest.read(new ByteArrayInputStream(r.encode("sec")), "sec".getBytes(StandardCharsets.US_ASCII));
        assertThat(back.settings()).isEqualTo(r.settings());
        assertThat(back.startEpochMicros()).isEqualTo(r.startEpochMicros());
        assertThat(back.body()).isEqualTo(r.body());
    }

    private record Exchange(String greeting, byte[] rest) {
        String restText() {
            return new String(rest, StandardCharsets.UTF_8);
        }
    }

    private Exchange exchange(byte[] message) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            String greeting = line(in);
            OutputStream out = s.getOutputStream();
            out.write(message);
            out.flush();
            s.shutdownOutput(); // a cut-off request ends now, not after the server's read timeout
            return new Exchange(greeting, in.readAllBytes());
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
            b.write(c);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    private static String now() {
        Instant t = Instant.now();
        return t.getEpochSecond() + "." + String.format("%06d", t.getNano() / 1000);
    }

    @Test
    void greetsWithTheProtocolThenAnswersTheForwardedCallWithStatusStderrAndStdout() throws Exception {
        start(r -> new DaemonServer.Reply(3, "warn\n".getBytes(StandardCharsets.UTF_8),
                ("{\"echo\":\"" + new String(r.body(), StandardCharsets.UTF_8) + "\"}\n").getBytes(StandardCharsets.UTF_8)),
                Duration.ofMinutes(1), new AtomicBoolean(), () -> { });
        byte[] body = "a\0b ü".getBytes(StandardCharsets.UTF_8);
        Exchange e = exchange(launcherMessage(server.clientSecret(), now(), "/work/x",
                List.of("AGENT_TOOLS_ACCESS_TOKEN=t=k", "XDG_CONFIG_HOME=/h/.config"), body));

        assertThat(e.greeting()).as("a fixed line, no secret: anyone may connect and read it").isEqualTo("agent-tools-server-2");
        assertThat(e.restText()).as("timeout_ms (unknown: 0), status, stderr and stdout lengths, stderr, stdout")
                .isEqualTo("0\n3\n5\n18\nwarn\n{\"echo\":\"a\0b ü\"}\n");
        LauncherRequest r = received.getFirst();
        assertThat(r.settings()).containsEntry("AGENT_TOOLS_ACCESS_TOKEN", "t=k").containsEntry("XDG_CONFIG_HOME", "/h/.config");
        assertThat(r.workingDirectory()).isEqualTo("/work/x");
        assertThat(r.body()).isEqualTo(body);
    }

    @Test
    void sendsTheCallsTimeoutAsSoonAsItHasTheRequestBeforeTheAnswer() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        server = DaemonServer.start(new DaemonServer.Handler() {
            @Override
            public DaemonServer.Reply handle(LauncherRequest request) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return new DaemonServer.Reply(0, new byte[0], "late".getBytes(StandardCharsets.US_ASCII));
            }

            @Override
            public long timeoutMillis(LauncherRequest request) {
                return 2_500;
            }
        }, new PrintWriter(log, true), Duration.ofMinutes(1), () -> false, () -> { });
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            assertThat(line(in)).isEqualTo(DaemonServer.GREETING);
            s.getOutputStream().write(launcherMessage(server.clientSecret(), now(), "/", List.of(), "{}".getBytes(StandardCharsets.UTF_8)));
            assertThat(line(in)).as("the deadline, while the call still runs").isEqualTo("2500");
            release.countDown();
            assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("0\n0\n4\nlate");
        }
    }

    @Test
    void listensOnAnIpv4LoopbackSocketThatProcNetTcpShowsAsItsUsers() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/net/tcp")), "Linux's /proc");
        start(r -> DaemonServer.Reply.FALLBACK, Duration.ofMinutes(1), new AtomicBoolean(), () -> { });
        long uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        String local = String.format("0100007F:%04X", server.port());
        // the row the launcher looks for (see port_is_ours in agent-tools): 127.0.0.1:port, LISTEN (0A), its uid
        assertThat(Files.readAllLines(Path.of("/proc/net/tcp")))
                .anySatisfy(row -> {
                    String[] f = row.trim().split("\\s+");
                    assertThat(f[1]).isEqualTo(local);
                    assertThat(f[3]).isEqualTo("0A");
                    assertThat(f[7]).isEqualTo(Long.toString(uid));
                });
    }

    @Test
    void dropsAConnectionWithAWrongSecretWithoutCallingTheHandler() throws Exception {
        start(r -> new DaemonServer.Reply(0, new byte[0], "secret answer".getBytes(StandardCharsets.UTF_8)),
                Duration.ofMinutes(1), new AtomicBoolean(), () -> { });
        Exchange e = exchange(launcherMessage("not-the-secret", now(), "/", List.of(), "{}".getBytes(StandardCharsets.UTF_8)));

        assertThat(e.rest()).isEmpty();
        assertThat(received).isEmpty();
        assertThat(log.toString()).contains("dropped a connection: wrong secret");
    }

    @Test
    void dropsMalformedRequestsWithoutCallingTheHandler() throws Exception {
        start(r -> new DaemonServer.Reply(0, new byte[0], new byte[0]), Duration.ofMinutes(1), new AtomicBoolean(), () -> { });
        byte[] tooMany = launcherMessage(server.clientSecret(), now(), "/", List.of(), new byte[0]);
        String asText = new String(tooMany, StandardCharsets.ISO_8859_1).replace("\0" + "0\0" + "0\0", "\0" + "100000\0");
        byte[] badTime = launcherMessage(server.clientSecret(), "yesterday", "/", List.of(), new byte[0]);
        byte[] hugeBody = launcherMessage(server.clientSecret(), now(), "/", List.of(), new byte[0]);
        String hugeText = new String(hugeBody, StandardCharsets.ISO_8859_1);
        hugeText = hugeText.substring(0, hugeText.length() - 2) + (LauncherRequest.MAX_BODY_BYTES + 1) + "\0";

        for (byte[] bad : List.of(asText.getBytes(StandardCharsets.ISO_8859_1), badTime, hugeText.getBytes(StandardCharsets.ISO_8859_1),
                (LauncherRequest.PROTOCOL + "\0").getBytes(StandardCharsets.US_ASCII))) {
            assertThat(exchange(bad).rest()).isEmpty();
        }
        assertThat(received).isEmpty();
        assertThat(log.toString()).contains("settings count must be 0..512", "start time must be seconds.micros",
                "request length must be 0..", "ended inside a field");
    }

    @Test
    void repliesFallbackWhenTheHandlerCannotAnswerThisCaller() throws Exception {
        start(r -> DaemonServer.Reply.FALLBACK, Duration.ofMinutes(1), new AtomicBoolean(), () -> { });
        Exchange e = exchange(launcherMessage(server.clientSecret(), now(), "/", List.of(), "{}".getBytes(StandardCharsets.UTF_8)));
        assertThat(e.restText()).isEqualTo("0\nfallback\n");
    }

    @Test
    void countsTheCallsTimeoutFromTheLaunchersStart() throws Exception {
        start(r -> new DaemonServer.Reply(0, new byte[0],
                Long.toString((System.nanoTime() - r.startNanos()) / 1_000_000).getBytes(StandardCharsets.US_ASCII)),
                Duration.ofMinutes(1), new AtomicBoolean(), () -> { });
        Instant twoSecondsAgo = Instant.now().minusSeconds(2);
        String epoch = twoSecondsAgo.getEpochSecond() + "," + String.format("%06d", twoSecondsAgo.getNano() / 1000); // a locale's comma
        Exchange e = exchange(launcherMessage(server.clientSecret(), epoch, "/", List.of(), new byte[0]));
        String[] reply = e.restText().split("\n");
        assertThat(Long.parseLong(reply[4])).isBetween(2000L, 2000L + 5000);
    }

    @Test
    void stopsAfterItsIdleTimeButNotWhileACallIsInFlight() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger stops = new AtomicInteger();
        start(r -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new DaemonServer.Reply(0, new byte[0], "late".getBytes(StandardCharsets.US_ASCII));
        }, Duration.ofSeconds(1), new AtomicBoolean(), stops::incrementAndGet);
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                assertThat(exchange(launcherMessage(server.clientSecret(), now(), "/", List.of(), new byte[0])).restText()).endsWith("late");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Thread.sleep(2_500); // over the idle time, with the call still running
        assertThat(stops.get()).isZero();
        release.countDown();
        caller.join(10_000);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (stops.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(stops.get()).isEqualTo(1);
        server.awaitStop();
        assertThat(log.toString()).contains("stopping: idle for 1 s");
    }

    @Test
    void stopsWhenToldItIsStaleAndStillAnswersTheCallsItTook() throws Exception {
        CountDownLatch inCall = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean stale = new AtomicBoolean();
        AtomicInteger stops = new AtomicInteger();
        start(r -> {
            inCall.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new DaemonServer.Reply(0, new byte[0], "answered".getBytes(StandardCharsets.US_ASCII));
        }, Duration.ofMinutes(5), stale, stops::incrementAndGet);
        int port = server.port();
        String[] answer = new String[1];
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                answer[0] = exchange(launcherMessage(server.clientSecret(), now(), "/", List.of(), new byte[0])).restText();
            } catch (IOException e) {
                answer[0] = e.toString();
            }
        });
        assertThat(inCall.await(10, TimeUnit.SECONDS)).isTrue();
        stale.set(true);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (stops.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(stops.get()).isEqualTo(1);
        Assertions.assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                .as("no new connections once stopped").isInstanceOf(ConnectException.class);
        release.countDown();
        caller.join(10_000);
        assertThat(answer[0]).isEqualTo("0\n0\n0\n8\nanswered");
        server.awaitStop();
    }
}
