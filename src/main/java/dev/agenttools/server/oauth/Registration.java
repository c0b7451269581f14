package dev.agenttools.server.oauth;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import org.eclipse.jetty.http.HttpHeader;
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
import java.time.Duration;
import java.time.Instant;
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
    /**
     * The longest {@code client_name} taken, in code points: the consent page shows it whole, and a name longer than
     * this is no name a person reads. A longer one is refused, not cut (a cut name could read as another).
     */
    static final int MAX_CLIENT_NAME = 100;
    /** Hosts on which an {@code http} redirect URI is taken: the loopback interface (RFC 8252 section 7.3). */
    static final Set<String> LOOPBACK_HOSTS = Set.of("127.0.0.1", "[::1]", "localhost");
    private static final String RULE = "(allowed: https; http on 127.0.0.1, [::1] or localhost, any port; or an app's"
            + " private-use scheme in reverse-domain form such as com.example.app:/callback, RFC 8252 section 7.1)";
    /**
     * Duplicate keys refused (RFC 7591 metadata is a JSON object, and RFC 8259 leaves a repeated name's meaning to the
     * parser: two parts of a system could read two values), for this endpoint only: other endpoints keep their reader.
     */
    private static final ObjectReader STRICT = Json.MAPPER.reader().with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /**
     * How long a client refused for the cap on unused clients is told to wait: the cap counts registrations of the last
     * {@link Limits#unusedClientLifetime()} (by the minute with DynamoDB), so room comes back as each minute ages out.
     */
    static final Duration FULL_RETRY_AFTER = Duration.ofMinutes(1);

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
            body = STRICT.readTree(read(request));
        } catch (StreamReadException e) {
            String message = e.getOriginalMessage();
            OAuthAnswers.error(response, callback, 400, "invalid_client_metadata", message != null && message.startsWith("Duplicate field")
                    ? "the body has a key more than once (" + duplicated(message) + "); each metadata field may be given once"
                    : "the body must be a JSON object of client metadata (RFC 7591) of at most " + MAX_BODY_BYTES + " bytes");
            return;
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
        if (!nameNode.isMissingNode() && !nameNode.isNull() && !nameNode.isTextual()) {
            OAuthAnswers.error(response, callback, 400, "invalid_client_metadata", "client_name must be a string");
            return;
        }
        String name = nameNode.isTextual() && !nameNode.asText().isBlank() ? nameNode.asText().strip() : null;
        String nameProblem = name == null ? null : nameProblem(name);
        if (nameProblem != null) {
            OAuthAnswers.error(response, callback, 400, "invalid_client_metadata", "client_name " + nameProblem);
            return;
        }
        Instant now = clock.instant();
        if (store.unusedClients(now.minus(limits.unusedClientLifetime()), now) >= limits.maxClients()) {
            // a bound on what a flood may make the server store: only clients that have not signed in count, and
            // each for unusedClientLifetime at most, so room comes back within that once the flood stops
            response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(FULL_RETRY_AFTER.toSeconds()));
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
     * Why a client name is refused, or null: over {@link #MAX_CLIENT_NAME} code points, or holding a character that
     * would make the consent page read otherwise than it is: a control character (line breaks, NUL), a format
     * character (bidi overrides such as U+202E, zero-width characters), a line or paragraph separator, or a lone
     * surrogate.
     */
    static String nameProblem(String name) {
        int length = name.codePointCount(0, name.length());
        if (length > MAX_CLIENT_NAME) {
            return "is " + length + " characters; at most " + MAX_CLIENT_NAME + " are allowed";
        }
        for (int i = 0, at = 1; i < name.length(); at++) {
            int cp = name.codePointAt(i);
            switch (Character.getType(cp)) {
                case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                     Character.SURROGATE, Character.UNASSIGNED -> {
                    return "has the character U+" + String.format(Locale.ROOT, "%04X", cp) + " (character " + at + "); control,"
                            + " bidi, zero-width and unassigned characters are not allowed in a name shown to users";
                }
                default -> i += Character.charCount(cp);
            }
        }
        return null;
    }

    /**
     * Why a redirect URI is refused, or null, naming the rule: absolute, without a fragment (RFC 6749 section 3.1.2)
     * or user information (it would show the user one host and send the code to another), a port in 1..65535; and
     * {@code https}, or {@code http} on a loopback host only (RFC 8252 section 7.3: any port; anything else would
     * carry the code in the clear), or a native app's private-use scheme in reverse-domain form (section 7.1: a scheme
     * with a dot, {@code com.example.app:/cb}). Every other scheme is refused: those without a dot are the browser's
     * or the system's own ({@code javascript:}, {@code data:}, {@code view-source:}, {@code jar:}, {@code chrome:},
     * {@code ms-settings:}, {@code mailto:}, {@code file:}), which run or show something instead of reaching an app.
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
            return "is not an absolute URI " + RULE;
        }
        if (u.getRawFragment() != null) {
            return "has a fragment (#...), which a redirect URI may not have (RFC 6749 section 3.1.2)";
        }
        if (u.getRawUserInfo() != null || (u.getRawAuthority() != null && u.getRawAuthority().contains("@"))) {
            return "has user information (user@host), which a redirect URI may not have: it would show one host and mean another";
        }
        if (u.getRawAuthority() != null && u.getHost() == null) {
            return "has an authority that is not a host with an optional port 1..65535";
        }
        if (u.getPort() != -1 && (u.getPort() < 1 || u.getPort() > 65535)) {
            return "has the port " + u.getPort() + ", outside 1..65535";
        }
        String scheme = u.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("https") || scheme.equals("http")) {
            if (u.getHost() == null) {
                return "has no host";
            }
            if (scheme.equals("http") && !LOOPBACK_HOSTS.contains(u.getHost().toLowerCase(Locale.ROOT))) {
                return "is http on a host other than 127.0.0.1, [::1] or localhost (use https) " + RULE;
            }
            return null;
        }
        if (!scheme.contains(".")) {
            return "has the scheme " + (scheme.length() > 40 ? scheme.substring(0, 40) + "..." : scheme) + ":, which is not"
                    + " https, loopback http or a private-use scheme in reverse-domain form " + RULE;
        }
        return null;
    }

    /** The key a duplicate-field message of Jackson's names, when it is a plain one (else not repeated). */
    private static String duplicated(String message) {
        int open = message.indexOf('\'');
        int close = open < 0 ? -1 : message.indexOf('\'', open + 1);
        String key = close < 0 ? "" : message.substring(open + 1, close);
        return key.matches("[A-Za-z0-9_]{1,40}") ? key : "a key";
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
