package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;

/** Every bad request gets a 4xx in Google's error format with a message that names what is wrong. */
class BadRequestsTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Emulator emulator;
    private static RawHttp http;

    @BeforeAll
    static void start() {
        emulator = emulators.start(JavaGmailClient.fastConfig().build());
        http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    @ParameterizedTest(name = "GET {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "gmail/v1/users/me/messages?maxResults=abc | 400 | maxResults",
            "gmail/v1/users/me/messages?maxResults=-5 | 400 | maxResults",
            "gmail/v1/users/me/messages?includeSpamTrash=maybe | 400 | includeSpamTrash",
            "gmail/v1/users/me/messages?pageToken=garbage | 400 | pageToken",
            "gmail/v1/users/me/messages?labelIds=Work | 400 | Invalid label: Work",
            "gmail/v1/users/me/messages/zzzz | 400 | Invalid id value",
            "gmail/v1/users/me/messages/12345678901234567 | 400 | Invalid id value",
            "gmail/v1/users/me/messages/0000000000000abc | 404 | not found",
            "gmail/v1/users/me/messages/0000000000000abc/attachments/x | 404 | not found",
            "gmail/v1/users/me/threads?pageToken=bad | 400 | pageToken",
            "gmail/v1/users/me/threads?pageToken=dDotNQ | 400 | pageToken",
            "gmail/v1/users/me/threads?pageToken=dDo5OTk5OTk5OTk5OTk5OTk5OTk5OQ | 400 | pageToken",
            "gmail/v1/users/me/messages?pageToken=bToxOjI6Mw | 400 | pageToken",
            "gmail/v1/users/me/messages?pageToken=bTo1Oi0x | 400 | pageToken",
            "gmail/v1/users/me/history?startHistoryId=1&pageToken=aDotMQ | 400 | pageToken",
            "gmail/v1/users/me/threads/nothex | 400 | Invalid id value",
            "gmail/v1/users/me/history | 400 | startHistoryId",
            "gmail/v1/users/me/history?startHistoryId=abc | 400 | startHistoryId",
            "gmail/v1/users/me/history?startHistoryId=999999999&historyTypes=everything | 400 | historyTypes",
            "gmail/v1/users/me/labels/Label_999 | 404 | not found",
            "gmail/v1/users/me/messages?fields=messages(id | 400 | fields",
            "gmail/v1/users/other@example.com/profile | 403 | Delegation denied",
            "gmail/v1/users/me/nothing | 404 | Method not found",
            "gmail/v2/users/me/profile | 404 | Method not found",
    })
    void answersBadGetsWithANamedError(String path, int status, String mentions) throws Exception {
        HttpResponse<String> r = http.get(path);
        assertThat(r.statusCode()).isEqualTo(status);
        assertGoogleError(r, status, mentions);
    }

    /** Tokens decoding to "t:-5" and "t:99999999999999999999" above; these two are in range but past every thread. */
    @ParameterizedTest(name = "threads.list pageToken {0} is an empty last page")
    @ValueSource(strings = {"dDoyMTQ3NDgzNjAw", "dDo5MjIzMzcyMDM2ODU0Nzc1ODA3"})
    void aPageTokenPastTheEndIsAnEmptyLastPageNotAWrappedAroundOne(String token) throws Exception {
        HttpResponse<String> r = http.get("gmail/v1/users/me/threads?maxResults=500&pageToken=" + token);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode page = JSON.readTree(r.body());
        assertThat(page.has("threads")).isFalse();
        assertThat(page.has("nextPageToken")).as("no next token, least of all a negative one").isFalse();
    }

    @Test
    void answersBadPostsWithANamedError() throws Exception {
        assertGoogleError(http.post("batch/gmail/v1", "text/plain", "hello"), 400, "multipart/mixed");
        assertGoogleError(http.post("batch", "multipart/mixed; boundary=b", "--b--\r\n"), 400, "Malformed batch body");
        String modify = "gmail/v1/users/me/messages/0000000000000abc/modify";
        assertGoogleError(http.post(modify, "application/json", "{not json"), 400, "Invalid JSON");
        assertGoogleError(http.post(modify, "application/json", "{\"addLabelIds\":\"STARRED\"}"), 400, "addLabelIds");
        assertGoogleError(http.post("gmail/v1/users/me/messages", "application/json", "{}"), 400, "'raw' RFC822 payload");
        assertGoogleError(http.post("gmail/v1/users/me/messages", "application/json", "{\"raw\": \"@@@\"}"), 400, "Invalid");
        assertGoogleError(http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/messages"))
                .header("Authorization", "Bearer t").PUT(HttpRequest.BodyPublishers.ofString("{}")).build()), 405, "not allowed");
    }

    /** The Java client's long-query form (POST with X-HTTP-Method-Override: GET): no query can overflow the stack. */
    @Test
    void aQueryNestedTooDeepIs400AndALongOneStillAnswers() throws Exception {
        String deep = "(".repeat(20_000) + "a" + ")".repeat(20_000);
        assertGoogleError(listWithLongQuery(deep), 400, "nest more than 100 deep");
        assertGoogleError(listWithLongQuery("-".repeat(20_000) + "a"), 400, "nest more than 100 deep");
        // label terms, cheap to test: the point is 20,000 terms in one list, not 20,000 searches of every message's text
        HttpResponse<String> wide = listWithLongQuery(String.join(" OR ", Collections.nCopies(20_000, "is:starred")));
        assertThat(wide.statusCode()).as(wide.body()).isEqualTo(200);
        HttpResponse<String> many = listWithLongQuery("is:starred ".repeat(20_000) + ")".repeat(20_000));
        assertThat(many.statusCode()).as(many.body()).isEqualTo(200);
    }

    private static HttpResponse<String> listWithLongQuery(String q) throws Exception {
        return http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/messages"))
                .header("Authorization", "Bearer t").header("X-HTTP-Method-Override", "GET")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("q=" + URLEncoder.encode(q, StandardCharsets.UTF_8)))
                .build());
    }

    @Test
    void rejectsBatchesOfMoreThanAHundredCalls() throws Exception {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 101; i++) {
            body.append("--b\r\nContent-Type: application/http\r\n\r\nGET /gmail/v1/users/me/profile\r\n\r\n");
        }
        body.append("--b--\r\n");
        HttpResponse<String> r = http.post("batch", "multipart/mixed; boundary=b", body.toString());
        assertThat(r.statusCode()).isEqualTo(400);
        assertGoogleError(r, 400, "at most 100");
    }

    @Test
    void rejectsAnUnknownLabelInModify() throws Exception {
        String id = JSON.readTree(http.get("gmail/v1/users/me/messages?maxResults=1").body()).get("messages").get(0).get("id").asText();
        HttpResponse<String> r = http.post("gmail/v1/users/me/messages/" + id + "/modify", "application/json",
                "{\"addLabelIds\":[\"NO_SUCH_LABEL\"]}");
        assertGoogleError(r, 400, "Invalid label: NO_SUCH_LABEL");
    }

    @Test
    void missingTokenIs401WithTheHeaderGoogleSends() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("gmail/v1/users/me/profile")).build());
        assertGoogleError(r, 401, "missing required authentication credential");
        assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow()).contains("invalid_token");
    }

    private static void assertGoogleError(HttpResponse<String> r, int status, String mentions) throws Exception {
        assertThat(r.statusCode()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/json");
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertThat(error.get("code").asInt()).isEqualTo(status);
        assertThat(error.get("message").asText()).containsIgnoringCase(mentions);
        assertThat(error.get("errors").get(0).get("reason").asText()).isNotBlank();
        assertThat(error.get("status").asText()).isNotBlank();
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }
}
