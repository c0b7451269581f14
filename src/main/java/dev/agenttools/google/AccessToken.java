package dev.agenttools.google;

/**
 * What may be sent as an OAuth bearer token: RFC 6750's {@code b64token} (letters, digits and {@code -._~+/}, then
 * {@code =} padding), which every Google access token is. Checked before a token goes near a request, because the
 * HTTP client's own check of a header value (a line break, a non-Latin-1 character) quotes the whole value in its
 * message. The descriptions here never quote a token.
 */
public final class AccessToken {
    /** Google documents access tokens of up to 2,048 bytes; four times that is room to spare, not a 1 MB header. */
    static final int MAX_CHARS = 8_192;

    private AccessToken() {
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
