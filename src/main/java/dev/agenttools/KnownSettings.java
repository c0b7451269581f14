package dev.agenttools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The names of every setting agent-tools reads ({@code settings.txt} beside this class, kept equal to what the code
 * reads by DocsTest), so that a key of the config file that is none of them, a misspelling most often, is warned
 * about with the nearest known name instead of being silently ignored.
 */
final class KnownSettings {
    /** The longest key named in a warning: a config file is the user's, but a warning stays a line. */
    static final int MAX_KEY_SHOWN = 80;
    /** A known name this many edits away or fewer is offered as the one meant. */
    static final int MAX_DISTANCE = 4;
    private static final String PREFIX = "AGENT_TOOLS_";
    private static final Set<String> NAMES = load();

    private KnownSettings() {
    }

    static Set<String> names() {
        return NAMES;
    }

    /** A warning for each of {@code keys} that no code reads, in order, naming the nearest known setting if any. */
    static List<String> warnings(Collection<String> keys) {
        List<String> out = new ArrayList<>();
        for (String key : new TreeSet<>(keys)) {
            if (!NAMES.contains(key)) {
                String shown = key.length() > MAX_KEY_SHOWN ? key.substring(0, MAX_KEY_SHOWN) + "…" : key;
                String near = nearest(key);
                out.add("agent-tools: the config file sets " + shown + ", which no setting is; it is ignored"
                        + (near == null ? " (docs/configuration.md lists them)" : " (did you mean " + near + "?)"));
            }
        }
        return out;
    }

    /** The known name fewest edits from {@code key} (case ignored), if within {@link #MAX_DISTANCE}; else null. */
    static String nearest(String key) {
        String best = null;
        int bestDistance = MAX_DISTANCE + 1;
        String upper = key.toUpperCase(Locale.ROOT);
        // a name without its prefix (GMAIL_QUOTA) is as near as the prefixed one
        List<String> tried = upper.startsWith(PREFIX) ? List.of(upper) : List.of(upper, PREFIX + upper);
        for (String name : NAMES) {
            for (String candidate : tried) {
                int d = distance(candidate, name, bestDistance);
                if (d < bestDistance) {
                    best = name;
                    bestDistance = d;
                }
            }
        }
        return best;
    }

    /**
     * Levenshtein distance, or {@code limit} once it is sure to be at least that. Written here: ten lines, where a
     * library (Apache Commons Text) would add a dependency for one function.
     */
    static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            int rowMin = current[0];
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
                rowMin = Math.min(rowMin, current[j]);
            }
            if (rowMin >= limit) {
                return limit;
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return Math.min(previous[b.length()], limit);
    }

    private static Set<String> load() {
        try (InputStream in = KnownSettings.class.getResourceAsStream("settings.txt")) {
            if (in == null) {
                throw new IllegalStateException("settings.txt is missing from the build");
            }
            Set<String> names = new TreeSet<>();
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).forEach(names::add);
            return Set.copyOf(names);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
