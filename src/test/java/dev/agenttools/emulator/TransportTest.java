package dev.agenttools.emulator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** HTTP/1.1, h2c and TLS with ALPN, and what official clients layer on requests (gzip bodies, method override). */
class TransportTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @Test
    void multiplexesConcurrentCallsOverOneHttp2Connection() throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(100))
                .jitter(Duration.ZERO).build());
             var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_2);
            HttpResponse<String> first = http.get("gmail/v1/users/me/profile"); // upgrades the connection to h2c
            assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 15; i++) {
                calls.add(pool.submit(() -> http.get("gmail/v1/users/me/labels")));
            }
            for (var call : calls) {
                assertThat(call.get().statusCode()).isEqualTo(200);
                assertThat(call.get().version()).isEqualTo(HttpClient.Version.HTTP_2);
            }
            assertThat(emulator.counters().connectionsOpened()).isEqualTo(1);
            assertThat(emulator.counters().handshakes()).isEqualTo(1);
        }
    }

    @Test
    void servesHttpsWithHttp2ByAlpnAndASelfSignedCertificateClientsCanTrust(@TempDir Path dir)
            throws Exception {
        Path cert = dir.resolve("emulator.pem");
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().tls(true).certFile(cert).build())) {
            assertThat(emulator.rootUri().getScheme()).isEqualTo("https");
            assertThat(Files.readString(cert)).startsWith("-----BEGIN CERTIFICATE-----");
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(Emulators.trusting(cert)).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/profile"))
                    .header("Authorization", "Bearer t").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(r.body()).contains("me@example.com");
            assertThat(emulator.counters().connectionsOpened()).isEqualTo(1);
        }
    }

    @Test
    void acceptsGzipRequestBodiesAndMethodOverride() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().build())) {
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            String id = http.get("gmail/v1/users/me/messages?maxResults=1").body().replaceAll("(?s).*?\"id\": \"([0-9a-f]+)\".*", "$1");
            HttpResponse<String> modified = http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/messages/" + id + "/modify"))
                    .header("Authorization", "Bearer t").header("Content-Type", "application/json; charset=UTF-8")
                    .header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(gzip("{\"addLabelIds\":[\"STARRED\"]}"))).build());
            assertThat(modified.statusCode()).isEqualTo(200);
            assertThat(modified.body()).contains("STARRED");

            HttpResponse<String> overridden = http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/messages"))
                    .header("Authorization", "Bearer t").header("X-HTTP-Method-Override", "GET")
                    .header("Content-Type", "application/x-www-form-urlencoded").header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(gzip("q=is%3Astarred&maxResults=500&prettyPrint=false"))).build());
            assertThat(overridden.statusCode()).isEqualTo(200);
            assertThat(overridden.body()).contains(id).doesNotContain("\n");
        }
    }

    @Test
    void compressesResponsesForClientsThatAcceptGzip() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().build())) {
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/messages?maxResults=50"))
                    .header("Authorization", "Bearer t").header("Accept-Encoding", "gzip").build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.headers().firstValue("Content-Encoding")).hasValue("gzip");
            String body = new String(new GZIPInputStream(r.body()).readAllBytes(), StandardCharsets.UTF_8);
            assertThat(body).contains("\"messages\"");
        }
    }

    private static byte[] gzip(String text) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

}
