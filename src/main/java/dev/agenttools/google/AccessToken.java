package dev.agenttools.google;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolException;

/**
 * What may be sent as an OAuth bearer token: RFC 6750's {@code b64token} (letters, digits and {@code -._~+/}, then
 * {@code =} padding), which every Google access token is. Checked before a token goes near a request, because the
 * HTTP client's own check of a header value (a line break, a non-Latin-1 character) quotes the whole value in its
 * message. The descriptions here never quote a token.
 */
public final class AccessToken {
    /** Google documents access tokens of up to 2,048 bytes; four times that is room to spare, not a 1 MB header. */
    static final int MAX_CHARS = 8_192;

    /** The param every Google tool takes its token in. */
    public static final String PARAM = "access_token";

    private AccessToken() {
    }

    /** The call's token (null: none), checked before it goes near a request; the error never shows it. */
    public static String of(Params p) {
        String token = p.string(PARAM, null);
        String flaw = token == null || token.isBlank() ? null : flaw(token);
        if (flaw != null) {
            throw ToolException.invalidArgument(PARAM + " is not an OAuth access token: it " + flaw + " (the value is not shown)");
        }
        return token;
    }

    /** Properties with the token param first, as every Google tool's schema has it. */
    public static ObjectNode properties(String description) {
        ObjectNode p = Json.object();
        p.putObject(PARAM).put("type", "string").put("description", description);
        return p;
    }

    /**
     * Why {@code token} cannot be sent as a bearer token, phrased to follow "it" and without quoting it
     * ({@code "has a line break at character 38 of 39"}); null when it can.
     */
    public static String flaw(String token) {
        if (token.length() > MAX_CHARS) {
            return "is " + token.length() + " characters long, over the " + MAX_CHARS + " a token can be";
        }
        boolean padding = false;
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            String at = " at character " + (i + 1) + " of " + token.length();
            if (c == '\r' || c == '\n') {
                return "has a line break" + at;
            }
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                return "has a space" + at;
            }
            if (c < 0x20 || c == 0x7f) {
                return "has a control character" + at;
            }
            if (c > 0x7e) {
                return "has a non-ASCII character" + at;
            }
            if (c == '=') {
                padding = true;
            } else if (padding || !(Character.isLetterOrDigit(c) || "-._~+/".indexOf(c) >= 0)) {
                return "has a character a token cannot hold" + at + " (allowed: letters, digits, - . _ ~ + / and = at the end)";
            }
        }
        return null;
    }
}
