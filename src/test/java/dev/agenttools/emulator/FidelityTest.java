package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The emulator's answers against the shapes of real Gmail answers ({@code src/test/resources/fidelity/gmail-captured-shapes.json},
 * each entry citing the capture it was written from): the same fields in the same order with the same JSON types,
 * arrays element by element, the labels in Gmail's order with Gmail's visibility fields, and Google's headers.
 */
class FidelityTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonNode captured;
    private static RawHttp http;
    private static Map<String, String> ids;

    @BeforeAll
    static void start() throws Exception {
        captured = JSON.readTree(Path.of("src", "test", "resources", "fidelity", "gmail-captured-shapes.json").toFile());
        Emulator emulator = emulators.start(JavaGmailClient.fastConfig().build());
        http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
        JsonNode inbox = JSON.readTree(http.get("gmail/v1/users/me/messages?maxResults=10&q=in:inbox").body()).get("messages");
        String message = inbox.get(0).get("id").asText();
        String withAttachment = JSON.readTree(http.get("gmail/v1/users/me/messages?maxResults=1&q=has:attachment%20filename:pdf").body())
                .get("messages").get(0).get("id").asText();
        JsonNode full = JSON.readTree(http.get("gmail/v1/users/me/messages/" + withAttachment).body());
        // the calls that change the mailbox (trash, untrash) work on messages and threads of their own
        String trashThread = inbox.findValues("threadId").stream().map(JsonNode::asText)
                .filter(t -> !t.equals(inbox.get(0).get("threadId").asText()) && !t.equals(inbox.get(1).get("threadId").asText()))
                .findFirst().orElseThrow();
        ids = Map.of("{message}", message, "{thread}", inbox.get(0).get("threadId").asText(), "{attachment_message}", withAttachment,
                "{attachment}", full.findValue("attachmentId").asText(), "{trash_message}", inbox.get(1).get("id").asText(),
                "{trash_thread}", trashThread);
    }

    @Test
    void everyCapturedCallIsAnsweredInGmailsShape() throws Exception {
        List<String> problems = new ArrayList<>();
        for (JsonNode call : captured.get("calls")) {
            HttpResponse<String> r = send(call);
            int status = call.path("status").asInt(200);
            if (r.statusCode() != status) {
                problems.add(call.get("name").asText() + ": HTTP " + r.statusCode() + ", Gmail answered " + status);
                continue;
            }
            compare(call.get("shape"), JSON.readTree(r.body()), call.get("name").asText(), problems);
        }
        assertThat(problems).as("differences from captured Gmail answers").isEmpty();
    }

    @Test
    void labelsComeInGmailsOrderWithGmailsVisibility() throws Exception {
        JsonNode spec = captured.get("labels");
        JsonNode labels = JSON.readTree(http.get(spec.get("request").asText().split(" ", 2)[1]).body()).get("labels");
        List<String> systemIds = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        boolean userSeen = false;
        for (JsonNode label : labels) {
            String id = label.get("id").asText();
            if (label.get("type").asText().equals("user")) {
                userSeen = true;
                compare(spec.get("user_shape"), label, id, problems);
                spec.get("user_values").properties().forEach(e -> assertThat(label.get(e.getKey())).as(id).isEqualTo(e.getValue()));
                continue;
            }
            assertThat(userSeen).as("system labels before user labels, as Gmail lists them").isFalse();
            systemIds.add(id);
            boolean shown = texts(spec.get("shown_without_visibility")).contains(id);
            compare(spec.get(shown ? "shown_shape" : "hidden_shape"), label, id, problems);
            if (!shown) {
                spec.get("hidden_values").properties().forEach(e -> assertThat(label.get(e.getKey())).as(id).isEqualTo(e.getValue()));
            }
        }
        assertThat(systemIds).containsExactlyElementsOf(texts(spec.get("system_order")));
        assertThat(userSeen).isTrue();
        assertThat(problems).isEmpty();
    }

    @Test
    void answersCarryGooglesHeadersAndSpacing() throws Exception {
        JsonNode spec = captured.get("headers");
        HttpResponse<String> r = http.get("gmail/v1/users/me/profile");
        assertThat(r.headers().firstValue("content-type")).hasValue(spec.get("content-type").asText());
        assertThat(r.headers().firstValue("vary")).hasValue(spec.get("vary").asText());
        // Google's own pretty printing: two spaces, "key": value
        assertThat(r.body()).startsWith("{\n  \"emailAddress\": \"");
    }

    @Test
    void aBatchPartWithoutContentIdIsAnsweredWithAnEmptyOne() throws Exception {
        // captured (PunitDh/Gmail-API): Gmail answers "Content-ID: response-" for a part that named none
        String body = "--b\r\nContent-Type: application/http\r\n\r\nGET /gmail/v1/users/me/profile\r\n\r\n"
                + "--b\r\nContent-Type: application/http\r\nContent-ID: <two>\r\n\r\nGET /gmail/v1/users/me/profile\r\n\r\n--b--\r\n";
        HttpResponse<String> r = http.post("batch/gmail/v1", "multipart/mixed; boundary=b", body);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("Content-ID: response-\r\n", "Content-ID: <response-two>\r\n");
    }

    @Test
    void authErrorsAreWordedAsGooglesAre() throws Exception {
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().token("good").build())) {
            RawHttp raw = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            var uri = emulator.rootUri().resolve("gmail/v1/users/me/profile");
            JsonNode missing = JSON.readTree(raw.send(HttpRequest.newBuilder(uri).build()).body()).get("error");
            // googleapis/google-api-nodejs-client#2665 and the missing-token answer captured on another Google API
            assertThat(missing.get("errors").get(0).get("message").asText()).isEqualTo("Login Required.");
            assertThat(missing.get("errors").get(0).get("reason").asText()).isEqualTo("required");
            assertThat(missing.get("message").asText()).endsWith(" See https://developers.google.com/identity/sign-in/web/devconsole-project.");
            assertThat(missing.get("details").get(0).get("@type").asText()).isEqualTo("type.googleapis.com/google.rpc.ErrorInfo");
            assertThat(missing.get("details").get(0).get("reason").asText()).isEqualTo("CREDENTIALS_MISSING");
            JsonNode invalid = JSON.readTree(raw.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer bad")
                    .build()).body()).get("error");
            assertThat(invalid.get("code").asInt()).isEqualTo(401);
            assertThat(invalid.get("errors").get(0).get("message").asText()).isEqualTo("Invalid Credentials");
            assertThat(invalid.get("errors").get(0).get("reason").asText()).isEqualTo("authError");
            assertThat(invalid.get("status").asText()).isEqualTo("UNAUTHENTICATED");
        }
    }

    @Test
    void theComparisonSeesOrderMissingFieldsAndTypes() throws Exception {
        JsonNode shape = JSON.readTree("{\"id\": \"string\", \"labelIds\": [\"string\"], \"sizeEstimate\": \"number\"}");
        List<String> problems = new ArrayList<>();
        compare(shape, JSON.readTree("{\"id\": \"a\", \"labelIds\": [\"X\"], \"sizeEstimate\": 3}"), "same", problems);
        assertThat(problems).isEmpty();
        compare(shape, JSON.readTree("{\"labelIds\": [\"X\"], \"id\": \"a\", \"sizeEstimate\": 3}"), "order", problems);
        compare(shape, JSON.readTree("{\"id\": \"a\", \"sizeEstimate\": 3}"), "missing", problems);
        compare(shape, JSON.readTree("{\"id\": \"a\", \"labelIds\": [\"X\", 1], \"sizeEstimate\": \"3\"}"), "types", problems);
        assertThat(problems).hasSize(4).anySatisfy(p -> assertThat(p).startsWith("order: fields [labelIds, id, sizeEstimate]"))
                .anySatisfy(p -> assertThat(p).startsWith("missing: fields"))
                .anySatisfy(p -> assertThat(p).startsWith("types.labelIds[1]: NUMBER"))
                .anySatisfy(p -> assertThat(p).startsWith("types.sizeEstimate: STRING"));
    }

    private static HttpResponse<String> send(JsonNode call) throws Exception {
        String[] request = call.get("request").asText().split(" ", 2);
        String path = request[1];
        for (Map.Entry<String, String> e : ids.entrySet()) {
            path = path.replace(e.getKey(), e.getValue());
        }
        return request[0].equals("GET") ? http.get(path) : http.post(path, "application/json", call.path("body").toString());
    }

    /** Records where {@code actual} differs from {@code shape}: field names, their order, JSON types. */
    static void compare(JsonNode shape, JsonNode actual, String where, List<String> problems) {
        if (shape.isTextual()) {
            boolean ok = switch (shape.asText()) {
                case "string" -> actual.isTextual();
                case "number" -> actual.isNumber();
                case "boolean" -> actual.isBoolean();
                default -> throw new IllegalArgumentException("unknown type " + shape + " at " + where);
            };
            if (!ok) {
                problems.add(where + ": " + actual.getNodeType() + " " + abbreviated(actual) + ", Gmail sends a " + shape.asText());
            }
        } else if (shape.isArray()) {
            if (!actual.isArray() || actual.isEmpty()) {
                problems.add(where + ": " + abbreviated(actual) + ", Gmail sends a non-empty array");
                return;
            }
            for (int i = 0; i < actual.size(); i++) {
                compare(shape.get(0), actual.get(i), where + "[" + i + "]", problems);
            }
        } else {
            if (!actual.isObject()) {
                problems.add(where + ": " + abbreviated(actual) + ", Gmail sends an object");
                return;
            }
            List<String> wanted = names(shape);
            List<String> got = names(actual);
            if (!wanted.equals(got)) {
                problems.add(where + ": fields " + got + ", Gmail sends " + wanted);
            }
            for (String name : wanted) {
                if (actual.has(name)) {
                    compare(shape.get(name), actual.get(name), where + "." + name, problems);
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

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(v -> out.add(v.asText()));
        return out;
    }

    private static String abbreviated(JsonNode n) {
        String s = n.toString();
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}
