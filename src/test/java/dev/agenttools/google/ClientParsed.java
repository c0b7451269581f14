package dev.agenttools.google;

import com.google.api.client.json.gson.GsonFactory;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** For the tests of our streaming readers: raw answers from the emulator, and what the Google client's parser makes of them. */
public final class ClientParsed {
    private static final GsonFactory GSON = GsonFactory.getDefaultInstance();

    private ClientParsed() {
    }

    /** The body of a GET with token {@code t}, which must answer 200. */
    public static byte[] get(HttpClient http, String url) throws Exception {
        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer t").build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).as(url).isEqualTo(200);
        return r.body();
    }

    /** {@code json} read by the Google client's own parser into {@code type}, written back as JSON to compare. */
    public static String asClientParsed(byte[] json, Class<?> type) throws Exception {
        return GSON.toString(GSON.fromInputStream(new ByteArrayInputStream(json), StandardCharsets.UTF_8, type));
    }

    /** A model object as the client writes it, to compare with {@link #asClientParsed}. */
    public static String written(Object model) throws Exception {
        return GSON.toString(model);
    }
}
