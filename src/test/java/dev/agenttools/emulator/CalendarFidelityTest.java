package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The emulator's Calendar answers against the shapes of real Google Calendar answers
 * ({@code src/test/resources/fidelity/calendar-recorded-shapes.json}, each entry citing the recording it was written
 * from): the same fields in Google's order with the same JSON types, the etags, times and links in Google's formats,
 * Calendar's own error body, and where the sync token comes. As {@link FidelityTest} for Gmail, with one addition:
 * a field whose name ends in {@code ?} in a shape is one Google sends on some answers of that kind only.
 */
class CalendarFidelityTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String WORK = "c_work.example@group.calendar.google.com";
    private static JsonNode recorded;
    private static RawHttp http;
    private static Map<String, String> ids;

    @BeforeAll
    static void start() throws Exception {
        recorded = JSON.readTree(Path.of("src", "test", "resources", "fidelity", "calendar-recorded-shapes.json").toFile());
        Emulator emulator = emulators.start(JavaGmailClient.fastConfig().build());
        http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
        String laSeries = get("calendar/v3/calendars/c_la.office@group.calendar.google.com/events?q=West%20coast").get("items").get(0)
                .get("id").asText();
        String primaryEvent = get("calendar/v3/calendars/primary/events?maxResults=1").get("items").get(0).get("id").asText();
        ids = Map.of("{la_series}", laSeries, "{primary_event}", primaryEvent);
    }

    @Test
    void everyRecordedCallIsAnsweredInCalendarsShape() throws Exception {
        List<String> problems = new ArrayList<>();
        for (JsonNode call : recorded.get("calls")) {
            String[] request = call.get("request").asText().split(" ", 2);
            String path = request[1];
            for (Map.Entry<String, String> e : ids.entrySet()) {
                path = path.replace(e.getKey(), e.getValue());
            }
            HttpResponse<String> r = request[0].equals("GET") ? http.get(path)
                    : http.post(path, "application/json", call.path("body").toString());
            if (r.statusCode() != 200) {
                problems.add(call.get("name").asText() + ": HTTP " + r.statusCode() + " " + r.body());
                continue;
            }
            compare(call.get("shape"), JSON.readTree(r.body()), call.get("name").asText(), problems);
        }
        assertThat(problems).as("differences from recorded Calendar answers").isEmpty();
    }

    @Test
    void everyEventOfEveryCalendarHasARecordedEventsShape() throws Exception {
        // every seeded kind of event (series, instances, all-day, with attendees, Meet, attachments), unexpanded and expanded
        List<String> problems = new ArrayList<>();
        int events = 0;
        for (JsonNode c : get("calendar/v3/users/me/calendarList?showHidden=true").get("items")) {
            String id = c.get("id").asText();
            if (!c.get("accessRole").asText().matches("reader|writer|owner") || id.contains("former.team")) {
                continue;
            }
            for (String query : List.of("maxResults=2500", "singleEvents=true&timeMin=2026-01-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z&maxResults=2500")) {
                JsonNode items = get("calendar/v3/calendars/" + encode(id) + "/events?" + query).get("items");
                for (JsonNode event : items) {
                    compare(recorded.get("shapes").get("event").get("shape"), event, id + " " + event.get("id").asText(), problems);
                    events++;
                }
            }
        }
        assertThat(events).isGreaterThan(100);
        assertThat(problems).as("differences from recorded events").isEmpty();
    }

    @Test
    void etagsTakeGooglesThreeForms() throws Exception {
        // facts.list_etag, entry_etag_in_list, calendar_etag, event_etag (calendar-recorded-shapes.json)
        String base32 = "\"[0-9a-v]{16}\"";
        JsonNode list = get("calendar/v3/users/me/calendarList");
        assertThat(list.get("etag").asText()).matches(base32);
        list.get("items").forEach(e -> assertThat(e.get("etag").asText()).matches("\"\\d+\""));
        assertThat(get("calendar/v3/users/me/calendarList/primary").get("etag").asText()).matches(base32);
        assertThat(get("calendar/v3/calendars/primary").get("etag").asText()).matches("\"[A-Za-z0-9_-]{27}\"");
        JsonNode events = get("calendar/v3/calendars/primary/events");
        assertThat(events.get("etag").asText()).matches(base32);
        assertThat(get("calendar/v3/calendars/" + WORK + "/events").get("etag").asText()).matches(base32)
                .isNotEqualTo(events.get("etag").asText());
        assertThat(get("calendar/v3/calendars/primary/events/" + ids.get("{primary_event}") + "/instances").get("etag").asText())
                .matches(base32);
        for (JsonNode e : events.get("items")) {
            Instant updated = Instant.parse(e.get("updated").asText());
            long micros = updated.getEpochSecond() * 1_000_000 + updated.getNano() / 1000;
            assertThat(e.get("etag").asText()).as(e.get("id").asText()).isEqualTo("\"" + 2 * micros + "\"");
        }
    }

    @Test
    void timesAreWrittenAsGooglesAre() throws Exception {
        // facts.stamps, facts.date_time: three fraction digits on stamps; seconds and an offset, no fraction, on times,
        // the offset the answer's zone's while timeZone keeps the event's own
        for (String zone : List.of("Europe/Berlin", "Asia/Tokyo", "America/Los_Angeles")) {
            JsonNode items = get("calendar/v3/calendars/primary/events?singleEvents=true&timeMin=2026-03-01T00:00:00Z"
                    + "&timeMax=2026-04-15T00:00:00Z&timeZone=" + zone).get("items");
            assertThat(items).isNotEmpty();
            for (JsonNode e : items) {
                assertThat(e.get("created").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
                assertThat(e.get("updated").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
                JsonNode start = e.get("start");
                if (start.has("dateTime")) {
                    String t = start.get("dateTime").asText();
                    assertThat(t).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(Z|[+-]\\d\\d:\\d\\d)");
                    OffsetDateTime at = OffsetDateTime.parse(t);
                    assertThat(at.getOffset()).as(t).isEqualTo(ZoneId.of(zone).getRules().getOffset(at.toInstant()));
                    assertThat(start.get("timeZone").asText()).as("the event's own zone").isEqualTo("Europe/Berlin");
                }
            }
        }
    }

    @Test
    void htmlLinksAbbreviateTheCalendarAsGooglesDo() throws Exception {
        // facts.html_link: "<id> <calendar>", @group.calendar.google.com as @g; a series links its first instance
        JsonNode work = get("calendar/v3/calendars/" + WORK + "/events").get("items");
        boolean seriesSeen = false;
        for (JsonNode e : work) {
            String eid = e.get("htmlLink").asText().replaceFirst("^https://www\\.google\\.com/calendar/event\\?eid=", "");
            assertThat(eid).matches("[A-Za-z0-9_-]+");
            String decoded = new String(Base64.getUrlDecoder().decode(eid), StandardCharsets.UTF_8);
            String id = e.get("id").asText();
            if (e.has("recurrence")) {
                seriesSeen = true;
                assertThat(decoded).matches(id + "_\\d{8}(T\\d{6}Z)? c_work\\.example@g");
            } else {
                assertThat(decoded).isEqualTo(id + " c_work.example@g");
            }
        }
        assertThat(seriesSeen).isTrue();
    }

    @Test
    void freeBusyEchoesTheRangeWithMillisecondsAndBusyTimesWithout() throws Exception {
        // facts.free_busy
        String body = "{\"timeMin\": \"2026-02-02T00:00:00Z\", \"timeMax\": \"2026-02-03T00:00:00+00:00\", \"items\": [{\"id\": \"" + WORK + "\"}]}";
        JsonNode answer = JSON.readTree(http.post("calendar/v3/freeBusy", "application/json", body).body());
        assertThat(answer.get("timeMin").asText()).isEqualTo("2026-02-02T00:00:00.000Z");
        assertThat(answer.get("timeMax").asText()).isEqualTo("2026-02-03T00:00:00.000Z");
        JsonNode busy = answer.get("calendars").get(WORK).get("busy");
        assertThat(busy).isNotEmpty();
        busy.forEach(b -> assertThat(b.get("start").asText() + " " + b.get("end").asText())
                .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"));
    }

    @Test
    void syncTokensComeWhereGooglesDo() throws Exception {
        // the calls "events.list from timeMin in start order" (none), "events.list, unexpanded" and
        // "events.instances, all of them" (one): checked in the shapes; here the neighbours stay as they were
        assertThat(get("calendar/v3/calendars/" + WORK + "/events?singleEvents=true&orderBy=startTime&timeMin=2026-02-01T00:00:00Z&maxResults=2500")
                .has("nextSyncToken")).isFalse();
        assertThat(get("calendar/v3/calendars/" + WORK + "/events?singleEvents=true&timeMin=2026-02-01T00:00:00Z&timeMax=2026-02-03T00:00:00Z")
                .has("nextSyncToken")).as("without orderBy: a sync token").isTrue();
        assertThat(get("calendar/v3/calendars/" + WORK + "/events?singleEvents=true&orderBy=startTime&maxResults=2500")
                .has("nextSyncToken"))
                .as("in start order without timeMin: a sync token").isTrue();
    }

    @Test
    void calendarErrorsHaveCalendarsBodyAndAuthErrorsTheFrontEnds() throws Exception {
        // errors.backend_shape: no status, errors[] first, its fields domain, reason, message (then locationType, location)
        List<String> problems = new ArrayList<>();
        JsonNode shape = recorded.get("errors").get("backend_shape");
        HttpResponse<String> empty = http.get("calendar/v3/calendars/primary/events?timeMin=2026-02-02T00:00:00Z&timeMax=2026-02-01T00:00:00Z");
        assertThat(empty.statusCode()).isEqualTo(400);
        JsonNode range = JSON.readTree(empty.body());
        compare(shape, range, "timeRangeEmpty", problems);
        assertThat(names(range.get("error").get("errors").get(0))).containsExactly("domain", "reason", "message", "locationType", "location");
        HttpResponse<String> missing = http.get("calendar/v3/calendars/primary/events/nosuchevent");
        assertThat(missing.statusCode()).isEqualTo(404);
        JsonNode notFound = JSON.readTree(missing.body());
        compare(shape, notFound, "notFound", problems);
        assertThat(notFound.get("error").get("message").asText()).isEqualTo("Not Found");
        assertThat(notFound.get("error").get("errors").get(0).get("message").asText()).isEqualTo("Not Found");
        assertThat(problems).isEmpty();
    }

    @Test
    void authErrorsKeepTheFrontEndsBody() throws Exception {
        // a bad token is refused before Calendar's backend: the front end's body, as for Gmail (status, its header)
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().token("good").build())) {
            RawHttp raw = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            HttpResponse<String> r = raw.send(HttpRequest.newBuilder(emulator.rootUri().resolve("calendar/v3/calendars/primary"))
                    .header("Authorization", "Bearer bad").build());
            assertThat(r.statusCode()).isEqualTo(401);
            JsonNode error = JSON.readTree(r.body()).get("error");
            assertThat(error.get("status").asText()).isEqualTo("UNAUTHENTICATED");
            assertThat(error.get("errors").get(0).get("reason").asText()).isEqualTo("authError");
        }
    }

    private static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.get(path);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static String encode(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8);
    }

    /**
     * Records where {@code actual} differs from {@code shape}: the fields present (all those without {@code ?}, no
     * others), their order (Google's, with optional ones left out), their JSON types; {@code "@name"} is a shared
     * shape of the file, {@code []} an array recorded only empty.
     */
    static void compare(JsonNode shape, JsonNode actual, String where, List<String> problems) {
        if (shape.isTextual() && shape.asText().startsWith("@")) {
            compare(recorded.get("shapes").get(shape.asText().substring(1)).get("shape"), actual, where, problems);
        } else if (shape.isTextual()) {
            boolean ok = switch (shape.asText()) {
                case "string" -> actual.isTextual();
                case "number" -> actual.isNumber();
                case "boolean" -> actual.isBoolean();
                default -> throw new IllegalArgumentException("unknown type " + shape + " at " + where);
            };
            if (!ok) {
                problems.add(where + ": " + actual.getNodeType() + " " + abbreviated(actual) + ", Google sends a " + shape.asText());
            }
        } else if (shape.isArray()) {
            if (!actual.isArray()) {
                problems.add(where + ": " + abbreviated(actual) + ", Google sends an array");
                return;
            }
            if (shape.isEmpty()) {
                return; // recorded only empty: its elements' shape is unknown
            }
            for (int i = 0; i < actual.size(); i++) {
                compare(shape.get(0), actual.get(i), where + "[" + i + "]", problems);
            }
        } else {
            if (!actual.isObject()) {
                problems.add(where + ": " + abbreviated(actual) + ", Google sends an object");
                return;
            }
            List<String> order = new ArrayList<>();
            List<String> required = new ArrayList<>();
            for (String name : names(shape)) {
                String plain = name.endsWith("?") ? name.substring(0, name.length() - 1) : name;
                order.add(plain);
                if (!name.endsWith("?")) {
                    required.add(plain);
                }
            }
            List<String> got = names(actual);
            List<String> expected = order.stream().filter(n -> got.contains(n) || required.contains(n)).toList();
            if (!expected.equals(got)) {
                problems.add(where + ": fields " + got + ", Google sends " + expected);
            }
            for (String name : names(shape)) {
                String plain = name.endsWith("?") ? name.substring(0, name.length() - 1) : name;
                if (actual.has(plain)) {
                    compare(shape.get(name), actual.get(plain), where + "." + plain, problems);
                }
            }
        }
    }

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    private static String abbreviated(JsonNode n) {
        String s = n.toString();
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
