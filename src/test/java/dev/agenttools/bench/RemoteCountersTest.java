package dev.agenttools.bench;

import com.sun.net.httpserver.HttpServer;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The counters of an emulator reached by its root URL, and what is no emulator. */
class RemoteCountersTest {
    @Test
    void readsAnEmulatorsCountersOverHttp() throws Exception {
        try (Emulator emulator = Emulator.start(EmulatorConfig.builder().build())) {
            RemoteCounters counters = RemoteCounters.at(emulator.rootUri().toString());
            assertThat(counters).isNotNull();
            assertThat(counters.get().httpRequests()).isZero();
        }
    }

    /**
     * A server that answers 200 with something else than the counters is no emulator: said at once, not asked again
     * for the half minute a loaded emulator gets (the timeout fails the test if it is).
     */
    @Test
    @Timeout(value = 15, unit = TimeUnit.SECONDS)
    void anAnswerThatIsNotTheCountersIsNoEmulatorAtOnce() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        server.createContext("/", exchange -> {
            byte[] page = "<html>not an emulator</html>".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        server.start();
        try {
            assertThat(RemoteCounters.at("http://127.0.0.1:" + server.getAddress().getPort() + "/")).isNull();
        } finally {
            server.stop(0);
        }
    }
}
