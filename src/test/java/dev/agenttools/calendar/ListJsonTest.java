package dev.agenttools.calendar;

import com.google.api.services.calendar.model.CalendarList;
import com.google.api.services.calendar.model.Events;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static dev.agenttools.google.ClientParsed.asClientParsed;
import static dev.agenttools.google.ClientParsed.get;
import static dev.agenttools.google.ClientParsed.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Our streaming reader of calendarList.list and events.list builds what the Calendar client's own parser builds from
 * the fields the tools ask for, on every seeded calendar and every event of a year, series expanded and not.
 */
class ListJsonTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    private static String encoded(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void readsEveryCalendarAndEventAsTheCalendarClientDoes() throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).token("t").build()); HttpClient http = HttpClient.newHttpClient()) {
            String root = emulator.rootUri() + "calendar/v3/";
            byte[] listed = get(http, root + "users/me/calendarList?showHidden=true&fields=" + encoded(CalendarService.CALENDAR_LIST_FIELDS));
            CalendarList calendars = ListJson.calendarList(listed);
            assertThat(written(calendars)).isEqualTo(asClientParsed(listed, CalendarList.class));
            assertThat(calendars.getItems()).hasSizeGreaterThanOrEqualTo(9);
            assertThat(calendars.getItems()).anySatisfy(c -> assertThat(c.getHidden()).isTrue());
            int events = 0;
            for (var calendar : calendars.getItems()) {
                for (String expand : new String[] {"true", "false"}) {
                    String page = null;
                    do {
                        String url = root + "calendars/" + encoded(calendar.getId()) + "/events?singleEvents=" + expand
                                + "&timeMin=2026-01-01T00:00:00Z&timeMax=2027-01-01T00:00:00Z&maxResults=250&fields="
                                + encoded(CalendarService.EVENT_LIST_FIELDS)
                                + (page == null ? "" : "&pageToken=" + encoded(page));
                        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer t").build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                        if (r.statusCode() == 404) {
                            break; // the seeded calendar deleted by its owner
                        }
                        assertThat(r.statusCode()).as(url).isEqualTo(200);
                        Events ours = ListJson.events(r.body());
                        assertThat(written(ours)).as(url).isEqualTo(asClientParsed(r.body(), Events.class));
                        events += ours.getItems() == null ? 0 : ours.getItems().size();
                        page = ours.getNextPageToken();
                    } while (page != null);
                }
            }
            assertThat(events).as("events read").isGreaterThan(500);
        }
    }

    @Test
    void skipsFieldsItDoesNotReadAndSaysWhenTheShapeIsWrong() throws Exception {
        Events e = ListJson.events(("{\"timeZone\":\"Asia/Tokyo\",\"items\":[{\"id\":\"a\",\"unknown\":{\"x\":[1,{}]},"
                + "\"start\":{\"date\":\"2026-06-02\"},\"end\":{\"dateTime\":\"2026-06-02T10:00:00+09:00\",\"timeZone\":\"Asia/Tokyo\"},"
                + "\"attendees\":[{\"email\":\"b@example.com\",\"optional\":true}],\"description\":null}]}").getBytes(StandardCharsets.UTF_8));
        assertThat(e.getTimeZone()).isEqualTo("Asia/Tokyo");
        assertThat(e.getItems().getFirst().getStart().getDate().isDateOnly()).isTrue();
        assertThat(e.getItems().getFirst().getEnd().getDateTime().toStringRfc3339()).isEqualTo("2026-06-02T10:00:00.000+09:00");
        assertThat(e.getItems().getFirst().getAttendees().getFirst().getOptional()).isTrue();
        assertThat(e.getItems().getFirst().getDescription()).isNull();
        assertThatThrownBy(() -> ListJson.events("[1]".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("unexpected shape");
    }
}
