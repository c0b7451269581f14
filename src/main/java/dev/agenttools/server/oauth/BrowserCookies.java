package dev.agenttools.server.oauth;

import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The two cookies of the sign-in, both {@code HttpOnly}, {@code Secure} when the issuer is {@code https}, and sent only
 * under {@code <prefix>/oauth/}:
 *
 * <ul>
 *   <li>{@value #BINDING}: a random value, {@code SameSite=Strict}, whose digest the consent waiting for an answer
 *       keeps. The consent form's POST must carry it as well as the form's request id, so that a page opened in one
 *       browser (the attacker's) cannot be answered from another (the victim's), and no other site can answer it.</li>
 *   <li>{@value #REMEMBERED}: the account Google said the user is, sealed with the server's first token key (AES-GCM:
 *       no one else can make or alter one; instances that share the keys read each other's), {@code SameSite=Lax}
 *       because the MCP client sends the browser to {@code /oauth/authorize} from elsewhere. It is only a hint that
 *       lets a returning user skip the consent page for a client that account approved before: the account Google
 *       names at the callback is checked against the stored approvals again before any code is issued.</li>
 * </ul>
 */
final class BrowserCookies {
    static final String BINDING = "agt_consent";
    static final String REMEMBERED = "agt_account";
    /** How long a browser is remembered, and how long an approval is kept after its last use. */
    static final Duration REMEMBERED_LIFETIME = Duration.ofDays(30);
    private static final String SEALED_FOR = "agent-tools remembered browser";
    private static final Pattern SECRET = Pattern.compile("[A-Za-z0-9_-]{43}");
    /** Longer than any cookie of ours (a key id, a nonce, an address of at most 320 characters, a tag). */
    private static final int MAX_REMEMBERED_LENGTH = 1_000;

    private final TokenCipher cipher;
    private final boolean secure;
    private final String path;

    BrowserCookies(OAuthSettings settings, TokenCipher cipher) {
        this.cipher = cipher;
        this.secure = URI.create(settings.issuer()).getScheme().equals("https");
        this.path = settings.pathPrefix() + "/oauth/";
    }

    /** The browser's binding value when it sent a well-formed one, else null. */
    String binding(Request request) {
        String value = cookie(request, BINDING);
        return value != null && SECRET.matcher(value).matches() ? value : null;
    }

    /** The browser's binding value, or a new one; set again (for another {@code lifetime}) in the answer. */
    String bind(Request request, Response response, Duration lifetime) {
        String value = binding(request);
        if (value == null) {
            value = Secrets.verifier(); // 256 random bits, base64url
        }
        Response.addCookie(response, HttpCookie.build(BINDING, value).path(path).maxAge(lifetime.toSeconds()).httpOnly(true)
                .secure(secure).sameSite(HttpCookie.SameSite.STRICT).build());
        return value;
    }

    /** The account the browser's remembered cookie names, when it opens with a listed key and has not expired. */
    String remembered(Request request, Instant now) {
        String value = cookie(request, REMEMBERED);
        int tilde = value == null || value.length() > MAX_REMEMBERED_LENGTH ? -1 : value.indexOf('~');
        if (tilde < 1) {
            return null;
        }
        try {
            Base64.Decoder d = Base64.getUrlDecoder();
            String keyId = new String(d.decode(value.substring(0, tilde)), StandardCharsets.UTF_8);
            String opened = cipher.open(new TokenCipher.Sealed(keyId, d.decode(value.substring(tilde + 1))), SEALED_FOR);
            int space = opened.lastIndexOf(' ');
            if (space < 1 || Instant.ofEpochSecond(Long.parseLong(opened.substring(space + 1))).isBefore(now)) {
                return null;
            }
            return opened.substring(0, space);
        } catch (IllegalArgumentException | TokenCipher.Unreadable e) {
            return null; // altered, made with a key no longer listed, or not ours: the browser is not remembered
        }
    }

    /** Remembers the browser as {@code account}'s for {@link #REMEMBERED_LIFETIME}. */
    void remember(Response response, String account, Instant now) {
        TokenCipher.Sealed sealed = cipher.seal(account + " " + now.plus(REMEMBERED_LIFETIME).getEpochSecond(), SEALED_FOR);
        Base64.Encoder e = Base64.getUrlEncoder().withoutPadding();
        String value = e.encodeToString(sealed.keyId().getBytes(StandardCharsets.UTF_8)) + "~" + e.encodeToString(sealed.bytes());
        Response.addCookie(response, HttpCookie.build(REMEMBERED, value).path(path).maxAge(REMEMBERED_LIFETIME.toSeconds())
                .httpOnly(true).secure(secure).sameSite(HttpCookie.SameSite.LAX).build());
    }

    private static String cookie(Request request, String name) {
        String found = null;
        for (HttpCookie c : Request.getCookies(request)) {
            if (c.getName().equals(name)) {
                if (found != null) {
                    return null; // two of one name (another path's, or planted): neither is trusted
                }
                found = c.getValue();
            }
        }
        return found;
    }
}
