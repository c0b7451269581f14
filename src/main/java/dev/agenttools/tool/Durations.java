package dev.agenttools.tool;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them in settings and options: {@code 150ms}, {@code 2s}, {@code 1.5s}, {@code 1m},
 * {@code 24h}, {@code 7d}, {@code 4w}, {@code 0}. Written here rather than taken from {@link Duration#parse}, whose ISO
 * form ({@code PT0.15S}) nobody types in a shell. Public for the command line and the server (internal, not API).
 */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d|w)?");
    static final long MINUTE_MS = 60_000;
    static final long HOUR_MS = 60 * MINUTE_MS;
    static final long DAY_MS = 24 * HOUR_MS;
    static final long WEEK_MS = 7 * DAY_MS;

    private Durations() {
    }

    /** @throws IllegalArgumentException saying what is wrong and how to write it */
    public static Duration parse(String value) {
        Matcher m = FORMAT.matcher(value.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + value + "' is not a duration: write a number with ms, s, m, h, d or w, such as 150ms, 2s or 7d");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? (n == 0 ? "ms" : null) : m.group(2);
        if (unit == null) {
            throw new IllegalArgumentException("'" + value + "' has no unit: write 150ms, 2s, 1m, 1h, 1d or 1w");
        }
        double millis = switch (unit) {
            case "ms" -> n;
            case "s" -> n * 1_000;
            case "m" -> n * MINUTE_MS;
            case "h" -> n * HOUR_MS;
            case "d" -> n * DAY_MS;
            default -> n * WEEK_MS;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }

    /**
     * The duration as {@link #parse} reads it, in the largest whole unit up to days: {@code 7d}, {@code 90m},
     * {@code 150ms} (no weeks: a default of {@code 7d} prints back as {@code 7d}).
     */
    public static String text(Duration d) {
        long ms = d.toMillis();
        if (ms == 0) {
            return "0";
        }
        long[] sizes = {DAY_MS, HOUR_MS, MINUTE_MS, 1_000};
        String[] units = {"d", "h", "m", "s"};
        for (int i = 0; i < sizes.length; i++) {
            if (ms % sizes[i] == 0) {
                return ms / sizes[i] + units[i];
            }
        }
        return ms + "ms";
    }
}
