package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** A token from the emulated sign-in reaches only the APIs its scopes cover: Gmail's, Calendar's, or both. */
class OAuthScopeTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final String REDIRECT = "http://127.0.0.1:9/Callback";
    private static final String GMAIL = "https://www.googleapis.com/auth/gmail.readonly";
    private static final String CALENDAR = "https://www.googleapis.com/auth/calendar.readonly";
    private static Emulator emulator;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        emulator = emulators.start(JavaGmailClient.fastConfig().build());
        http = HttpClient.newHttpClient();
    }

    @Test
    void aGmailTokenIsRefusedByCalendarAndTheOtherWayRound() throws Exception {
        String gmailOnly = accessToken(GMAIL);
        assertThat(status(gmailOnly, "gmail/v1/users/me/profile")).isEqualTo(200);
        assertThat(status(gmailOnly, "calendar/v3/colors")).isEqualTo(403);
        String calendarOnly = accessToken(CALENDAR);
        assertThat(status(calendarOnly, "calendar/v3/users/me/calendarList")).isEqualTo(200);
        assertThat(status(calendarOnly, "gmail/v1/users/me/profile")).isEqualTo(403);
        String both = accessToken(GMAIL + " " + CALENDAR);
        assertThat(status(both, "gmail/v1/users/me/profile")).isEqualTo(200);
        assertThat(status(both, "calendar/v3/colors")).isEqualTo(200);
    }

    private static int status(String token, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve(path)).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static String accessToken(String scope) throws Exception {
        String query = "client_id=c&response_type=code&scope=" + enc(scope) + "&redirect_uri=" + enc(REDIRECT);
        HttpResponse<String> consent = http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("o/oauth2/auth?" + query)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(consent.statusCode()).as(consent.body()).isEqualTo(302);
        String code = null;
        for (String pair : URI.create(consent.headers().firstValue("Location").orElseThrow()).getRawQuery().split("&")) {
            if (pair.startsWith("code=")) {
                code = URLDecoder.decode(pair.substring(5), StandardCharsets.UTF_8);
            }
        }
        String form = "grant_type=authorization_code&client_id=c&client_secret=s&redirect_uri=" + enc(REDIRECT) + "&code=" + enc(code);
        HttpResponse<String> tokens = http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("token"))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(tokens.statusCode()).as(tokens.body()).isEqualTo(200);
        return new ObjectMapper().readTree(tokens.body()).get("access_token").asText();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
