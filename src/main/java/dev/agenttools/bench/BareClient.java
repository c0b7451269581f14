package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The run's floor: the HTTP exchanges of list_emails(n) (one messages.list, then n messages.get at once) and of
 * get_email, made by the JDK's plain {@link HttpURLConnection} (HTTP/1.1, keep-alive, blocking, on virtual threads)
 * with nothing else: no Google client, pacing, retries, deadline, decoding or tool layer, and only the list's ids
 * read from its answer. It shows what this machine and this server allow at this moment, so that a row can be
 * judged against the floor it met rather than against the nominal bound: on these shared 2-core machines a bare
 * 150 ms exchange takes 151–157 ms depending on the minute (thread wake-ups, steal), for any client.
 *
 * <p>A measuring instrument, not a client for the tools: it asks for the same fields the tools ask for, so the
 * server does the same work.
 */
final class BareClient implements AutoCloseable {
    static final String STRATEGY = "bare";

    static {
        // The JDK keeps 5 idle connections per server by default (read once, when its keep-alive cache loads): a
        // burst of 10 would open 5 new connections every run. Nothing else in the benchmark uses this client.
        if (System.getProperty("http.maxConnections") == null) {
            System.setProperty("http.maxConnections", "64");
        }
    }
    private final String root;
    private final String authorization;
    private final String listFields;
    private final String getFields;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    BareClient(String rootUrl, String token, String listFields, String getFields) {
        this.root = rootUrl.endsWith("/") ? rootUrl : rootUrl + "/";
        this.authorization = "Bearer " + token;
        this.listFields = URLEncoder.encode(listFields, StandardCharsets.UTF_8);
        this.getFields = URLEncoder.encode(getFields, StandardCharsets.UTF_8);
    }

    /** One messages.list of {@code n}, then a messages.get of each listed id, all at once; returns the ids. */
    List<String> list(int n) throws IOException, InterruptedException {
        JsonNode listed = Json.MAPPER.readTree(get("gmail/v1/users/me/messages?maxResults=" + n + "&fields=" + listFields, false));
        List<String> ids = new ArrayList<>();
        listed.path("messages").forEach(m -> ids.add(m.path("id").asText()));
        List<Future<byte[]>> answers = new ArrayList<>();
        for (String id : ids) {
            answers.add(threads.submit(() -> get("gmail/v1/users/me/messages/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
                    + "?format=full&fields=" + getFields, false)));
        }
        for (Future<byte[]> answer : answers) {
            try {
                answer.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
        }
        return ids;
    }

    /** One messages.get of the whole message, gzip asked for as get_email asks (the answer is left compressed). */
    byte[] message(String id) throws IOException {
        return get("gmail/v1/users/me/messages/" + URLEncoder.encode(id, StandardCharsets.UTF_8) + "?format=full", true);
    }

    private byte[] get(String pathAndQuery, boolean gzip) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(root + pathAndQuery).toURL().openConnection();
        c.setRequestProperty("Authorization", authorization);
        if (gzip) {
            c.setRequestProperty("Accept-Encoding", "gzip");
        }
        c.setConnectTimeout(10_000);
        c.setReadTimeout(30_000);
        int status = c.getResponseCode();
        if (status / 100 != 2) {
            try (InputStream error = c.getErrorStream()) {
                if (error != null) {
                    error.readAllBytes(); // read whole, so that the connection is kept for the next exchange
                }
            }
            throw new IOException("HTTP " + status + " from " + c.getURL().getPath());
        }
        try (InputStream in = c.getInputStream()) {
            return in.readAllBytes();
        }
    }

    @Override
    public void close() {
        threads.close();
    }
}
