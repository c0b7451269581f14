package dev.agenttools.server.oauth;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The scopes of the server's tokens and what they allow: one scope per family of tools, named after the Google scope it
 * stands for ({@code gmail.readonly} for the {@code gmail.*} tools, {@code calendar.readonly} for {@code calendar.*}).
 * A scope string is kept in the server's order ({@link OAuthSettings#SCOPES}), space-separated (RFC 6749 section 3.3).
 */
final class Scopes {
    /** OpenID Connect's name for "a refresh token too": taken and dropped, since every sign-in here gets one. */
    static final String OFFLINE_ACCESS = "offline_access";

    /** A scope this server does not issue. */
    static final class Unknown extends Exception {
        private static final long serialVersionUID = 1L;

        Unknown(String message) {
            super(message);
        }
    }

    private Scopes() {
    }

    /**
     * The scope a client asked for, in the server's order: all of them when it asked for none.
     *
     * @throws Unknown naming the first scope this server does not issue
     */
    static String parse(String asked) throws Unknown {
        if (asked == null || asked.isBlank()) {
            return String.join(" ", OAuthSettings.SCOPES);
        }
        Set<String> names = new LinkedHashSet<>(Arrays.asList(asked.strip().split("\\s+")));
        names.remove(OFFLINE_ACCESS);
        for (String name : names) {
            if (!OAuthSettings.SCOPES.contains(name)) {
                throw new Unknown("scope " + (name.length() > 60 ? name.substring(0, 60) + "..." : name)
                        + " is not one this server issues (it issues " + String.join(", ", OAuthSettings.SCOPES) + ")");
            }
        }
        if (names.isEmpty()) {
            return String.join(" ", OAuthSettings.SCOPES);
        }
        return String.join(" ", OAuthSettings.SCOPES.stream().filter(names::contains).toList());
    }

    /**
     * What a tool needs: its family's scope ({@code gmail.list-emails} needs {@code gmail.readonly}); a tool of a family
     * without a scope of its own needs them all (no tool is callable by an oversight).
     */
    static List<String> needed(String command) {
        int dot = command.indexOf('.');
        String scope = (dot < 0 ? command : command.substring(0, dot)) + ".readonly";
        return OAuthSettings.SCOPES.contains(scope) ? List.of(scope) : OAuthSettings.SCOPES;
    }

    static boolean covers(String granted, List<String> needed) {
        return Set.of(granted.split(" ")).containsAll(needed);
    }

    /** {@code granted} and {@code needed} together, in the server's order. */
    static String union(String granted, List<String> needed) {
        Set<String> all = new LinkedHashSet<>(Arrays.asList(granted.split(" ")));
        all.addAll(needed);
        return String.join(" ", OAuthSettings.SCOPES.stream().filter(all::contains).toList());
    }
}
