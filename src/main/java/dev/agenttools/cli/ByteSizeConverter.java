package dev.agenttools.cli;

import picocli.CommandLine;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads sizes as people write them: {@code 36700160}, {@code 512KiB}, {@code 35MiB}, {@code 16k}. K, M and G are
 * binary (1024), as in Gmail's "35 MB" upload limit, which is 36,700,160 bytes.
 */
final class ByteSizeConverter implements CommandLine.ITypeConverter<Long> {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,15})\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

    @Override
    public Long convert(String value) {
        Matcher m = FORMAT.matcher(value.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a size: write bytes, or a number with KiB, MiB or GiB, such as 35MiB");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "b" : m.group(2);
        int shift = switch (unit.charAt(0)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        if (n > Long.MAX_VALUE >> shift) {
            throw new CommandLine.TypeConversionException("'" + value + "' is too large a size");
        }
        return n << shift;
    }
}
