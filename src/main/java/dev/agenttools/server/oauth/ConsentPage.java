package dev.agenttools.server.oauth;

import dev.agenttools.tool.Json;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.StringUtil;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pages the browser sees from the authorization server: the consent page, which asks the user whether a
 * registered client may have access (naming the client as it registered, marked unverified, the host its redirect URI
 * reaches, and the scopes in words), and the error page for an authorization request refused before the user has seen
 * the consent page (RFC 9700 section 4.11.2: such errors are never sent to a redirect URI, which would make the
 * server an open redirector). Every page is sent with headers that keep it out of frames (clickjacking), caches and
 * referrers; it has no script, and its only style is the one block whose hash the policy names.
 */
final class ConsentPage {
    /** The page's one style block: allowed by its hash, so that the policy needs no {@code 'unsafe-inline'}. */
    private static final String STYLE = "body{font-family:system-ui,sans-serif;max-width:34em;margin:3em auto;padding:0 1em;"
            + "color:#1b1b1b;line-height:1.45}h1{font-size:1.35em}.client{font-size:1.2em;font-weight:600;word-break:break-word}"
            + ".unverified{color:#a4262c;font-weight:600}.host{font-family:ui-monospace,monospace;font-weight:600;"
            + "word-break:break-all}.note{color:#555;font-size:.9em}ul{padding-left:1.3em}"
            + "button{font-size:1em;padding:.55em 1.6em;margin-right:.8em;border-radius:4px;border:1px solid #666;cursor:pointer}"
            + "button.approve{background:#0b57d0;color:#fff;border-color:#0b57d0}.error{color:#a4262c}";
    private static final String POLICY = "default-src 'none'; style-src '" + styleHash(STYLE) + "'; img-src 'none';"
            + " base-uri 'none'; frame-ancestors 'none'";
    // no form-action: browsers apply it to the redirects after the form is sent too (to Google, to the client)

    /** Field names of the consent form. */
    static final String REQUEST_FIELD = "request";
    static final String DECISION_FIELD = "decision";
    static final String APPROVE = "approve";
    static final String DENY = "deny";

    private ConsentPage() {
    }

    /** What the consent page shows. {@code account} is null before Google said who the user is. */
    record Shown(String clientName, String redirectUri, String scope, String account, String requestId) {
    }

    /** The consent page, 200, with its form posting to {@code action}. */
    static void consent(Response response, Callback callback, String action, Shown shown) {
        StringBuilder b = start("Allow access?");
        b.append("<h1>Allow this application to use your Google account through agent-tools?</h1>\n");
        b.append("<p class=\"client\">").append(shown.clientName() == null ? "An application without a name"
                : "“" + esc(shown.clientName()) + "”").append(" <span class=\"unverified\">(unverified)</span></p>\n");
        b.append("<p class=\"note\">The name is what the application said about itself when it registered;"
                + " agent-tools has not checked it. Allow only an application you started yourself just now.</p>\n");
        b.append("<p>If you allow it, access is sent to <span class=\"host\">").append(esc(destination(shown.redirectUri())))
                .append("</span>").append(destinationNote(shown.redirectUri())).append(".</p>\n");
        if (shown.account() != null) {
            b.append("<p>Google signed you in as <b>").append(esc(shown.account())).append("</b>.</p>\n");
        }
        b.append("<p>It will be able to:</p>\n<ul>\n");
        for (String words : scopeWords(shown.scope())) {
            b.append("<li>").append(esc(words)).append("</li>\n");
        }
        b.append("</ul>\n");
        if (shown.account() == null) {
            b.append("<p class=\"note\">After you approve, Google asks you to sign in.</p>\n");
        }
        b.append("<form method=\"post\" action=\"").append(esc(action)).append("\">\n<input type=\"hidden\" name=\"")
                .append(REQUEST_FIELD).append("\" value=\"").append(esc(shown.requestId())).append("\">\n")
                .append("<button class=\"approve\" type=\"submit\" name=\"").append(DECISION_FIELD).append("\" value=\"")
                .append(APPROVE).append("\">Approve</button>")
                .append("<button type=\"submit\" name=\"").append(DECISION_FIELD).append("\" value=\"").append(DENY)
                .append("\">Deny</button>\n</form>\n</body>\n</html>\n");
        write(response, callback, 200, "text/html; charset=utf-8", b.toString());
    }

    /**
     * An error of the authorization request, shown here and never redirected: an HTML page for a browser (its
     * {@code Accept} names {@code text/html}), RFC 6749's JSON for anything else, with the same headers.
     */
    static void error(Request request, Response response, Callback callback, int status, String error, String description) {
        String accept = request.getHeaders().get(HttpHeader.ACCEPT);
        if (accept != null && accept.toLowerCase(Locale.ROOT).contains("text/html")) {
            StringBuilder b = start("Sign-in refused");
            b.append("<h1>This sign-in cannot go on</h1>\n<p class=\"error\">").append(esc(description)).append("</p>\n")
                    .append("<p class=\"note\">Error: ").append(esc(error)).append(". Nothing was sent to the application."
                            + " Start the sign-in again from the application.</p>\n</body>\n</html>\n");
            write(response, callback, status, "text/html; charset=utf-8", b.toString());
        } else {
            write(response, callback, status, "application/json; charset=utf-8",
                    Json.write(OAuthAnswers.error(error, description)) + "\n");
        }
    }

    /** The headers every page of the sign-in carries (also set on the redirects from it). */
    static void secure(Response response) {
        response.getHeaders().put("Content-Security-Policy", POLICY);
        response.getHeaders().put("X-Frame-Options", "DENY");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put(HttpHeader.PRAGMA, "no-cache");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
    }

    /**
     * Where a redirect URI sends the code, as a person can judge it: the host (and port) of an {@code https} URI, the
     * scheme too for loopback {@code http}, the scheme of an app's private-use URI.
     */
    static String destination(String redirectUri) {
        URI u = URI.create(redirectUri);
        String scheme = u.getScheme().toLowerCase(Locale.ROOT);
        String host = u.getHost() == null ? null : u.getHost().toLowerCase(Locale.ROOT) + (u.getPort() == -1 ? "" : ":" + u.getPort());
        return switch (scheme) {
            case "https" -> host;
            case "http" -> "http://" + host;
            default -> scheme + ":";
        };
    }

    /** What kind of place {@link #destination} is, when it is not a web site (registration allowed only these). */
    private static String destinationNote(String redirectUri) {
        return switch (URI.create(redirectUri).getScheme().toLowerCase(Locale.ROOT)) {
            case "https" -> "";
            case "http" -> " (a program on this computer)";
            default -> " (an app on this device)";
        };
    }

    /**
     * The scopes in words. A scope is named {@code <family>.<access>} ({@code gmail.readonly}); a name this list does
     * not know is shown as it is, so that nothing granted goes unshown.
     */
    static List<String> scopeWords(String scope) {
        Map<String, String> families = Map.of("gmail", "your Gmail messages", "calendar", "your Google Calendar events",
                "habits", "your habits in agent-tools' habit tracker");
        List<String> words = new ArrayList<>();
        List<String> names = List.of(scope.split(" "));
        for (String name : names) {
            int dot = name.indexOf('.');
            // a family's bare name is its full scope (habits), as Google's own bare names are (calendar): read and change
            String family = families.get(dot < 0 ? name : name.substring(0, dot));
            String access = dot < 0 ? "write" : name.substring(dot + 1);
            if (dot >= 0 && names.contains(name.substring(0, dot))) {
                continue; // its read line is said by the full scope's
            }
            String verb = switch (access) {
                case "readonly", "read" -> "Read ";
                case "write", "modify", "send", "events" -> "Read and change ";
                default -> null;
            };
            words.add(family != null && verb != null ? verb + family + " (" + name + ")" : "Use the scope " + name);
        }
        return words;
    }

    private static StringBuilder start(String title) {
        return new StringBuilder(4096).append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>agent-tools: ")
                .append(title).append("</title>\n<style>").append(STYLE).append("</style>\n</head>\n<body>\n");
    }

    /** HTML escaping by Jetty's (the five markup characters, and control characters replaced). */
    private static String esc(String s) {
        return StringUtil.sanitizeXmlString(s);
    }

    private static void write(Response response, Callback callback, int status, String type, String body) {
        secure(response);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    /** CSP's hash source of a style block: {@code sha256-} and the base64 of its UTF-8 bytes' SHA-256. */
    private static String styleHash(String style) {
        try {
            return "sha256-" + Base64.getEncoder().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(style.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
