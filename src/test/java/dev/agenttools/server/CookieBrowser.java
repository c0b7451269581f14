package dev.agenttools.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the consent tests need of a browser, by hand: it keeps the cookies one server sets (name and value; the tests
 * check the attributes themselves), sends them back to that server only, asks for HTML as a browser does, follows
 * redirects until one leaves the servers it is told of, and answers a consent page's form as a user would.
 */
final class CookieBrowser {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Pattern ACTION = Pattern.compile("<form method=\"post\" action=\"([^\"]+)\"");
    private static final Pattern REQUEST = Pattern.compile("name=\"request\" value=\"([^\"]+)\"");

    private final URI server;
    final Map<String, String> cookies = new LinkedHashMap<>();

    CookieBrowser(URI server) {
        this.server = server;
    }

    HttpResponse<String> get(URI uri) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8");
        return keep(uri, HTTP.send(withCookies(uri, b).build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** Posts {@code page}'s consent form (got from {@code at}) with {@code decision}, from {@code origin}. */
    HttpResponse<String> answer(URI at, HttpResponse<String> page, String decision, String origin) throws Exception {
        Matcher action = ACTION.matcher(page.body());
        Matcher request = REQUEST.matcher(page.body());
        assertThat(action.find() && request.find()).as("a consent form in: %s", page.body()).isTrue();
        return post(at.resolve(action.group(1)), "request=" + OAuthClient.enc(request.group(1)) + "&decision=" + decision, origin);
    }

    HttpResponse<String> post(URI target, String form, String origin) throws Exception {
        return post(target, form, origin, null);
    }

    /** With the {@code Sec-Fetch-Site} a browser would send ({@code same-origin}, {@code cross-site}; null: none). */
    HttpResponse<String> post(URI target, String form, String origin, String fetchSite) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(target).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "text/html").POST(HttpRequest.BodyPublishers.ofString(form));
        if (origin != null) {
            b.header("Origin", origin);
        }
        if (fetchSite != null) {
            b.header("Sec-Fetch-Site", fetchSite);
        }
        return keep(target, HTTP.send(withCookies(target, b).build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** The request id of a consent page. */
    static String requestId(HttpResponse<String> page) {
        Matcher request = REQUEST.matcher(page.body());
        assertThat(request.find()).as("a consent form in: %s", page.body()).isTrue();
        return request.group(1);
    }

    /**
     * From {@code start}, follows redirects on the server and on {@code google}; answers the first page that is not a
     * redirect, or the first redirect elsewhere (the client's redirect URI, not opened).
     */
    HttpResponse<String> follow(URI start, URI google) throws Exception {
        URI next = start;
        for (int hop = 0; hop < 8; hop++) {
            HttpResponse<String> answer = get(next);
            if (answer.statusCode() != 302 && answer.statusCode() != 303) {
                return answer;
            }
            URI location = next.resolve(answer.headers().firstValue("Location").orElseThrow());
            if (!sameServer(location, server) && !sameServer(location, google)) {
                return answer;
            }
            next = location;
        }
        throw new AssertionError("more than 8 redirects from " + start);
    }

    private HttpRequest.Builder withCookies(URI uri, HttpRequest.Builder b) {
        if (sameServer(uri, server) && !cookies.isEmpty()) {
            StringBuilder header = new StringBuilder();
            cookies.forEach((k, v) -> header.append(header.isEmpty() ? "" : "; ").append(k).append('=').append(v));
            b.header("Cookie", header.toString());
        }
        return b;
    }

    private HttpResponse<String> keep(URI uri, HttpResponse<String> answer) {
        if (sameServer(uri, server)) {
            for (String set : answer.headers().allValues("Set-Cookie")) {
                String pair = set.contains(";") ? set.substring(0, set.indexOf(';')) : set;
                int eq = pair.indexOf('=');
                cookies.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
            }
        }
        return answer;
    }

    static boolean sameServer(URI a, URI b) {
        return a.getScheme().equals(b.getScheme()) && a.getHost().equals(b.getHost()) && a.getPort() == b.getPort();
    }
}
