package dev.agenttools.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.agenttools.emulator.EmulatorCounters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

/**
 * The counters of an agent-tools emulator running as its own process ({@code GET <root>emulator/v1/counters}), so
 * that a benchmark against it reports API calls, connections and refusals per row as it does in-process.
 */
final class RemoteCounters implements Supplier<EmulatorCounters> {
    /** The emulator writes its own field names (camelCase), not the tools' snake_case. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    /** How long an emulator that does not answer is asked again, and how far apart. */
    private static final Duration RETRY_FOR = Duration.ofSeconds(30);
    private static final Duration RETRY_PAUSE = Duration.ofMillis(250);
    private final HttpClient http;
    private final URI uri;

    private RemoteCounters(URI uri, SSLContext trust) {
        this.uri = uri;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (trust != null) {
            b.sslContext(trust);
        }
        this.http = b.build();
    }

    /** The counters at {@code rootUrl}, or null when it is not an agent-tools emulator (Gmail, say). */
    static RemoteCounters at(String rootUrl) {
        return at(rootUrl, null);
    }

    /** As above, over TLS trusting {@code trust} (null: the system's CA certificates). */
    static RemoteCounters at(String rootUrl, SSLContext trust) {
        RemoteCounters counters = new RemoteCounters(URI.create(rootUrl + (rootUrl.endsWith("/") ? "" : "/") + "emulator/v1/counters"), trust);
        // an answer that is not the counters (another status, not their JSON) says this is no agent-tools emulator; no
        // answer in time may be a loaded machine (seen beside the whole test suite), so the question is asked again, a
        // quarter of a second apart, for up to half a minute
        long giveUp = System.nanoTime() + RETRY_FOR.toNanos();
        while (true) {
            try {
                counters.get();
                return counters;
            } catch (UncheckedIOException e) {
                if (e.getCause() instanceof JsonProcessingException || System.nanoTime() > giveUp) {
                    return null;
                }
            } catch (RuntimeException e) {
                return null;
            }
            try {
                Thread.sleep(RETRY_PAUSE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    @Override
    public EmulatorCounters get() {
        try {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("GET " + uri + " answered HTTP " + r.statusCode());
            }
            return JSON.readValue(r.body(), EmulatorCounters.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the emulator's counters at " + uri + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the emulator's counters", e);
        }
    }
}
