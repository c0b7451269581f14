package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The emulator's limits, over real HTTP: a body over the limit as sent or once inflated is 413, a URI or headers
 * over the limit 414 or 431, a request Jetty cannot parse 400; every one in Google's JSON envelope (never Jetty's
 * HTML page, never a stack trace), and the emulator keeps serving after each.
 */
class RequestLimitsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 4 * 1024;
    private static final int MAX_INFLATED = 16 * 1024;
    private static final int MAX_HEADERS = 4 * 1024;
    private static final String BATCH_OF_ONE = "--b\r\nContent-Type: application/http\r\n\r\nGET /gmail/v1/users/me/profile\r\n\r\n--b--\r\n";
    private static Emulator emulator;
    private static RawHttp http;

    @BeforeAll
    static void start() {
        emulator = emulators.start(JavaGmailClient.fastConfig()
                .maxBody(MAX_BODY).maxInflatedBody(MAX_INFLATED).maxHeaderSize(MAX_HEADERS).build());
        http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
    }

    @Test
    void defaultsAreGmailsUploadLimitAndSixteenKibibytesOfHeaders() {
        EmulatorConfig defaults = EmulatorConfig.builder().build();
        assertThat(defaults.maxBody()).isEqualTo(36_700_160L); // the discovery document's maxSize for messages.send
        assertThat(defaults.maxInflatedBody()).isEqualTo(36_700_160L);
        assertThat(defaults.maxHeaderSize()).isEqualTo(16_384);
    }

    @Test
    void aBodyOverTheLimitIs413NamingTheFlag() throws Exception {
        HttpResponse<String> r = http.post("batch", "multipart/mixed; boundary=b", "x".repeat(4 * MAX_BODY));
        assertGoogleError(r, 413, "--max-body");
        assertStillServes();
    }

    @Test
    void aChunkedBodyIsCountedWhileItStreams() throws Exception {
        byte[] body = "x".repeat(4 * MAX_BODY).getBytes(StandardCharsets.US_ASCII);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("batch"))
                .header("Authorization", "Bearer t").header("Content-Type", "multipart/mixed; boundary=b")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build());
        assertGoogleError(r, 413, "--max-body");
        assertStillServes();
    }

    @Test
    void aGzipBombIsRefusedOnceItsInflatedSizePassesTheLimit() throws Exception {
        byte[] bomb = gzip(new byte[1024 * 1024]); // 1 MiB of zeros in about 1 KiB: under --max-body, far over the inflated limit
        assertThat(bomb.length).isLessThan(MAX_BODY);
        HttpResponse<String> r = postGzip(bomb);
        assertGoogleError(r, 413, "--max-inflated-body");
        assertStillServes();
    }

    @Test
    void aGzipBodyWithinTheLimitsIsInflatedAsBefore() throws Exception {
        HttpResponse<String> r = postGzip(gzip(BATCH_OF_ONE.getBytes(StandardCharsets.US_ASCII)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"emailAddress\"");
    }

    @Test
    void aBodyThatIsNotGzipAsDeclaredIs400() throws Exception {
        assertGoogleError(postGzip("not gzip at all".getBytes(StandardCharsets.US_ASCII)), 400, "not valid gzip");
    }

    @Test
    void aUriOverTheLimitIs414InGoogleJson() throws Exception {
        String reply = raw("GET /gmail/v1/users/me/messages?q=" + "a".repeat(2 * MAX_HEADERS) + " HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer t\r\nConnection: close\r\n\r\n");
        assertRawGoogleError(reply, 414, "--max-header-size");
    }

    @Test
    void headersOverTheLimitAre431InGoogleJson() throws Exception {
        String reply = raw("GET /gmail/v1/users/me/profile HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n"
                + "X-Padding: " + "p".repeat(2 * MAX_HEADERS) + "\r\nConnection: close\r\n\r\n");
        assertRawGoogleError(reply, 431, "--max-header-size");
    }

    @Test
    void aRequestJettyCannotParseIs400InGoogleJson() throws Exception {
        String reply = raw("GET /gmail/v1/users/me/profile HTTP/1.1\r\nHost: x\r\nNot a header line\r\nConnection: close\r\n\r\n");
        assertRawGoogleError(reply, 400, "Bad Request");
    }

    private static HttpResponse<String> postGzip(byte[] body) throws Exception {
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("batch"))
                .header("Authorization", "Bearer t").header("Content-Type", "multipart/mixed; boundary=b")
                .header("Content-Encoding", "gzip").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    private static void assertStillServes() throws Exception {
        assertThat(http.get("gmail/v1/users/me/profile").statusCode()).isEqualTo(200);
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream z = new GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }

    /** Sends bytes the Java client would not (or would fix), and reads the whole reply until the server closes. */
    private static String raw(String request) throws IOException {
        try (Socket socket = new Socket(emulator.rootUri().getHost(), emulator.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void assertRawGoogleError(String reply, int status, String mentions) throws Exception {
        assertThat(reply).startsWith("HTTP/1.1 " + status + " ");
        String head = reply.substring(0, reply.indexOf("\r\n\r\n")).toLowerCase(Locale.ROOT);
        assertThat(head).contains("content-type: application/json");
        String body = reply.substring(reply.indexOf("\r\n\r\n") + 4);
        assertError(JSON.readTree(body), body, status, mentions);
    }

    private static void assertGoogleError(HttpResponse<String> r, int status, String mentions) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/json");
        assertError(JSON.readTree(r.body()), r.body(), status, mentions);
    }

    private static void assertError(JsonNode root, String body, int status, String mentions) {
        JsonNode error = root.get("error");
        assertThat(error.get("code").asInt()).isEqualTo(status);
        assertThat(error.get("message").asText()).containsIgnoringCase(mentions);
        assertThat(error.get("errors").get(0).get("reason").asText()).isNotBlank();
        assertThat(error.get("status").asText()).isNotBlank();
        assertThat(body).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("<html");
    }
}
