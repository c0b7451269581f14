package dev.agenttools.server.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code POST /oauth/register}: RFC 7591 dynamic registration of a public client (MCP clients have no secret to keep:
 * PKCE stands in for one). The server decides the authentication method ({@code none}) and the grant types, and says so
 * in the answer, as section 3.2.1 allows. Redirect URIs are checked here and matched exactly at authorization.
 */
final class Registration {
    static final int MAX_BODY_BYTES = 16 * 1024;
    static final int MAX_REDIRECT_URIS = 10;
    static final int MAX_URI_LENGTH = 2_000;
    /** Schemes that run or read something in the browser instead of reaching an app. */
    private static final Set<String> FORBIDDEN_SCHEMES = Set.of("javascript", "data", "file", "vbscript", "about", "blob", "ftp", "ws", "wss");

    /**
     * How long a client refused for the cap on unused clients is told to wait: the cap counts registrations of the last
     * {@link Limits#unusedClientLifetime()} (by the minute with DynamoDB), so room comes back as each minute ages out.
     */
    static final java.time.Duration FULL_RETRY_AFTER = java.time.Duration.ofMinutes(1);

    private final OAuthStore store;
    private final Clock clock;
    private final Limits limits;

    Registration(OAuthStore store, Clock clock, Limits limits) {
        this.store = store;
        this.clock = clock;
        this.limits = limits;
    }

    void handle(Request request, Response response, Callback callback) throws SQLException {
        JsonNode body;
        try {
            body = Json.MAPPER.readTree(read(request));
        } catch (IOException e) {
            OAuthAnswers.error(response, callback, 400, "invalid_client_metadata",
                    "the body must be a JSON object of client metadata (RFC 7591) of at most " + MAX_BODY_BYTES + " bytes");
            return;
        }
        if (body == null || !body.isObject()) {
            OAuthAnswers.error(response, callback, 400, "invalid_client_metadata", "the body must be a JSON object");
            return;
        }
        JsonNode uris = body.path("redirect_uris");
        if (!uris.isArray() || uris.isEmpty() || uris.size() > MAX_REDIRECT_URIS) {
            OAuthAnswers.error(response, callback, 400, "invalid_redirect_uri",
                    "redirect_uris must be an array of 1.." + MAX_REDIRECT_URIS + " URIs");
            return;
        }
        List<String> redirects = new ArrayList<>();
        for (JsonNode u : uris) {
            String problem = u.isTextual() ? problem(u.asText()) : "is not a string";
            if (problem != null) {
                OAuthAnswers.error(response, callback, 400, "invalid_redirect_uri", "redirect_uris[" + redirects.size() + "] " + problem);
                return;
            }
            redirects.add(u.asText());
        }
        String grantProblem = only(body.path("grant_types"), Set.of("authorization_code", "refresh_token"));
        String typeProblem = only(body.path("response_types"), Set.of("code"));
        if (grantProblem != null || typeProblem != null) {
            OAuthAnswers.error(response, callback, 400, "invalid_client_metadata", grantProblem != null
                    ? "grant_types " + grantProblem + " (this server issues authorization_code and refresh_token)"
                    : "response_types " + typeProblem + " (this server answers code)");
            return;
        }
        JsonNode nameNode = body.path("client_name");
        String name = nameNode.isTextual() ? nameNode.asText().strip() : null;
        if (name != null && name.length() > 200) {
            name = name.substring(0, 200);
        }
        java.time.Instant now = clock.instant();
        if (store.unusedClients(now.minus(limits.unusedClientLifetime()), now) >= limits.maxClients()) {
            // a bound on what a flood may make the server store: only clients that have not signed in count, and
            // each for unusedClientLifetime at most, so room comes back within that once the flood stops
            response.getHeaders().put(org.eclipse.jetty.http.HttpHeader.RETRY_AFTER, Long.toString(FULL_RETRY_AFTER.toSeconds()));
            OAuthAnswers.error(response, callback, 503, "temporarily_unavailable", "the server holds as many clients"
                    + " registered in the last " + limits.unusedClientLifetime().toMinutes() + " min and not signed in as"
                    + " it keeps (" + limits.maxClients() + "); retry after " + FULL_RETRY_AFTER.toSeconds() + " s");
            return;
        }
        OAuthStore.Client client = new OAuthStore.Client(Secrets.next(Secrets.CLIENT_ID), name, redirects, now);
        store.putClient(client, now.plus(limits.unusedClientLifetime()));
        ObjectNode answer = Json.object().put("client_id", client.id())
                .put("client_id_issued_at", client.createdAt().getEpochSecond());
        redirects.forEach(answer.putArray("redirect_uris")::add);
        if (name != null) {
            answer.put("client_name", name);
        }
        answer.put("token_endpoint_auth_method", "none");
        answer.putArray("grant_types").add("authorization_code").add("refresh_token");
        answer.putArray("response_types").add("code");
        OAuthAnswers.json(response, callback, 201, answer);
    }

    /**
     * Why a redirect URI is refused, or null: it must be absolute without a fragment (RFC 6749 section 3.1.2); {@code
     * https}, or {@code http} on a loopback host only (RFC 8252 section 7.3; anything else would carry the code in
     * the clear), or a native app's private-use scheme (section 7.1); never a scheme that runs in the browser.
     */
    static String problem(String uri) {
        if (uri.length() > MAX_URI_LENGTH) {
            return "is over " + MAX_URI_LENGTH + " characters";
        }
        URI u;
        try {
            u = new URI(uri);
        } catch (URISyntaxException e) {
            return "is not a URI";
        }
        if (!u.isAbsolute()) {
            return "is not an absolute URI";
        }
        if (u.getRawFragment() != null) {
            return "has a fragment (#...), which a redirect URI may not have";
        }
        String scheme = u.getScheme().toLowerCase(Locale.ROOT);
        if (FORBIDDEN_SCHEMES.contains(scheme)) {
            return "has the scheme " + scheme + ", which no app receives";
        }
        if (scheme.equals("https") || scheme.equals("http")) {
            if (u.getHost() == null) {
                return "has no host";
            }
            if (scheme.equals("http") && !Set.of("127.0.0.1", "localhost", "[::1]").contains(u.getHost().toLowerCase(Locale.ROOT))) {
                return "is http on a host other than 127.0.0.1, [::1] or localhost (use https)";
            }
        }
        return null;
    }

    /** Why an optional array of names holds one outside {@code allowed}, or null. */
    private static String only(JsonNode names, Set<String> allowed) {
        if (names.isMissingNode() || names.isNull()) {
            return null;
        }
        if (!names.isArray()) {
            return "must be an array";
        }
        for (JsonNode n : names) {
            if (!n.isTextual() || !allowed.contains(n.asText())) {
                return "has " + (n.isTextual() && n.asText().length() <= 40 ? n.asText() : "an unsupported value");
            }
        }
        return null;
    }

    private static String read(Request request) throws IOException {
        byte[] buffer = new byte[MAX_BODY_BYTES + 1];
        int length = 0;
        try (InputStream in = Content.Source.asInputStream(request)) {
            int n;
            while (length < buffer.length && (n = in.read(buffer, length, buffer.length - length)) >= 0) {
                length += n;
            }
        }
        if (length > MAX_BODY_BYTES) {
            throw new IOException("too large");
        }
        return new String(buffer, 0, length, StandardCharsets.UTF_8);
    }
}
