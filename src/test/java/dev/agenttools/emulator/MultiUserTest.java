package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One emulator serves many users: each has its own mailbox and calendars, its own tokens (fixed ones and those the
 * OAuth endpoint issues for a {@code login_hint}), its own quota and concurrency limit and its own counters; a token of
 * one user never reaches another's data. All over real HTTP.
 */
class MultiUserTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REDIRECT = "http://127.0.0.1:9/Callback";
    private static final String GMAIL_SCOPE = "https://www.googleapis.com/auth/gmail.readonly";
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static EmulatorConfig.Builder users(int n) {
        return JavaGmailClient.fastConfig().users(n).seedMessages(20);
    }

    @Test
    void eachUserSeesItsOwnMailboxCalendarsAndProfileAddress() throws Exception {
        Emulator emulator = emulators.start(users(3).build());
        Map<String, List<String>> subjectsByUser = new HashMap<>();
        for (int n = 1; n <= 3; n++) {
            String user = emulator.userAddress(n);
            String token = emulator.tokenFor(user);
            JsonNode profile = json(get(emulator, "gmail/v1/users/me/profile", token), 200);
            assertThat(profile.get("emailAddress").asText()).isEqualTo(user);
            assertThat(profile.get("messagesTotal").asInt()).isEqualTo(20);
            // the user's own address is accepted as userId, as Gmail accepts it
            assertThat(json(get(emulator, "gmail/v1/users/" + user + "/profile", token), 200).get("emailAddress").asText())
                    .isEqualTo(user);
            subjectsByUser.put(user, subjects(emulator, token));
            JsonNode primary = json(get(emulator, "calendar/v3/calendars/primary", token), 200);
            assertThat(primary.get("id").asText()).as("the primary calendar's id is the user's address").isEqualTo(user);
        }
        assertThat(emulator.userAddress(1)).isEqualTo("me@example.com");
        assertThat(emulator.userAddress(2)).isEqualTo("user2@example.com");
        assertThat(subjectsByUser.get("user2@example.com")).as("different users, different mail")
                .isNotEqualTo(subjectsByUser.get("user3@example.com"))
                .isNotEqualTo(subjectsByUser.get("me@example.com"));
        JsonNode user2Events = json(get(emulator, "calendar/v3/calendars/primary/events?q="
                + enc("Weekly review"), emulator.tokenFor("user2@example.com")), 200);
        assertThat(user2Events.get("items").get(0).get("summary").asText()).isEqualTo("Weekly review of user 2");
        assertThat(json(get(emulator, "calendar/v3/calendars/primary/events?q=" + enc("Weekly review"),
                emulator.tokenFor("me@example.com")), 200).get("items")).as("user 1's calendars are as before").isEmpty();

        // the same seed gives each user the same mail again
        Emulator again = emulators.start(users(3).build());
        assertThat(subjects(again, again.tokenFor("user3@example.com"))).isEqualTo(subjectsByUser.get("user3@example.com"));
    }

    @Test
    void noTwoUsersShareAMessageIdAndEveryFurtherUsersSubjectCarriesItsNumber() throws Exception {
        // the scale test's shape: 101 users of 40 messages (before, 48 of them listed another's ten newest ids)
        Emulator emulator = emulators.start(users(101).seedMessages(40).build());
        Map<String, Integer> owners = new HashMap<>();
        for (int n = 1; n <= 101; n++) {
            String token = emulator.tokenFor(emulator.userAddress(n));
            JsonNode list = json(get(emulator, "gmail/v1/users/me/messages?maxResults=500&includeSpamTrash=true",
                    token), 200);
            assertThat(list.get("messages")).hasSize(40);
            for (JsonNode m : list.get("messages")) {
                Integer before = owners.put(m.get("id").asText(), n);
                assertThat(before).as("message %s of user %d is also user %s's", m.get("id").asText(), n, before)
                        .isNull();
            }
            List<String> subjects = subjects(emulator, token);
            if (n == 1) {
                assertThat(subjects).as("user 1's mail is as it always was").noneMatch(s -> s.contains("[user"));
            } else {
                int user = n;
                assertThat(subjects).as("user %d's subjects", n).allMatch(s -> s.endsWith(" [user" + user + "]"));
            }
        }
    }

    @Test
    void aUsersTokenOnAnotherUsersPathIsRefusedAsGmailDelegationDenied() throws Exception {
        Emulator emulator = emulators.start(users(3).build());
        String user2 = emulator.tokenFor("user2@example.com");
        HttpResponse<String> other = get(emulator, "gmail/v1/users/user3@example.com/messages", user2);
        assertThat(other.statusCode()).as(other.body()).isEqualTo(403);
        JsonNode error = JSON.readTree(other.body()).get("error");
        assertThat(error.get("message").asText()).isEqualTo("Delegation denied for user3@example.com");
        assertThat(error.get("errors").get(0).get("reason").asText()).isEqualTo("forbidden");
        // nor does a message id of user 3 reach user 3's mailbox through user 2's "me"
        String user3Message = json(get(emulator, "gmail/v1/users/me/messages?maxResults=1",
                emulator.tokenFor("user3@example.com")), 200).get("messages").get(0).get("id").asText();
        assertThat(get(emulator, "gmail/v1/users/me/messages/" + user3Message, user2).statusCode()).isEqualTo(404);
        assertThat(get(emulator, "calendar/v3/calendars/user3@example.com", user2).statusCode())
                .as("another user's primary calendar is not in this user's list").isEqualTo(404);
        // with several users a token must be one of theirs
        assertThat(get(emulator, "gmail/v1/users/me/profile", "emulator-user-4").statusCode()).isEqualTo(401);
        assertThat(get(emulator, "gmail/v1/users/me/profile", "any-token").statusCode()).isEqualTo(401);
        assertThat(emulator.counters().authFailures()).isEqualTo(2);
    }

    @Test
    void oneUsersConcurrencyLimitAndCountersAreItsOwn() throws Exception {
        // The admitted calls stay in flight 2.5 s: time enough for the others to arrive on a busy machine.
        Emulator emulator = emulators.start(users(3).latency(Duration.ofMillis(2_500)).maxConcurrent(2).build());
        String user2 = emulator.tokenFor("user2@example.com");
        String user3 = emulator.tokenFor("user3@example.com");
        get(emulator, "gmail/v1/users/me/labels", user2); // seed both mailboxes before the race
        get(emulator, "gmail/v1/users/me/labels", user3);
        post(emulator, "emulator/v1/counters:reset");
        List<Future<HttpResponse<String>>> heavy = new ArrayList<>();
        List<Future<HttpResponse<String>>> light = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 6; i++) {
                heavy.add(pool.submit(() -> get(emulator, "gmail/v1/users/me/profile", user2)));
            }
            for (int i = 0; i < 2; i++) {
                light.add(pool.submit(() -> get(emulator, "gmail/v1/users/me/profile", user3)));
            }
        }
        Map<Integer, Integer> heavyStatus = statuses(heavy);
        assertThat(heavyStatus).isEqualTo(Map.of(200, 2, 429, 4));
        for (var f : heavy) {
            if (f.get().statusCode() == 429) {
                assertThat(f.get().body()).contains("Too many concurrent requests for user");
            }
        }
        assertThat(statuses(light)).as("user 3's two calls fit its own limit").isEqualTo(Map.of(200, 2));

        EmulatorCounters counters = emulator.counters();
        assertThat(counters.user("user2@example.com"))
                .isEqualTo(new EmulatorCounters.User(6, 0, 4, 4, 2));
        assertThat(counters.user("user3@example.com")).isEqualTo(new EmulatorCounters.User(2, 0, 0, 0, 2));
        assertThat(counters.concurrencyRejections()).isEqualTo(4);
        assertThat(counters.peakInFlight()).as("over all users").isEqualTo(4);
        // the counters endpoint shows the same, for a test outside the JVM
        JsonNode remote = json(get(emulator, "emulator/v1/counters", "unused"), 200).get("users");
        assertThat(remote.get("user2@example.com").get("tooManyRequests").asLong()).isEqualTo(4);
        assertThat(remote.get("user2@example.com").get("apiCalls").asLong()).isEqualTo(6);
        assertThat(remote.get("user3@example.com").get("tooManyRequests").asLong()).isZero();
    }

    @Test
    void oneUsersSpentQuotaGivesThatUserRefusalsWhileAnotherIsServed() throws Exception {
        // 5 units a minute, bucket of 5: five profile calls (1 unit each), then the bucket is empty for 12 s a unit
        Emulator emulator = emulators.start(users(2).quotaPerMinute(5).burst(5).build());
        String me = emulator.tokenFor("me@example.com");
        for (int i = 0; i < 5; i++) {
            assertThat(get(emulator, "gmail/v1/users/me/profile", me).statusCode()).isEqualTo(200);
        }
        List<Integer> refused = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            refused.add(get(emulator, "gmail/v1/users/me/profile", me).statusCode());
        }
        assertThat(refused).as("Gmail's two shapes of a spent per-user quota").containsExactly(429, 403, 429, 403);
        String user2 = emulator.tokenFor("user2@example.com");
        for (int i = 0; i < 5; i++) {
            assertThat(get(emulator, "gmail/v1/users/me/profile", user2).statusCode()).as("user 2's own bucket").isEqualTo(200);
        }
        EmulatorCounters counters = emulator.counters();
        assertThat(counters.user("me@example.com")).isEqualTo(new EmulatorCounters.User(9, 4, 0, 2, 1));
        assertThat(counters.user("user2@example.com")).isEqualTo(new EmulatorCounters.User(5, 0, 0, 0, 1));
    }

    @Test
    void oauthSignsInTheUserTheLoginHintNamesAndARefreshedTokenStaysThatUsers() throws Exception {
        Emulator emulator = emulators.start(users(3).build());
        JsonNode signIn = json(token(emulator, "grant_type=authorization_code&redirect_uri=" + enc(REDIRECT) + "&code="
                + enc(code(emulator, "user3@example.com"))), 200);
        String access = signIn.get("access_token").asText();
        String refresh = signIn.get("refresh_token").asText();
        assertThat(profileAddress(emulator, access)).isEqualTo("user3@example.com");
        assertThat(get(emulator, "gmail/v1/users/user2@example.com/profile", access).statusCode()).isEqualTo(403);

        String refreshed = json(token(emulator, "grant_type=refresh_token&refresh_token=" + enc(refresh)), 200)
                .get("access_token").asText();
        assertThat(refreshed).isNotEqualTo(access);
        assertThat(profileAddress(emulator, refreshed)).as("a refreshed token is the same user's").isEqualTo("user3@example.com");
        assertThat(profileAddress(emulator, access)).as("the first token still works until it expires").isEqualTo("user3@example.com");

        // no hint: user 1, as a sign-in was before users
        JsonNode noHint = json(token(emulator, "grant_type=authorization_code&redirect_uri=" + enc(REDIRECT) + "&code="
                + enc(code(emulator, null))), 200);
        assertThat(profileAddress(emulator, noHint.get("access_token").asText())).isEqualTo("me@example.com");
        // a hint that names none of the users is refused, not signed in as someone else
        HttpResponse<String> unknown = authorize(emulator, "user4@example.com");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("invalid_request").contains("login_hint").contains("user4@example.com");
    }

    @Test
    void oneUserBehavesAsBeforeAndTokenStaysUserOnesToken() throws Exception {
        Emulator single = emulators.start(JavaGmailClient.fastConfig().seedMessages(20).build());
        assertThat(profileAddress(single, "any-token")).as("one user: any token, as before").isEqualTo("me@example.com");
        assertThat(profileAddress(single, "emulator-user-2")).isEqualTo("me@example.com");
        assertThat(profileAddress(single, single.tokenFor("me@example.com"))).isEqualTo("me@example.com");
        // one user: a login_hint is not checked, as before
        JsonNode signIn = json(token(single, "grant_type=authorization_code&redirect_uri=" + enc(REDIRECT) + "&code="
                + enc(code(single, "someone@else.example"))), 200);
        assertThat(profileAddress(single, signIn.get("access_token").asText())).isEqualTo("me@example.com");
        assertThat(single.counters().users()).containsOnlyKeys("me@example.com");
        assertThatThrownBy(() -> single.tokenFor("user2@example.com")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user2@example.com").hasMessageContaining("me@example.com");

        // --token is user 1's only token; the other users keep their fixed ones
        Emulator withToken = emulators.start(users(2).token("s3cret").build());
        assertThat(withToken.tokenFor("me@example.com")).isEqualTo("s3cret");
        assertThat(profileAddress(withToken, "s3cret")).isEqualTo("me@example.com");
        assertThat(get(withToken, "gmail/v1/users/me/profile", "emulator-user-1").statusCode()).isEqualTo(401);
        assertThat(profileAddress(withToken, "emulator-user-2")).isEqualTo("user2@example.com");
    }

    @Test
    void aThousandUsersStartAtOnceAndAreSeededAtTheirFirstCall() throws Exception {
        Emulator emulator = emulators.start(users(1_000).build());
        assertThat(emulator.usersSeeded()).isEqualTo(1);
        assertThat(profileAddress(emulator, "emulator-user-1000")).isEqualTo("user1000@example.com");
        assertThat(emulator.usersSeeded()).isEqualTo(2);
        assertThat(get(emulator, "gmail/v1/users/me/profile", "emulator-user-1001").statusCode()).isEqualTo(401);
    }

    @Test
    void badUserCountsAndClashingAddressesAreRefusedByName() {
        assertThatThrownBy(() -> EmulatorConfig.builder().users(0).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("users must be 1..100000, got 0");
        assertThatThrownBy(() -> EmulatorConfig.builder().users(3).userEmail("user2@example.com").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("user2@example.com")
                .hasMessageContaining("user 2 of 3 users");
        assertThat(EmulatorConfig.builder().users(3).userEmail("user4@example.com").build().users()).isEqualTo(3);
    }

    // ---- helpers ----

    private List<String> subjects(Emulator emulator, String token) throws Exception {
        JsonNode list = json(get(emulator, "gmail/v1/users/me/messages?maxResults=5", token), 200);
        List<String> subjects = new ArrayList<>();
        for (JsonNode m : list.get("messages")) {
            JsonNode message = json(get(emulator, "gmail/v1/users/me/messages/" + m.get("id").asText()
                    + "?format=metadata&metadataHeaders=Subject", token), 200);
            // a message without a Subject has no headers at all in this format
            subjects.add(message.path("payload").path("headers").path(0).path("value").asText(""));
        }
        return subjects;
    }

    private String profileAddress(Emulator emulator, String token) throws Exception {
        return json(get(emulator, "gmail/v1/users/me/profile", token), 200).get("emailAddress").asText();
    }

    private HttpResponse<String> get(Emulator emulator, String path, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve(path)).header("Authorization", "Bearer " + token)
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private void post(Emulator emulator, String path) throws Exception {
        http.send(HttpRequest.newBuilder(emulator.rootUri().resolve(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding());
    }

    private HttpResponse<String> authorize(Emulator emulator, String loginHint) throws Exception {
        String query = "client_id=c&response_type=code&scope=" + enc(GMAIL_SCOPE) + "&redirect_uri=" + enc(REDIRECT)
                + (loginHint == null ? "" : "&login_hint=" + enc(loginHint));
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("o/oauth2/auth?" + query)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String code(Emulator emulator, String loginHint) throws Exception {
        HttpResponse<String> r = authorize(emulator, loginHint);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(302);
        String location = r.headers().firstValue("Location").orElseThrow();
        for (String pair : URI.create(location).getRawQuery().split("&")) {
            if (pair.startsWith("code=")) {
                return URLDecoder.decode(pair.substring(5), StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no code in " + location);
    }

    private HttpResponse<String> token(Emulator emulator, String form) throws Exception {
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form + "&client_id=c&client_secret=s")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }

    private static Map<Integer, Integer> statuses(List<Future<HttpResponse<String>>> calls) throws Exception {
        Map<Integer, Integer> byStatus = new HashMap<>();
        for (var f : calls) {
            byStatus.merge(f.get().statusCode(), 1, Integer::sum);
        }
        return byStatus;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
