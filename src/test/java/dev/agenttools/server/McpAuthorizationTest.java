package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.server.oauth.OAuthSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MCP authorization on {@code agent-tools server}, over real HTTP with the emulator as Google: the discovery documents,
 * the 401 that points a client at them, and a client driving the whole flow the way an MCP client's OAuth support does
 * (register, authorize through Google's consent, trade the code, call tools, refresh), with the refusals on the way.
 */
@Tag("process")
class McpAuthorizationTest {
    private static final String REDIRECT = OAuthClient.REDIRECT;
    private static final String USER_1 = "me@example.com";
    private static final String USER_2 = "user2@example.com";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static Emulator emulator;
    private static OAuthServer server;
    private static URI base;
    private static OAuthSettings settings;
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** What the server wrote to stderr while the tests ran: it must hold no token. */
    private static final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private static PrintStream originalErr;

    @BeforeAll
    static void start() throws Exception {
        originalErr = System.err;
        System.setErr(new PrintStream(new TeeStream(originalErr, stderr), true, StandardCharsets.UTF_8));
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .quotaPerMinute(60_000_000).maxConcurrent(1_000).users(2).seedMessages(20).build());
        settings = settings(URI.create("http://127.0.0.1:0"), dir.resolve("oauth.db"));
        server = new OAuthServer(emulator, settings);
        base = server.base;
    }

    static OAuthSettings settings(URI publicUrl, Path store) {
        return OAuthServer.settings(emulator, publicUrl, store);
    }

    @AfterAll
    static void stop() {
        System.setErr(originalErr);
        server.close();
    }

    @Test
    void publishesProtectedResourceAndAuthorizationServerMetadataFromThePublicUrl() throws Exception {
        for (String path : List.of("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp")) {
            HttpResponse<String> answer = OAuthClient.get(base.resolve(path));
            assertThat(answer.statusCode()).as(path).isEqualTo(200);
            JsonNode doc = Json.MAPPER.readTree(answer.body());
            assertThat(doc.get("resource").asText()).isEqualTo(base + "/mcp");
            assertThat(doc.get("authorization_servers").get(0).asText()).isEqualTo(base.toString());
            assertThat(doc.get("scopes_supported")).extracting(JsonNode::asText)
                    .containsExactly("gmail.readonly", "calendar.readonly", "habits.readonly", "habits");
            assertThat(doc.get("bearer_methods_supported")).extracting(JsonNode::asText).containsExactly("header");
        }
        HttpResponse<String> answer = OAuthClient.get(base.resolve("/.well-known/oauth-authorization-server"));
        assertThat(answer.statusCode()).isEqualTo(200);
        JsonNode doc = Json.MAPPER.readTree(answer.body());
        assertThat(doc.get("issuer").asText()).isEqualTo(base.toString());
        assertThat(doc.get("authorization_endpoint").asText()).isEqualTo(base + "/oauth/authorize");
        assertThat(doc.get("token_endpoint").asText()).isEqualTo(base + "/oauth/token");
        assertThat(doc.get("registration_endpoint").asText()).isEqualTo(base + "/oauth/register");
        assertThat(doc.get("code_challenge_methods_supported")).extracting(JsonNode::asText).containsExactly("S256");
        assertThat(doc.get("grant_types_supported")).extracting(JsonNode::asText).containsExactly("authorization_code", "refresh_token");
        assertThat(doc.get("token_endpoint_auth_methods_supported")).extracting(JsonNode::asText).containsExactly("none");
        assertThat(doc.get("scopes_supported")).extracting(JsonNode::asText)
                .containsExactly("gmail.readonly", "calendar.readonly", "habits.readonly", "habits");
        // a Host header of the client's choosing changes nothing (behind a proxy, only the public URL counts)
        HttpResponse<String> spoofed = http.send(HttpRequest.newBuilder(base.resolve("/.well-known/oauth-authorization-server"))
                .header("X-Forwarded-Host", "evil.example").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(spoofed.body()).doesNotContain("evil.example");
    }

    @Test
    void answersACallWithoutAGoodTokenWith401NamingTheResourceMetadata() throws Exception {
        String expected = "Bearer resource_metadata=\"" + base + "/.well-known/oauth-protected-resource\","
                + " scope=\"gmail.readonly calendar.readonly habits.readonly habits\"";
        HttpResponse<String> none = mcp(null, OAuthClient.listEmails(1));
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue(expected);
        HttpResponse<String> bad = mcp("agt_at_not-a-token-of-ours", OAuthClient.listEmails(1));
        assertThat(bad.statusCode()).isEqualTo(401);
        assertThat(bad.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v ->
                assertThat(v).startsWith(expected).contains("error=\"invalid_token\""));
        assertThat(bad.body()).contains("\"error\":\"invalid_token\"").doesNotContain("not-a-token-of-ours");
        // a Google token is no token of ours, and the header that carried one in the service-key mode is not read
        HttpResponse<String> google = http.send(HttpRequest.newBuilder(base.resolve("/mcp"))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + emulator.tokenFor(USER_1)).header(Gate.GOOGLE_TOKEN_HEADER, emulator.tokenFor(USER_1))
                .POST(HttpRequest.BodyPublishers.ofString(OAuthClient.listEmails(1))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(google.statusCode()).isEqualTo(401);
    }

    @Test
    void aSignedInClientRunsTheToolsAsItsOwnUserAndTwoUsersNeverSeeEachOthersMail() throws Exception {
        OAuthClient one = OAuthClient.register(base);
        OAuthClient two = OAuthClient.register(base);
        OAuthClient.Tokens user1 = one.signIn(USER_1);
        OAuthClient.Tokens user2 = two.signIn(USER_2);
        assertThat(user1.access()).startsWith("agt_at_");
        assertThat(user1.refresh()).startsWith("agt_rt_");

        List<String> mail1 = messageIds(user1.access());
        List<String> mail2 = messageIds(user2.access());
        assertThat(mail1).hasSize(5).isEqualTo(gmailIds(USER_1));
        assertThat(mail2).hasSize(5).isEqualTo(gmailIds(USER_2));
        assertThat(mail1).doesNotContainAnyElementsOf(mail2);
        assertThat(stderr.toString(StandardCharsets.UTF_8)).doesNotContain(user1.access(), user1.refresh(), user2.access());
        String metrics = OAuthClient.get(base.resolve("/metrics")).body();
        assertThat(metrics).doesNotContain(user1.access()).doesNotContain("me@example.com").contains("endpoint=\"/oauth/token\"");
    }

    @Test
    void aTokenWhoseScopeLacksAToolsFamilyIsAnswered403InsufficientScopeForThatToolOnly() throws Exception {
        OAuthClient client = OAuthClient.register(base);
        // offline_access (OpenID's "and a refresh token") is taken and dropped: every sign-in gets a refresh token
        OAuthClient.Tokens gmailOnly = client.signIn(USER_1, "gmail.readonly offline_access");
        assertThat(gmailOnly.scope()).isEqualTo("gmail.readonly");
        assertThat(messageIds(gmailOnly.access())).isEqualTo(gmailIds(USER_1));

        HttpResponse<String> events = mcp(gmailOnly.access(), OAuthClient.call("list_events", "{}"));
        assertThat(events.statusCode()).as(events.body()).isEqualTo(403);
        assertThat(events.headers().firstValue("WWW-Authenticate")).hasValue("Bearer error=\"insufficient_scope\", "
                + "scope=\"gmail.readonly calendar.readonly\", resource_metadata=\"" + base + "/.well-known/oauth-protected-resource\", "
                + "error_description=\"the token's scope (gmail.readonly) lacks calendar.readonly, which calendar.list-events needs; "
                + "sign in again with it\"");
        assertThat(Json.MAPPER.readTree(events.body()).get("error").asText()).isEqualTo("insufficient_scope");
        // tools/list still lists every tool: what a wider sign-in would allow stays discoverable
        HttpResponse<String> list = mcp(gmailOnly.access(), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.body()).contains("\"list_events\"").contains("\"list_emails\"");
        // a refresh may narrow the scope, never widen it (RFC 6749 section 6)
        HttpResponse<String> wider = client.token(Map.of("grant_type", "refresh_token", "refresh_token", gmailOnly.refresh(),
                "scope", "gmail.readonly calendar.readonly"));
        assertThat(wider.statusCode()).isEqualTo(400);
        assertThat(Json.MAPPER.readTree(wider.body()).get("error").asText()).isEqualTo("invalid_scope");

        OAuthClient.Tokens calendarOnly = client.signIn(USER_1, "calendar.readonly");
        HttpResponse<String> calendar = mcp(calendarOnly.access(), OAuthClient.call("list_events", "{}"));
        assertThat(calendar.statusCode()).isEqualTo(200);
        assertThat(calendar.body()).doesNotContain("\"isError\":true");
        HttpResponse<String> mail = mcp(calendarOnly.access(), OAuthClient.listEmails(1));
        assertThat(mail.statusCode()).isEqualTo(403);
        assertThat(mail.headers().firstValue("WWW-Authenticate").orElseThrow()).contains("lacks gmail.readonly");
        assertThat(OAuthClient.get(base.resolve("/metrics")).body()).contains("reason=\"insufficient_scope\"");
    }

    @Test
    void aReadTokenIsRefusedAWriteToolAndOnlyAFamilysWriteScopeRunsIt() throws Exception {
        try (OAuthServer habits = new OAuthServer(emulator, settings(URI.create("http://127.0.0.1:0"), dir.resolve("habits-oauth.db")),
                dir.resolve("habits.db"))) {
            OAuthClient client = OAuthClient.register(habits.base);
            String create = OAuthClient.call("create_habit", "{\"name\":\"Read\"}");
            // the scopes of the probe: Gmail and Calendar read, nothing of habits
            OAuthClient.Tokens reads = client.signIn(USER_1, "gmail.readonly calendar.readonly");
            HttpResponse<String> refused = OAuthClient.mcp(habits.base, reads.access(), create);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
            assertThat(Json.MAPPER.readTree(refused.body()).get("error").asText()).isEqualTo("insufficient_scope");
            assertThat(refused.headers().firstValue("WWW-Authenticate").orElseThrow())
                    .contains("scope=\"gmail.readonly calendar.readonly habits\"").contains("lacks habits, which habit.create needs");
            assertThat(OAuthClient.mcp(habits.base, reads.access(), OAuthClient.call("list_habits", "{}")).statusCode())
                    .as("nor may it read habits").isEqualTo(403);

            // habits.readonly reads habits, and is refused every one of the five tools that write
            OAuthClient.Tokens habitReads = client.signIn(USER_1, "habits.readonly");
            HttpResponse<String> list = OAuthClient.mcp(habits.base, habitReads.access(), OAuthClient.call("list_habits", "{}"));
            assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
            assertThat(list.body()).doesNotContain("\"isError\":true");
            for (String write : List.of("create_habit", "update_habit", "archive_habit", "restore_habit", "log_habit")) {
                HttpResponse<String> answer = OAuthClient.mcp(habits.base, habitReads.access(), OAuthClient.call(write, "{\"habit\":\"x\"}"));
                assertThat(answer.statusCode()).as(write).isEqualTo(403);
                assertThat(answer.headers().firstValue("WWW-Authenticate").orElseThrow()).as(write).contains("lacks habits,");
            }
            assertThat(OAuthClient.mcp(habits.base, habitReads.access(), OAuthClient.listEmails(1)).statusCode()).isEqualTo(403);

            // the write scope runs the write, and reads its family too
            OAuthClient.Tokens writes = client.signIn(USER_1, "habits");
            HttpResponse<String> created = OAuthClient.mcp(habits.base, writes.access(), create);
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            assertThat(created.body()).doesNotContain("\"isError\":true").contains("Read");
            HttpResponse<String> listed = OAuthClient.mcp(habits.base, writes.access(), OAuthClient.call("list_habits", "{}"));
            assertThat(listed.statusCode()).isEqualTo(200);
            assertThat(listed.body()).contains("Read");
        }
    }

    @Test
    void aCodeUsedTwiceRevokesTheTokensOfItsFirstUse() throws Exception {
        OAuthClient client = OAuthClient.register(base);
        OAuthClient.Authorized authorized = client.authorize(USER_1);
        Map<String, String> form = Map.of("grant_type", "authorization_code", "code", authorized.code(),
                "redirect_uri", REDIRECT, "code_verifier", authorized.verifier());
        HttpResponse<String> first = client.token(form);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        JsonNode tokens = Json.MAPPER.readTree(first.body());
        String access = tokens.get("access_token").asText();
        assertThat(messageIds(access)).isEqualTo(gmailIds(USER_1));

        // the code again (an attacker who intercepted it, or a replay): refused, and what its first use got ends
        HttpResponse<String> again = client.token(form);
        assertThat(again.statusCode()).isEqualTo(400);
        assertThat(Json.MAPPER.readTree(again.body()).get("error").asText()).isEqualTo("invalid_grant");
        assertThat(again.body()).contains("revoked").doesNotContain(authorized.code());
        assertThat(mcp(access, OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
        assertThat(client.token(Map.of("grant_type", "refresh_token", "refresh_token", tokens.get("refresh_token").asText()))
                .statusCode()).as("its refresh token too").isEqualTo(400);
    }

    @Test
    void aRefreshThatNarrowsTheScopeNarrowsTheAccessTokenWhileTheSignInKeepsItsScope() throws Exception {
        OAuthClient client = OAuthClient.register(base);
        OAuthClient.Tokens all = client.signIn(USER_1, "gmail.readonly calendar.readonly");
        HttpResponse<String> narrowed = client.token(Map.of("grant_type", "refresh_token", "refresh_token", all.refresh(),
                "scope", "gmail.readonly"));
        assertThat(narrowed.statusCode()).as(narrowed.body()).isEqualTo(200);
        JsonNode narrow = Json.MAPPER.readTree(narrowed.body());
        assertThat(narrow.get("scope").asText()).isEqualTo("gmail.readonly");
        String narrowAccess = narrow.get("access_token").asText();
        assertThat(messageIds(narrowAccess)).isEqualTo(gmailIds(USER_1));
        assertThat(mcp(narrowAccess, OAuthClient.call("list_events", "{}")).statusCode()).as("the access token is narrower").isEqualTo(403);

        // RFC 6749 section 6: the new refresh token keeps the original grant's scope
        OAuthClient.Tokens back = client.refresh(narrow.get("refresh_token").asText());
        assertThat(back.scope()).isEqualTo("gmail.readonly calendar.readonly");
        assertThat(mcp(back.access(), OAuthClient.call("list_events", "{}")).statusCode()).isEqualTo(200);
        // and never wider than it
        HttpResponse<String> wider = client.token(Map.of("grant_type", "refresh_token", "refresh_token", back.refresh(),
                "scope", "gmail.readonly habits"));
        assertThat(wider.statusCode()).isEqualTo(400);
        assertThat(Json.MAPPER.readTree(wider.body()).get("error").asText()).isEqualTo("invalid_scope");
    }

    @Test
    void aClientRevokesOnlyItsOwnTokensAndMustSayWhoItIs() throws Exception {
        OAuthClient owner = OAuthClient.register(base);
        OAuthClient other = OAuthClient.register(base);
        OAuthClient.Tokens tokens = owner.signIn(USER_2);
        for (String token : List.of(tokens.access(), tokens.refresh())) {
            HttpResponse<String> foreign = revoke("token=" + OAuthClient.enc(token) + "&client_id=" + OAuthClient.enc(other.id));
            assertThat(foreign.statusCode()).as(foreign.body()).isEqualTo(400);
            assertThat(Json.MAPPER.readTree(foreign.body()).get("error").asText()).isEqualTo("invalid_grant");
            assertThat(foreign.body()).contains("another client_id").doesNotContain(token);
            HttpResponse<String> anonymous = revoke("token=" + OAuthClient.enc(token));
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(Json.MAPPER.readTree(anonymous.body()).get("error").asText()).isEqualTo("invalid_client");
        }
        assertThat(messageIds(tokens.access())).as("left as they were").isEqualTo(gmailIds(USER_2));
        // an unknown token is answered as a revoked one (RFC 7009 section 2.2)
        assertThat(revoke("token=agt_at_unknown&client_id=" + OAuthClient.enc(other.id)).statusCode()).isEqualTo(200);

        assertThat(revoke("token=" + OAuthClient.enc(tokens.access()) + "&client_id=" + OAuthClient.enc(owner.id)).statusCode()).isEqualTo(200);
        assertThat(mcp(tokens.access(), OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
        OAuthClient.Tokens next = owner.refresh(tokens.refresh());
        assertThat(revoke("token=" + OAuthClient.enc(next.refresh()) + "&client_id=" + OAuthClient.enc(owner.id)).statusCode()).isEqualTo(200);
        assertThat(mcp(next.access(), OAuthClient.listEmails(1)).statusCode()).as("the whole sign-in ends").isEqualTo(401);
    }

    private static HttpResponse<String> revoke(String form) throws Exception {
        return OAuthClient.post(base.resolve("/oauth/revoke"), "application/x-www-form-urlencoded", form);
    }

    @Test
    void aRefreshTokenWorksOnceAndItsReuseEndsTheWholeSignIn() throws Exception {
        // no grace for a reuse here (the class's server has the default 30 s, which the next test is about)
        try (OAuthServer strict = new OAuthServer(emulator, settings(URI.create("http://127.0.0.1:0"), dir.resolve("no-grace.db"))
                .withRefreshTokenReuseGrace(Duration.ZERO))) {
            OAuthClient client = OAuthClient.register(strict.base);
            OAuthClient.Tokens first = client.signIn(USER_1);
            OAuthClient.Tokens second = client.refresh(first.refresh());
            assertThat(second.refresh()).isNotEqualTo(first.refresh());
            assertThat(OAuthClient.messageIds(strict.base, second.access())).hasSize(5);

            HttpResponse<String> reuse = client.token(Map.of("grant_type", "refresh_token", "refresh_token", first.refresh()));
            assertThat(reuse.statusCode()).isEqualTo(400);
            assertThat(Json.MAPPER.readTree(reuse.body()).get("error").asText()).isEqualTo("invalid_grant");
            assertThat(reuse.body()).contains("refresh_token").doesNotContain(first.refresh());
            // the reuse looks like theft: the newer tokens of that sign-in end too
            assertThat(OAuthClient.mcp(strict.base, second.access(), OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
            assertThat(client.token(Map.of("grant_type", "refresh_token", "refresh_token", second.refresh())).statusCode()).isEqualTo(400);
        }
    }

    @Test
    void aClientWhoseRefreshAnswerWasLostRetriesWithTheOldRefreshTokenAndKeepsWorkingButAnotherClientEndsTheSignIn() throws Exception {
        OAuthClient client = OAuthClient.register(base);
        OAuthClient.Tokens first = client.signIn(USER_1);
        OAuthClient.Tokens lost = client.refresh(first.refresh()); // spent, but the answer never reached the client
        // the client retries with the refresh token it still has, within the grace (30 s): another pair, same sign-in
        OAuthClient.Tokens retried = client.refresh(first.refresh());
        assertThat(retried.refresh()).isNotEqualTo(lost.refresh()).isNotEqualTo(first.refresh());
        assertThat(retried.scope()).isEqualTo(first.scope());
        assertThat(messageIds(retried.access())).isEqualTo(gmailIds(USER_1));
        assertThat(messageIds(lost.access())).as("the pair of the first spending stays valid").isEqualTo(gmailIds(USER_1));
        // and goes on refreshing as usual
        OAuthClient.Tokens next = client.refresh(retried.refresh());
        assertThat(messageIds(next.access())).isEqualTo(gmailIds(USER_1));

        // two requests of the client that both got a 401 refresh at once with the same token: both go on
        List<HttpResponse<String>> both = new ArrayList<>();
        try (var threads = Executors.newFixedThreadPool(2)) {
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                calls.add(threads.submit(() -> client.token(Map.of("grant_type", "refresh_token", "refresh_token", next.refresh()))));
            }
            for (var call : calls) {
                both.add(call.get());
            }
        }
        for (HttpResponse<String> answer : both) {
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(messageIds(Json.MAPPER.readTree(answer.body()).get("access_token").asText())).isEqualTo(gmailIds(USER_1));
        }

        // the same spent token from another client, within the grace: theft, the whole sign-in ends
        OAuthClient thief = OAuthClient.register(base);
        HttpResponse<String> stolen = thief.token(Map.of("grant_type", "refresh_token", "refresh_token", next.refresh()));
        assertThat(stolen.statusCode()).isEqualTo(400);
        assertThat(Json.MAPPER.readTree(stolen.body()).get("error").asText()).isEqualTo("invalid_grant");
        String access = Json.MAPPER.readTree(both.get(0).body()).get("access_token").asText();
        assertThat(mcp(access, OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
        assertThat(mcp(retried.access(), OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
        assertThat(client.token(Map.of("grant_type", "refresh_token", "refresh_token", next.refresh())).statusCode())
                .as("nor its own client after that").isEqualTo(400);
    }

    @Test
    void aCodeNeedsItsVerifierAndIsSpentByAWrongOne() throws Exception {
        OAuthClient client = OAuthClient.register(base);
        OAuthClient.Authorized authorized = client.authorize(USER_1);
        HttpResponse<String> wrong = client.token(Map.of("grant_type", "authorization_code", "code", authorized.code(),
                "redirect_uri", REDIRECT, "code_verifier", OAuthClient.verifier()));
        assertThat(wrong.statusCode()).isEqualTo(400);
        JsonNode error = Json.MAPPER.readTree(wrong.body());
        assertThat(error.get("error").asText()).isEqualTo("invalid_grant");
        assertThat(error.get("error_description").asText()).contains("code_verifier");
        HttpResponse<String> right = client.token(Map.of("grant_type", "authorization_code", "code", authorized.code(),
                "redirect_uri", REDIRECT, "code_verifier", authorized.verifier()));
        assertThat(right.statusCode()).as("a code is tried once").isEqualTo(400);
        assertThat(right.body()).contains("code is unknown, expired or already used");
    }

    @Test
    void refusesAuthorizationRequestsWithoutPkceOrForAnotherResourceOrRedirect() throws Exception {
        OAuthClient client = OAuthClient.register(base);
        String challenge = OAuthClient.s256(OAuthClient.verifier());
        // an unregistered redirect URI is answered here, never followed
        HttpResponse<String> foreign = OAuthClient.get(client.authorizeUrl("https://evil.example/cb", challenge, base + "/mcp", null));
        assertThat(foreign.statusCode()).isEqualTo(400);
        assertThat(foreign.headers().firstValue("Location")).isEmpty();
        assertThat(foreign.body()).contains("redirect_uri");
        // the rest are shown here too: the user has not seen the consent page, so nothing goes to the redirect URI
        HttpResponse<String> noPkce = OAuthClient.get(client.authorizeUrl(REDIRECT, null, base + "/mcp", null));
        assertThat(noPkce.statusCode()).isEqualTo(400);
        assertThat(noPkce.headers().firstValue("Location")).isEmpty();
        assertThat(Json.MAPPER.readTree(noPkce.body()).get("error").asText()).isEqualTo("invalid_request");
        assertThat(Json.MAPPER.readTree(noPkce.body()).get("error_description").asText()).contains("code_challenge");
        HttpResponse<String> otherResource = OAuthClient.get(client.authorizeUrl(REDIRECT, challenge, "https://other.example/mcp", null));
        assertThat(otherResource.statusCode()).isEqualTo(400);
        assertThat(Json.MAPPER.readTree(otherResource.body()).get("error").asText()).isEqualTo("invalid_target");
        HttpResponse<String> unknownScope = OAuthClient.get(client.authorizeUrl(REDIRECT, challenge, base + "/mcp",
                "gmail.readonly gmail.send"));
        assertThat(unknownScope.statusCode()).isEqualTo(400);
        assertThat(Json.MAPPER.readTree(unknownScope.body()).get("error").asText()).isEqualTo("invalid_scope");
        assertThat(Json.MAPPER.readTree(unknownScope.body()).get("error_description").asText())
                .contains("gmail.send").contains("gmail.readonly, calendar.readonly");
        // registration refuses a redirect URI that would carry the code in the clear or run in the browser
        for (String uri : List.of("http://example.com/cb", "javascript:alert(1)", "https://x.example/cb#frag", "/relative")) {
            HttpResponse<String> answer = OAuthClient.post(base.resolve("/oauth/register"), "application/json",
                    "{\"redirect_uris\": [" + Json.MAPPER.writeValueAsString(uri) + "]}");
            assertThat(answer.statusCode()).as(uri).isEqualTo(400);
            assertThat(Json.MAPPER.readTree(answer.body()).get("error").asText()).as(uri).isEqualTo("invalid_redirect_uri");
        }
    }

    @Test
    void aTokenIssuedForAnotherResourceIsRefusedAndOneOfTheSameResourceIsTakenByAnotherInstance() throws Exception {
        OAuthClient client = OAuthClient.register(base);
        OAuthClient.Tokens tokens = client.signIn(USER_2);
        // a second instance on the same store and public URL takes the token (the store is what instances share)
        try (OAuthServer same = instance(URI.create(base.toString()))) {
            assertThat(OAuthClient.messageIds(same.base, tokens.access())).isEqualTo(gmailIds(USER_2));
        }
        // a server with another public URL on the same store refuses it: not its audience
        try (OAuthServer other = instance(URI.create("http://localhost:0"))) {
            HttpResponse<String> answer = OAuthClient.mcp(other.base, tokens.access(), OAuthClient.listEmails(1));
            assertThat(answer.statusCode()).isEqualTo(401);
            assertThat(answer.body()).contains("another resource");
        }
    }

    @Test
    void aNewKeyListedFirstReEncryptsAUsersGoogleSignInAtItsNextRefreshSoThatTheOldKeyCanGo() throws Exception {
        Path store = dir.resolve("key-rotation.db");
        OAuthSettings.Key old = OAuthServer.newKey("k-old");
        OAuthSettings.Key fresh = OAuthServer.newKey("k-new");
        try (OAuthServer before = new OAuthServer(emulator, withKeys(URI.create("http://127.0.0.1:0"), store, List.of(old)))) {
            OAuthClient.Tokens tokens = OAuthClient.register(before.base).signIn(USER_1);
            URI publicUrl = before.base; // one public URL for the three instances: one audience
            // rotation: the new key first, the old one still listed; a new instance refreshes the user's Google token
            // at its first call, and writes the stored refresh token again under the new key
            try (OAuthServer during = new OAuthServer(emulator, withKeys(publicUrl, store, List.of(fresh, old)))) {
                assertThat(OAuthClient.messageIds(during.base, tokens.access())).isEqualTo(gmailIds(USER_1));
            }
            // the old key removed: the user's sign-in still holds (it was read with the old key before the rewrite)
            try (OAuthServer after = new OAuthServer(emulator, withKeys(publicUrl, store, List.of(fresh)))) {
                assertThat(OAuthClient.messageIds(after.base, tokens.access())).isEqualTo(gmailIds(USER_1));
            }
        }
    }

    private static OAuthSettings withKeys(URI publicUrl, Path store, List<OAuthSettings.Key> keys) {
        return OAuthServer.settings(emulator, publicUrl, store, settings.accessTokenLifetime(), keys);
    }

    @Test
    void theGoogleTokenIsRefreshedBeforeItExpiresOnceForConcurrentCallsAndARevokedGrantAnswers401() throws Exception {
        // Google's access tokens live 4 s here: the server refreshes one when less than half of that is left
        Emulator google = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(60_000_000).maxConcurrent(1_000).users(2).seedMessages(20)
                .tokenLifetime(Duration.ofSeconds(4)).build());
        try (OAuthServer server = instance(google, URI.create("http://127.0.0.1:0"), dir.resolve("short-lived.db"))) {
            OAuthClient client = OAuthClient.register(server.base);
            OAuthClient.Tokens tokens = client.signIn(USER_2);
            assertThat(OAuthClient.messageIds(server.base, tokens.access())).hasSize(5);
            assertThat(google.signIns()).isEqualTo(1);
            assertThat(google.tokenRefreshes()).as("a fresh Google token is used as it is").isZero();

            Thread.sleep(2_200); // into the last half of the Google token's life
            try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<List<String>>> calls = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    calls.add(threads.submit(() -> OAuthClient.messageIds(server.base, tokens.access())));
                }
                for (var call : calls) {
                    assertThat(call.get()).hasSize(5);
                }
            }
            assertThat(google.tokenRefreshes()).as("20 concurrent calls share one refresh").isEqualTo(1);

            // the user takes the app's access away at Google: the very call that finds the Google token refused
            // renews it at once, is refused the renewal, and is answered 401 (no tool error first), which sends the
            // client to sign in again; the calls after it are answered alike
            google.revokeAccess(USER_2);
            HttpResponse<String> refused = OAuthClient.mcp(server.base, tokens.access(), OAuthClient.listEmails(1));
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
            assertThat(refused.body()).doesNotContain("isError");
            assertThat(OAuthClient.mcp(server.base, tokens.access(), OAuthClient.listEmails(1)).statusCode()).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v ->
                    assertThat(v).contains("resource_metadata=").contains("error=\"invalid_token\""));
            assertThat(refused.body()).contains("sign in again");
            assertThat(client.token(Map.of("grant_type", "refresh_token", "refresh_token", tokens.refresh())).statusCode())
                    .as("the server's own refresh token for that account ends with it").isEqualTo(400);
            // and signing in again works
            OAuthClient.Tokens again = client.signIn(USER_2);
            assertThat(OAuthClient.messageIds(server.base, again.access())).hasSize(5);
        }
    }

    @Test
    void aGoogleTokenRefusedBeforeItsTimeIsRenewedAtOnceAndTheCallRunsAgain() throws Exception {
        // Google's tokens end after 2 s, but a token endpoint in between says they live an hour: the server learns that
        // its Google token has ended only when Gmail refuses it in a call
        Emulator google = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(2).seedMessages(20).tokenLifetime(Duration.ofSeconds(2)).build());
        com.sun.net.httpserver.HttpServer lying = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        lying.createContext("/token", exchange -> {
            HttpResponse<String> real;
            try {
                real = http.send(HttpRequest.newBuilder(google.rootUri().resolve("token"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(exchange.getRequestBody().readAllBytes())).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            assertThat(real.body()).containsPattern("\"expires_in\": *2\\b"); // what is rewritten
            byte[] body = real.body().replaceAll("\"expires_in\": *\\d+", "\"expires_in\":3600").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(real.statusCode(), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        lying.start();
        URI root = google.rootUri();
        try (OAuthServer server = new OAuthServer(google, new OAuthSettings(URI.create("http://127.0.0.1:0"), settings.googleClientId(),
                settings.googleClientSecret(), root.resolve("o/oauth2/auth"),
                URI.create("http://127.0.0.1:" + lying.getAddress().getPort() + "/token"), root.resolve("gmail/v1/users/me/profile"),
                dir.resolve("lying.db"), settings.keys(), Duration.ofHours(1), Duration.ofDays(30)))) {
            OAuthClient client = OAuthClient.register(server.base);
            OAuthClient.Tokens tokens = client.signIn(USER_2);
            List<String> before = OAuthClient.messageIds(server.base, tokens.access());
            assertThat(google.tokenRefreshes()).isZero();
            Thread.sleep(2_300);
            // the call Gmail refuses is not answered with that refusal: the token is renewed and the call made again
            assertThat(OAuthClient.messageIds(server.base, tokens.access())).isEqualTo(before);
            assertThat(google.tokenRefreshes()).isEqualTo(1);
            assertThat(OAuthClient.messageIds(server.base, tokens.access())).isEqualTo(before);
            assertThat(google.tokenRefreshes()).as("the renewed token is kept").isEqualTo(1);
        } finally {
            lying.stop(0);
        }
    }

    @Test
    void theMcpTypeScriptSdkClientSignsUsersInByItsOwnOAuthSupportAndRefreshesAnExpiredToken() throws Exception {
        Path node = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        assertThat(node.resolve("node_modules/@modelcontextprotocol/client"))
                .as("npm packages of the Node tests (the build runs 'npm ci' in %s)", node).exists();
        // the server's access tokens live 2 s here, so that the client meets an expired one and refreshes it
        try (OAuthServer server = instance(emulator, URI.create("http://127.0.0.1:0"), dir.resolve("sdk.db"), Duration.ofSeconds(2))) {
            ProcessBuilder builder = new ProcessBuilder("node", "mcp-oauth-check.mjs", server.base.toString(), USER_1, USER_2)
                    .directory(node.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
            builder.environment().put("WAIT_FOR_EXPIRY_MS", "2500");
            Process process = builder.start();
            byte[] out = process.getInputStream().readAllBytes();
            assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("node finished").isTrue();
            assertThat(process.exitValue()).as("node's exit status; output: %s", new String(out, StandardCharsets.UTF_8)).isZero();
            JsonNode results = Json.MAPPER.readTree(out);
            for (String user : List.of(USER_1, USER_2)) {
                JsonNode r = results.get(user);
                List<String> ids = new ArrayList<>();
                r.get("ids").forEach(id -> ids.add(id.asText()));
                List<String> after = new ArrayList<>();
                r.get("idsAfterRefresh").forEach(id -> after.add(id.asText()));
                assertThat(ids).as(user).hasSize(5).isEqualTo(gmailIds(user));
                assertThat(after).as(user + " after the refresh").isEqualTo(ids);
                assertThat(r.get("refreshed").asBoolean()).as(user + ": the SDK refreshed its expired token").isTrue();
                assertThat(r.get("registrations").asInt()).isEqualTo(1);
            }
        }
    }

    @Test
    void theMcpTypeScriptSdkClientStepsUpToAWiderScopeAndIsSentToSignInAgainAtTheFirstCallAfterARevocation() throws Exception {
        stepsUpAndSignsInAgain("2"); // @modelcontextprotocol/client 2.3.1: authorizes again on the 403
    }

    @Test
    void theMcpTypeScriptSdk1ClientWhichRefreshesOnA403IsSentToAuthorizeWithTheWiderScopeAndStepsUp() throws Exception {
        // @modelcontextprotocol/sdk 1.32.2 refreshes on the 403; it got the same narrow token and failed ("403 after
        // trying upscoping") until that refresh was answered invalid_grant, on which it authorizes again
        stepsUpAndSignsInAgain("1");
    }

    private void stepsUpAndSignsInAgain(String generation) throws Exception {
        Path node = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        Emulator google = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(2).seedMessages(20).build());
        try (OAuthServer server = instance(google, URI.create("http://127.0.0.1:0"), dir.resolve("stepup-v" + generation + ".db"))) {
            Process process = new ProcessBuilder("node", "mcp-oauth-stepup-check.mjs", server.base.toString(), USER_2, generation)
                    .directory(node.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            var out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            JsonNode results = null;
            for (String line; (line = out.readLine()) != null; ) {
                JsonNode message = Json.MAPPER.readTree(line);
                if (message.has("revoke")) {
                    google.revokeAccess(message.get("revoke").asText()); // the user removes the app's access at Google
                    process.getOutputStream().write("revoked\n".getBytes(StandardCharsets.UTF_8));
                    process.getOutputStream().flush();
                } else {
                    results = message;
                }
            }
            assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("node finished").isTrue();
            assertThat(process.exitValue()).as("node's exit status; results: %s", results).isZero();
            assertThat(results.get("sdk").asText()).isEqualTo(generation);
            assertThat(results.get("firstScopeAsked").asText()).as("from the 401's challenge")
                    .isEqualTo("gmail.readonly calendar.readonly habits.readonly habits");
            assertThat(results.get("firstScopeGranted").asText()).isEqualTo("gmail.readonly");
            assertThat(results.get("ids")).hasSize(5);
            // 403 insufficient_scope: the SDK asks the user to authorize again, with the union of the scopes
            assertThat(results.get("eventsWithGmailOnly").get("error").asText()).isEqualTo("UnauthorizedError");
            assertThat(results.get("stepUpRedirects").asInt()).isEqualTo(1);
            assertThat(results.get("stepUpScopeAsked").asText()).isEqualTo("gmail.readonly calendar.readonly");
            assertThat(results.get("stepUpScopeGranted").asText()).isEqualTo("gmail.readonly calendar.readonly");
            assertThat(results.get("eventsAfterStepUp")).isNotEmpty();
            // the first call after the revocation sends the client to sign in (its own refresh refused on the way)
            assertThat(results.get("callAfterRevocation").toString()).contains("UnauthorizedError");
            assertThat(results.get("redirectsAfterRevocation").asInt()).isEqualTo(1);
            assertThat(results.get("idsAfterSigningInAgain")).isEqualTo(results.get("ids"));
            assertThat(google.signIns()).as("sign-in, step-up, sign-in again").isEqualTo(3);
        }
    }

    /** Another instance on the class's emulator and store, with the class's keys (one store, one key list). */
    private static OAuthServer instance(URI publicUrl) throws Exception {
        return instance(emulator, publicUrl, settings.store());
    }

    private static OAuthServer instance(Emulator google, URI publicUrl, Path store) throws Exception {
        return instance(google, publicUrl, store, settings.accessTokenLifetime());
    }

    private static OAuthServer instance(Emulator google, URI publicUrl, Path store, Duration accessTokenLifetime) throws Exception {
        return new OAuthServer(google, OAuthServer.settings(google, publicUrl, store, accessTokenLifetime, settings.keys()));
    }

    /** The user's five newest emails as the tools list them in-process with the user's own Google token. */
    private static List<String> gmailIds(String user) throws Exception {
        try (ToolRegistry own = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken(emulator.tokenFor(user)).build()) {
            JsonNode answer = new ToolProtocol(own)
                    .answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5}}").json();
            List<String> ids = new ArrayList<>();
            answer.get("data").get("emails").forEach(e -> ids.add(e.get("id").asText()));
            return ids;
        }
    }

    private static HttpResponse<String> mcp(String accessToken, String body) throws Exception {
        return OAuthClient.mcp(base, accessToken, body);
    }

    private static List<String> messageIds(String accessToken) throws Exception {
        return OAuthClient.messageIds(base, accessToken);
    }

    /** Writes to both streams: the test keeps a copy of stderr and still shows it. */
    private static final class TeeStream extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        TeeStream(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            synchronized (b) {
                b.write(c);
            }
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            synchronized (b) {
                b.write(buf, off, len);
            }
        }
    }
}
