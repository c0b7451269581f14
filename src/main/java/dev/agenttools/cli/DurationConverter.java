package dev.agenttools.cli;

import dev.agenttools.tool.Durations;
import picocli.CommandLine;

import java.time.Duration;

/**
 * Reads durations as people write them ({@link Durations}: {@code 150ms}, {@code 2s}, {@code 7d}...). Every
 * {@link Duration} option reads through it (registered once in {@link Main}).
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /** The duration as this converter reads it ({@link Durations#text}). */
    static String text(Duration d) {
        return Durations.text(d);
    }
}
