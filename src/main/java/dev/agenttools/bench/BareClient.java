package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;

/**
 * The run's floor: the HTTP exchanges of list_emails(n) (one messages.list, then n messages.get at once), of
 * get_email, of list_events (one calendarList.list, then each shown calendar's events.list at once) and of
 * get_event, made by the JDK's plain {@link HttpURLConnection} (HTTP/1.1, over TLS too, keep-alive, blocking, on virtual threads)
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
    private final String calendarListFields;
    private final String eventListFields;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final SSLSocketFactory tls;

    /**
     * @param masks the {@code fields} the tools ask for: Gmail's list and get, Calendar's calendar list and event list
     * @param trust over https, the TLS context to trust the server by (null: the system's CA certificates)
     */
    BareClient(String rootUrl, String token, List<String> masks, SSLContext trust) {
        this.tls = trust == null ? null : trust.getSocketFactory();
        this.root = rootUrl.endsWith("/") ? rootUrl : rootUrl + "/";
        this.authorization = "Bearer " + token;
        List<String> encoded = masks.stream().map(m -> URLEncoder.encode(m, StandardCharsets.UTF_8)).toList();
        this.listFields = encoded.get(0);
        this.getFields = encoded.get(1);
        this.calendarListFields = encoded.get(2);
        this.eventListFields = encoded.get(3);
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
        await(answers);
        return ids;
    }

    /**
     * One calendarList.list, then today's events (in the primary calendar's zone) of every calendar the user shows,
     * all at once, as list_events asks for them; a calendar that answers 404 counts, as the tools skip it. Returns
     * how many calendars were asked.
     */
    int agenda() throws IOException, InterruptedException {
        JsonNode list = Json.MAPPER.readTree(get("calendar/v3/users/me/calendarList?maxResults=250&showHidden=true&fields=" + calendarListFields, false));
        List<String> shown = new ArrayList<>();
        ZoneId zone = ZoneOffset.UTC;
        for (JsonNode c : list.path("items")) {
            if (c.path("primary").asBoolean()) {
                zone = ZoneId.of(c.path("timeZone").asText("UTC"));
            }
            if (c.path("selected").asBoolean() && !c.path("hidden").asBoolean()) {
                shown.add(c.path("id").asText());
            }
        }
        ZonedDateTime today = LocalDate.now(zone).atStartOfDay(zone);
        String range = "&timeMin=" + URLEncoder.encode(today.toOffsetDateTime().toString(), StandardCharsets.UTF_8)
                + "&timeMax=" + URLEncoder.encode(today.plusDays(1).toOffsetDateTime().toString(), StandardCharsets.UTF_8);
        List<Future<byte[]>> answers = new ArrayList<>();
        for (String id : shown) {
            answers.add(threads.submit(() -> get("calendar/v3/calendars/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
                    + "/events?singleEvents=true&orderBy=startTime&maxResults=50" + range + "&fields=" + eventListFields, false, 404)));
        }
        await(answers);
        return shown.size();
    }

    /** One events.get, as get_event asks. */
    byte[] event(String calendarId, String eventId) throws IOException {
        return get("calendar/v3/calendars/" + URLEncoder.encode(calendarId, StandardCharsets.UTF_8) + "/events/"
                + URLEncoder.encode(eventId, StandardCharsets.UTF_8), false);
    }

    private static void await(List<Future<byte[]>> answers) throws IOException, InterruptedException {
        for (Future<byte[]> answer : answers) {
            try {
                answer.get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
        }
    }

    /** One messages.get of the whole message, gzip asked for as get_email asks (the answer is left compressed). */
    byte[] message(String id) throws IOException {
        return get("gmail/v1/users/me/messages/" + URLEncoder.encode(id, StandardCharsets.UTF_8) + "?format=full", true);
    }

    /** GETs and reads the answer whole; statuses other than 2xx and {@code alsoFine} are errors. */
    private byte[] get(String pathAndQuery, boolean gzip, int... alsoFine) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(root + pathAndQuery).toURL().openConnection();
        if (tls != null && c instanceof HttpsURLConnection https) {
            https.setSSLSocketFactory(tls); // one factory for every request: its TLS sessions and kept connections are shared
        }
        c.setRequestProperty("Authorization", authorization);
        if (gzip) {
            c.setRequestProperty("Accept-Encoding", "gzip");
        }
        c.setConnectTimeout(10_000);
        c.setReadTimeout(30_000);
        int status = c.getResponseCode();
        if (status / 100 != 2) {
            byte[] body;
            try (InputStream error = c.getErrorStream()) {
                body = error == null ? new byte[0] : error.readAllBytes(); // read whole: the connection is kept
            }
            if (Arrays.stream(alsoFine).anyMatch(fine -> fine == status)) {
                return body;
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
