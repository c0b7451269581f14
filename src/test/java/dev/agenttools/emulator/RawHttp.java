package dev.agenttools.emulator;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Plain HTTP calls for what the official clients cannot send: malformed requests, raw batch bodies, h2c. */
public final class RawHttp {
    private final HttpClient client;
    private final URI root;

    public RawHttp(Emulator emulator, HttpClient.Version version) {
        this.client = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5)).build();
        this.root = emulator.rootUri();
    }

    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(root.resolve(path)).header("Authorization", "Bearer t").GET().build());
    }

    public HttpResponse<String> post(String path, String contentType, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(root.resolve(path)).header("Authorization", "Bearer t")
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    public HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    public HttpClient client() {
        return client;
    }
}
