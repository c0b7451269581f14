package dev.agenttools.google;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/** Checks a Google API root URL setting (Gmail's, Calendar's, an emulator's) before any client is built. */
public final class RootUrl {
    private RootUrl() {
    }

    /**
     * What is wrong with a root URL, phrased to follow its name ({@code "must be ..."}), or null when the Google
     * client and the JDK's HTTP client can both use it: absolute http(s), a host, no query or fragment.
     *
     * @param example the API's own root URL, shown as an example
     */
    public static String flaw(String url, String example) {
        String allowed = "must be an http(s) URL such as " + example + " or http://127.0.0.1:8080/ (an emulator), got ";
        if (url == null) {
            return allowed + "nothing";
        }
        String shown = "\"" + (url.length() > 200 ? url.substring(0, 200) + "..." : url) + "\"";
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return allowed + shown + " (" + e.getReason() + " at index " + e.getIndex() + ")";
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return allowed + shown;
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            return allowed + shown + " (no host name or address)";
        }
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            return allowed + shown + " (no user, query or fragment)";
        }
        return null;
    }
}
