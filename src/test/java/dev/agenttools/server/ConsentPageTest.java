package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's own consent page between {@code /oauth/authorize} and Google (issue 43, item 1: the confused deputy),
 * and the authorize errors shown on our page instead of redirected (item 7: the open redirector), over real HTTP with
 * the emulator as Google and a hand-written browser ({@link CookieBrowser}).
 */
class ConsentPageTest {
    private static final String USER_1 = "me@example.com";
    private static final String USER_2 = "user2@example.com";
    private static final String ATTACKER = "https://attacker.example/steal";

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    static Path dir;
    private static Emulator emulator;
    private static OAuthServer server;
    private static URI base;
    private static URI google;

    @BeforeAll
    static void start() throws Exception {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .users(2).seedMessages(5).build());
        server = new OAuthServer(emulator, OAuthServer.settings(emulator, URI.create("http://127.0.0.1:0"), dir.resolve("oauth.db")));
        base = server.base;
        google = emulator.rootUri();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Registers a client named {@code name} (raw JSON, or null for none) with one redirect URI; its id. */
    private static String register(String nameJson, String redirect) throws Exception {
        HttpResponse<String> answer = OAuthClient.post(base.resolve("/oauth/register"), "application/json",
                "{" + (nameJson == null ? "" : "\"client_name\": " + nameJson + ", ") + "\"redirect_uris\": [\"" + redirect + "\"]}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        return Json.MAPPER.readTree(answer.body()).get("client_id").asText();
    }

    private static URI authorize(String clientId, String redirect, String challenge, String user) {
        return URI.create(base + "/oauth/authorize?response_type=code&client_id=" + OAuthClient.enc(clientId) + "&redirect_uri="
                + OAuthClient.enc(redirect) + "&code_challenge=" + challenge + "&code_challenge_method=S256&state=s1"
                + (user == null ? "" : "&login_hint=" + OAuthClient.enc(user)));
    }

    private static void assertSecurityHeaders(HttpResponse<String> page) {
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp)
                .contains("frame-ancestors 'none'").contains("default-src 'none'").doesNotContain("unsafe-inline"));
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(page.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
        assertThat(page.headers().firstValue("Location")).isEmpty();
    }

    @Test
    void theAttackersAuthorizeLinkShowsTheVictimOurPageNamingTheClientUnverifiedAndItsHostAndNoCodeLeavesWithoutApproval()
            throws Exception {
        String attacker = register("\"Totally Legit Assistant\"", ATTACKER);
        String attackerVerifier = OAuthClient.verifier();
        CookieBrowser victim = new CookieBrowser(base);
        // before: three 302s and the code at the attacker's URI; now the browser stops at our page
        HttpResponse<String> page = victim.follow(authorize(attacker, ATTACKER, OAuthClient.s256(attackerVerifier), USER_1), google);
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertSecurityHeaders(page);
        assertThat(page.body()).contains("Totally Legit Assistant").contains("(unverified)")
                .contains("attacker.example").contains("Read your Gmail messages").contains("Read your Google Calendar events")
                .contains(">Approve<").contains(">Deny<").doesNotContain("<script");
        assertThat(page.headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c).startsWith("agt_consent=")
                .containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Strict").contains("Path=/oauth/"));

        // the attacker, who cannot read the victim's cookie, answers the page the victim was shown: refused, spent
        CookieBrowser stranger = new CookieBrowser(base);
        HttpResponse<String> forged = stranger.answer(base, page, "approve", null);
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.headers().firstValue("Location")).isEmpty();
        HttpResponse<String> late = victim.answer(base, page, "approve", base.toString().replaceAll("/$", ""));
        assertThat(late.statusCode()).as("the request was spent by the refused answer").isEqualTo(400);

        // the attacker opens its own page and makes the victim's browser post it from another site: refused
        HttpResponse<String> attackersPage = stranger.follow(authorize(attacker, ATTACKER, OAuthClient.s256(attackerVerifier), USER_1), google);
        HttpResponse<String> crossSite = victim.answer(base, attackersPage, "approve", "https://attacker.example");
        assertThat(crossSite.statusCode()).isEqualTo(403);
        assertThat(crossSite.headers().firstValue("Location")).isEmpty();
        HttpResponse<String> withoutOrigin = victim.answer(base, attackersPage, "approve", null);
        assertThat(withoutOrigin.statusCode()).as("the victim's browser has another binding cookie").isIn(400, 403);
        assertThat(withoutOrigin.headers().firstValue("Location")).isEmpty();

        // the victim's own page, posted with the victim's cookie but from another site (Origin null, as under
        // no-referrer): refused before the request is spent; from our page the same answer goes through
        HttpResponse<String> own = victim.follow(authorize(attacker, ATTACKER, OAuthClient.s256(attackerVerifier), USER_1), google);
        String form = "request=" + CookieBrowser.requestId(own) + "&decision=deny";
        HttpResponse<String> crossSiteNull = victim.post(base.resolve("/oauth/consent"), form, "null", "cross-site");
        assertThat(crossSiteNull.statusCode()).isEqualTo(403);
        assertThat(crossSiteNull.body()).contains("did not come from this server");
        HttpResponse<String> sameOrigin = victim.post(base.resolve("/oauth/consent"), form, "null", "same-origin");
        assertThat(sameOrigin.statusCode()).isEqualTo(303);
        assertThat(sameOrigin.headers().firstValue("Location").orElseThrow()).startsWith(ATTACKER + "?error=access_denied");
    }

    @Test
    void denyOnThePageSendsAccessDeniedToTheClientAndNoCode() throws Exception {
        String client = register("\"Deny Me\"", "http://127.0.0.1:9/cb");
        CookieBrowser browser = new CookieBrowser(base);
        HttpResponse<String> page = browser.follow(authorize(client, "http://127.0.0.1:9/cb", OAuthClient.s256(OAuthClient.verifier()), USER_1), google);
        assertThat(page.body()).contains("<span class=\"host\">http://127.0.0.1:9</span> (a program on this computer)");
        HttpResponse<String> denied = browser.answer(base, page, "deny", origin());
        assertThat(denied.statusCode()).isEqualTo(303);
        Map<String, String> q = OAuthClient.query(URI.create(denied.headers().firstValue("Location").orElseThrow()));
        assertThat(q).containsEntry("error", "access_denied").containsEntry("state", "s1").containsEntry("iss", base.toString())
                .doesNotContainKey("code");
        assertThat(denied.headers().firstValue("Location").orElseThrow()).startsWith("http://127.0.0.1:9/cb?");
    }

    @Test
    void approvingSendsTheBrowserToGoogleAndTheCodeToTheClientOnceAndTheAnswerCannotBeReplayed() throws Exception {
        String redirect = "http://127.0.0.1:9/cb";
        String client = register("\"Good App\"", redirect);
        String verifier = OAuthClient.verifier();
        CookieBrowser browser = new CookieBrowser(base);
        HttpResponse<String> page = browser.follow(authorize(client, redirect, OAuthClient.s256(verifier), USER_2), google);
        HttpResponse<String> approved = browser.answer(base, page, "approve", origin());
        assertThat(approved.statusCode()).isEqualTo(303);
        assertThat(approved.headers().firstValue("Location").orElseThrow()).startsWith(google.toString());
        HttpResponse<String> back = browser.follow(URI.create(approved.headers().firstValue("Location").orElseThrow()), google);
        Map<String, String> q = OAuthClient.query(back);
        assertThat(q).containsKey("code").containsEntry("state", "s1");
        assertThat(messagesOf(client, redirect, q.get("code"), verifier)).isEqualTo(gmailIds(USER_2));
        assertThat(browser.answer(base, page, "approve", origin()).statusCode()).as("replayed").isEqualTo(400);
    }

    @Test
    void aRememberedBrowserSkipsThePageForTheClientItsAccountApprovedButAnotherAccountAtGoogleSeesThePageBeforeAnyCode()
            throws Exception {
        String redirect = "http://127.0.0.1:9/remembered";
        String client = register("\"Remembered App\"", redirect);
        CookieBrowser browser = new CookieBrowser(base);
        HttpResponse<String> page = browser.follow(authorize(client, redirect, OAuthClient.s256(OAuthClient.verifier()), USER_1), google);
        HttpResponse<String> approved = browser.answer(base, page, "approve", origin());
        HttpResponse<String> first = browser.follow(URI.create(approved.headers().firstValue("Location").orElseThrow()), google);
        assertThat(OAuthClient.query(first)).containsKey("code");
        assertThat(first.headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c).startsWith("agt_account=")
                .containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Lax"));
        assertThat(browser.cookies.get("agt_account")).doesNotContain("me@example.com").doesNotContain("me%40example.com");

        // the same browser, the same account: straight to Google and back with a code
        String verifier = OAuthClient.verifier();
        HttpResponse<String> again = browser.follow(authorize(client, redirect, OAuthClient.s256(verifier), null), google);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(302);
        assertThat(messagesOf(client, redirect, OAuthClient.query(again).get("code"), verifier)).isEqualTo(gmailIds(USER_1));

        // another client the account never approved: the page
        String other = register("\"Other App\"", redirect);
        assertThat(browser.follow(authorize(other, redirect, OAuthClient.s256(OAuthClient.verifier()), null), google).statusCode())
                .isEqualTo(200);

        // the remembered browser, but Google signs in another account, which never approved the client: our page at the
        // callback, naming that account, and no code until it approves
        String verifier2 = OAuthClient.verifier();
        HttpResponse<String> atCallback = browser.follow(authorize(client, redirect, OAuthClient.s256(verifier2), USER_2), google);
        assertThat(atCallback.statusCode()).as(atCallback.body()).isEqualTo(200);
        assertSecurityHeaders(atCallback);
        assertThat(atCallback.body()).contains("Remembered App").contains("(unverified)").contains(USER_2);
        HttpResponse<String> approvedLate = browser.answer(base, atCallback, "approve", origin());
        assertThat(approvedLate.statusCode()).isEqualTo(303);
        String code = OAuthClient.query(URI.create(approvedLate.headers().firstValue("Location").orElseThrow())).get("code");
        assertThat(messagesOf(client, redirect, code, verifier2)).isEqualTo(gmailIds(USER_2));

        // an altered remembered cookie is no remembered browser
        CookieBrowser altered = new CookieBrowser(base);
        String value = browser.cookies.get("agt_account");
        altered.cookies.put("agt_account", value.substring(0, value.length() - 2) + (value.endsWith("AA") ? "BB" : "AA"));
        assertThat(altered.follow(authorize(client, redirect, OAuthClient.s256(OAuthClient.verifier()), null), google).statusCode())
                .isEqualTo(200);
    }

    @Test
    void aClientNameWithMarkupIsShownAsTextAndAnUnnamedClientIsSaidToBeOne() throws Exception {
        String client = register("\"<img src=x onerror=alert(1)> & \\\"Co\\\"\"", "https://app.example:8443/cb");
        HttpResponse<String> page = new CookieBrowser(base).follow(
                authorize(client, "https://app.example:8443/cb", OAuthClient.s256(OAuthClient.verifier()), null), google);
        assertThat(page.body()).contains("&lt;img src=x onerror=alert(1)&gt; &amp; &quot;Co&quot;").doesNotContain("<img")
                .contains("<span class=\"host\">app.example:8443</span>.");
        String unnamed = register(null, "com.example.app:/cb");
        HttpResponse<String> unnamedPage = new CookieBrowser(base).follow(
                authorize(unnamed, "com.example.app:/cb", OAuthClient.s256(OAuthClient.verifier()), null), google);
        assertThat(unnamedPage.body()).contains("An application without a name").contains("<span class=\"host\">com.example.app:</span> (an app on this device)");
    }

    @Test
    void authorizeErrorsBeforeTheUserHasSeenThePageAreShownHereAndNeverRedirected() throws Exception {
        String client = register("\"Mine\"", "https://phish.example/login");
        String challenge = OAuthClient.s256(OAuthClient.verifier());
        String ok = "&client_id=" + client + "&redirect_uri=" + OAuthClient.enc("https://phish.example/login");
        List<String> queries = List.of("response_type=x" + ok, "response_type=code" + ok,
                "response_type=code" + ok + "&code_challenge=" + challenge + "&code_challenge_method=plain",
                "response_type=code" + ok + "&code_challenge=short&code_challenge_method=S256",
                "response_type=code" + ok + "&code_challenge=" + challenge + "&code_challenge_method=S256&scope=gmail.send",
                "response_type=code" + ok + "&code_challenge=" + challenge + "&code_challenge_method=S256&resource=https://x.example/mcp",
                "response_type=code" + ok + "&state=" + "s".repeat(1001),
                "response_type=code" + ok + "&response_type=code",
                "response_type=code&client_id=" + client + "&redirect_uri=" + OAuthClient.enc("https://phish.example/other"),
                "response_type=code&client_id=nobody&redirect_uri=" + OAuthClient.enc("https://phish.example/login"));
        for (String query : queries) {
            HttpResponse<String> html = new CookieBrowser(base).get(URI.create(base + "/oauth/authorize?" + query));
            assertThat(html.statusCode()).as(query).isEqualTo(400);
            assertSecurityHeaders(html);
            assertThat(html.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
            assertThat(html.body()).as(query).contains("This sign-in cannot go on").doesNotContain("phish.example");
            HttpResponse<String> json = OAuthClient.get(URI.create(base + "/oauth/authorize?" + query));
            assertThat(json.statusCode()).as(query).isEqualTo(400);
            assertThat(json.headers().firstValue("Location")).isEmpty();
            assertThat(Json.MAPPER.readTree(json.body()).get("error").asText()).as(query).isNotBlank();
        }
    }

    private static String origin() {
        return "http://127.0.0.1:" + base.getPort();
    }

    /** Trades the code and lists the newest emails with the token: whose mailbox the code opened. */
    private static List<String> messagesOf(String clientId, String redirect, String code, String verifier) throws Exception {
        HttpResponse<String> token = OAuthClient.post(base.resolve("/oauth/token"), "application/x-www-form-urlencoded",
                "grant_type=authorization_code&client_id=" + OAuthClient.enc(clientId) + "&code=" + OAuthClient.enc(code)
                        + "&redirect_uri=" + OAuthClient.enc(redirect) + "&code_verifier=" + verifier);
        assertThat(token.statusCode()).as(token.body()).isEqualTo(200);
        return OAuthClient.messageIds(base, Json.MAPPER.readTree(token.body()).get("access_token").asText());
    }

    private static List<String> gmailIds(String user) throws Exception {
        try (ToolRegistry own = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken(emulator.tokenFor(user)).build()) {
            JsonNode answer = new ToolProtocol(own)
                    .answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5}}").json();
            List<String> ids = new ArrayList<>();
            answer.get("data").get("emails").forEach(e -> ids.add(e.get("id").asText()));
            return ids;
        }
    }
}
