package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.Json;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An MCP client's OAuth support, written by hand for the tests: a public client registered at one server, signing users
 * in with PKCE by following the redirects a browser would (the server, the emulator's consent, the server's callback,
 * the client's redirect URI), trading codes and refresh tokens, and calling tools on {@code /mcp} with its token.
 */
final class OAuthClient {
    static final String REDIRECT = "http://127.0.0.1:9/callback";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    record Tokens(String access, String refresh, String scope) {
    }

    record Authorized(String code, String verifier) {
    }

    final URI base;
    final String id;

    private OAuthClient(URI base, String id) {
        this.base = base;
        this.id = id;
    }

    static OAuthClient register(URI base) throws Exception {
        HttpResponse<String> answer = post(base.resolve("/oauth/register"), "application/json",
                "{\"client_name\": \"test client\", \"redirect_uris\": [\"" + REDIRECT + "\"], \"token_endpoint_auth_method\": \"none\"}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        JsonNode registered = Json.MAPPER.readTree(answer.body());
        assertThat(registered.get("token_endpoint_auth_method").asText()).isEqualTo("none");
        return new OAuthClient(base, registered.get("client_id").asText());
    }

    /** The same registered client talking to another instance (behind one public URL, as a load balancer spreads it). */
    OAuthClient at(URI instance) {
        return new OAuthClient(instance, id);
    }

    Tokens signIn(String user) throws Exception {
        return signIn(user, null);
    }

    /** Signs {@code user} in asking for {@code scope} (null: none named, so every scope). */
    Tokens signIn(String user, String scope) throws Exception {
        Authorized a = authorize(user, scope);
        HttpResponse<String> answer = token(Map.of("grant_type", "authorization_code", "code", a.code(),
                "redirect_uri", REDIRECT, "code_verifier", a.verifier(), "resource", base + "/mcp"));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return tokens(answer);
    }

    Tokens refresh(String refreshToken) throws Exception {
        HttpResponse<String> answer = token(Map.of("grant_type", "refresh_token", "refresh_token", refreshToken));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return tokens(answer);
    }

    private static Tokens tokens(HttpResponse<String> answer) throws Exception {
        JsonNode t = Json.MAPPER.readTree(answer.body());
        assertThat(t.get("token_type").asText()).isEqualTo("Bearer");
        assertThat(t.get("expires_in").asLong()).isPositive();
        assertThat(answer.headers().firstValue("Cache-Control")).hasValue("no-store");
        return new Tokens(t.get("access_token").asText(), t.get("refresh_token").asText(), t.get("scope").asText());
    }

    /**
     * Follows the redirects a browser would (ours, the emulator's consent, ours again) and approves on the consent page
     * as a user clicking Approve, to the client's redirect URI.
     */
    Authorized authorize(String user) throws Exception {
        return authorize(user, null);
    }

    Authorized authorize(String user, String scope) throws Exception {
        String verifier = verifier();
        URI start = URI.create(authorizeUrl(REDIRECT, s256(verifier), base + "/mcp", scope) + "&login_hint=" + enc(user));
        Map<String, String> q = query(browse(start, REDIRECT));
        assertThat(q).containsEntry("state", "client-state").containsEntry("iss", base.toString()).doesNotContainKey("error");
        return new Authorized(q.get("code"), verifier);
    }

    /**
     * A browser without remembered cookies from {@code start} to the first redirect to {@code redirect}: follows
     * redirects, and on our consent page clicks Approve (the form posted with the page's binding cookie). Answers the
     * redirect's URI, not opened.
     */
    static URI browse(URI start, String redirect) throws Exception {
        URI next = start;
        for (int hop = 0; hop < 8; hop++) {
            HttpResponse<String> answer = get(next);
            if (answer.statusCode() == 200 && answer.body().contains("name=\"decision\"")) {
                answer = approve(next, answer);
            }
            assertThat(answer.statusCode()).as(next + ": " + answer.body()).isIn(302, 303);
            URI location = next.resolve(answer.headers().firstValue("Location").orElseThrow());
            if (location.toString().startsWith(redirect)) {
                return location;
            }
            next = location;
        }
        throw new AssertionError("no redirect to " + redirect + " after 8 hops");
    }

    /** Clicks Approve on the consent page {@code page} (got from {@code at}): its form, with the cookie it set. */
    static HttpResponse<String> approve(URI at, HttpResponse<String> page) throws Exception {
        return answer(at, page, "approve");
    }

    /** Answers the consent page {@code page} with {@code decision} (approve or deny), as its form would. */
    static HttpResponse<String> answer(URI at, HttpResponse<String> page, String decision) throws Exception {
        Matcher action = Pattern.compile("<form method=\"post\" action=\"([^\"]+)\"").matcher(page.body());
        Matcher request = Pattern.compile("name=\"request\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(action.find() && request.find()).as("a consent form in: %s", page.body()).isTrue();
        String cookie = page.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("agt_consent="))
                .map(c -> c.substring(0, c.indexOf(';'))).findFirst().orElseThrow();
        URI target = at.resolve(action.group(1));
        return HTTP.send(HttpRequest.newBuilder(target).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", cookie).header("Origin", target.getScheme() + "://" + target.getRawAuthority())
                .POST(HttpRequest.BodyPublishers.ofString("request=" + enc(request.group(1)) + "&decision=" + decision)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    URI authorizeUrl(String redirect, String challenge, String resource, String scope) {
        return URI.create(base + "/oauth/authorize?response_type=code&client_id=" + enc(id) + "&redirect_uri=" + enc(redirect)
                + (challenge == null ? "" : "&code_challenge=" + challenge + "&code_challenge_method=S256")
                + "&state=client-state&resource=" + enc(resource) + (scope == null ? "" : "&scope=" + enc(scope)));
    }

    HttpResponse<String> token(Map<String, String> form) throws Exception {
        Map<String, String> all = new HashMap<>(form);
        all.put("client_id", id);
        StringBuilder body = new StringBuilder();
        all.forEach((k, v) -> body.append(body.isEmpty() ? "" : "&").append(enc(k)).append('=').append(enc(v)));
        return post(base.resolve("/oauth/token"), "application/x-www-form-urlencoded", body.toString());
    }

    static String verifier() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    static String s256(String verifier) throws Exception {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    }

    static String listEmails(int max) {
        return call("list_emails", "{\"max_results\":" + max + "}");
    }

    /** A tools/call of the MCP tool {@code name} with the JSON object {@code arguments}. */
    static String call(String name, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"" + name + "\",\"arguments\":" + arguments + "}}";
    }

    /** The ids of the newest emails list_emails answers at {@code at}/mcp for the token's user. */
    static List<String> messageIds(URI at, String accessToken) throws Exception {
        HttpResponse<String> answer = mcp(at, accessToken, listEmails(5));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode result = Json.MAPPER.readTree(answer.body()).get("result");
        assertThat(result.path("isError").asBoolean()).as(answer.body()).isFalse();
        JsonNode data = Json.MAPPER.readTree(result.get("content").get(0).get("text").asText());
        List<String> ids = new ArrayList<>();
        data.get("emails").forEach(e -> ids.add(e.get("id").asText()));
        return ids;
    }

    static HttpResponse<String> mcp(URI at, String accessToken, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(at.resolve("/mcp")).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2025-11-25")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (accessToken != null) {
            b.header("Authorization", "Bearer " + accessToken);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(URI uri) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> post(URI uri, String type, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).header("Content-Type", type).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static Map<String, String> query(HttpResponse<String> redirect) {
        assertThat(redirect.statusCode()).as(redirect.body()).isEqualTo(302);
        return query(URI.create(redirect.headers().firstValue("Location").orElseThrow()));
    }

    static Map<String, String> query(URI uri) {
        Map<String, String> q = new HashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            q.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return q;
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
