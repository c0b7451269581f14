package dev.agenttools.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads durations as people write them: {@code 150ms}, {@code 2s}, {@code 1.5s}, {@code 1m}, {@code 0}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern FORMAT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

    @Override
    public Duration convert(String value) {
        Matcher m = FORMAT.matcher(value.strip().toLowerCase(java.util.Locale.ROOT));
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration: write a number with ms, s, m or h, such as 150ms or 2s");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? (n == 0 ? "ms" : null) : m.group(2);
        if (unit == null) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' has no unit: write 150ms, 2s, 1m or 1h");
        }
        double millis = switch (unit) {
            case "ms" -> n;
            case "s" -> n * 1_000;
            case "m" -> n * 60_000;
            default -> n * 3_600_000;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }
}
