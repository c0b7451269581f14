package dev.agenttools.server.oauth;

import dev.agenttools.tool.ToolSpec;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The scopes of the server's tokens and what they allow: per family of tools, a scope that reads it and, for a family
 * whose tools write, one that writes it; each tool needs the one its declared {@link ToolSpec.Effect} asks for:
 *
 * <table>
 *   <caption>scope by family and effect</caption>
 *   <tr><th>family (command prefix)</th><th>{@code READ}</th><th>{@code REVERSIBLE}, {@code IRREVERSIBLE}</th></tr>
 *   <tr><td>{@code gmail.}</td><td>{@code gmail.readonly}</td><td>none yet: a write tool of the family is refused at start</td></tr>
 *   <tr><td>{@code calendar.}</td><td>{@code calendar.readonly}</td><td>none yet, likewise</td></tr>
 *   <tr><td>{@code habit.}</td><td>{@code habits.readonly} or {@code habits}</td><td>{@code habits}</td></tr>
 * </table>
 *
 * <p>A family's write scope allows its reads too (as Google's {@code gmail.modify} covers reading). A tool of a family
 * not listed here, or a write tool of a family without a write scope, stops the server at start ({@link #needs}): no
 * tool is callable, or refused, by an oversight. A scope string is kept in the server's order
 * ({@link OAuthSettings#SCOPES}), space-separated (RFC 6749 section 3.3).
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

    /** A family of tools: the prefix of its commands, its read scope, its write scope (null: none yet). */
    record Family(String prefix, String read, String write) {
    }

    static final List<Family> FAMILIES = List.of(new Family("gmail.", "gmail.readonly", null),
            new Family("calendar.", "calendar.readonly", null), new Family("habit.", "habits.readonly", "habits"));

    /**
     * What a tool needs: any one of {@code anyOf}; {@code ask} is the scope a client is told to ask for.
     */
    record Need(String ask, Set<String> anyOf) {
    }

    /**
     * What each tool needs, by command, from its family and its declared effect (the table above).
     *
     * @throws IllegalArgumentException naming a tool of no family here, or a write tool of a family with no write scope
     */
    static Map<String, Need> needs(List<ToolSpec> specs) {
        Map<String, Need> needs = new HashMap<>();
        for (ToolSpec spec : specs) {
            Family family = FAMILIES.stream().filter(f -> spec.name().startsWith(f.prefix())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("the tool " + spec.name() + " is of no family the MCP"
                            + " authorization server has scopes for (server/oauth/Scopes): add its family there"));
            if (!spec.effect().writes()) {
                needs.put(spec.name(), new Need(family.read(), family.write() == null ? Set.of(family.read())
                        : Set.of(family.read(), family.write())));
            } else if (family.write() == null) {
                throw new IllegalArgumentException("the tool " + spec.name() + " writes (" + spec.effect() + "), but its"
                        + " family has no write scope yet (server/oauth/Scopes): add one there");
            } else {
                needs.put(spec.name(), new Need(family.write(), Set.of(family.write())));
            }
        }
        return Map.copyOf(needs);
    }

    static boolean allows(String granted, Need need) {
        return Arrays.stream(granted.split(" ")).anyMatch(need.anyOf()::contains);
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
