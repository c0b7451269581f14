package dev.agenttools.tool;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;

/**
 * What {@code timeout_ms} may be, and what a call without it gets.
 *
 * @param defaultTimeout the deadline of a call that names none
 * @param min            the shortest a caller may ask for
 * @param max            the longest a caller may ask for
 */
public record CallTimeouts(Duration defaultTimeout, Duration min, Duration max) {
    public static final String PARAM = "timeout_ms";
    public static final Duration MIN = Duration.ofMillis(100);
    public static final Duration MAX = Duration.ofMinutes(5);
    /** The deadline of a call that names none, unless the registry was given another. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    public CallTimeouts {
        if (min.isNegative() || min.isZero() || max.compareTo(min) < 0 || defaultTimeout.compareTo(min) < 0
                || defaultTimeout.compareTo(max) > 0) {
            throw new IllegalArgumentException("timeouts must satisfy 0 < min <= default <= max, got " + min.toMillis()
                    + " ms, " + defaultTimeout.toMillis() + " ms, " + max.toMillis() + " ms");
        }
    }

    /** 100 ms to 5 minutes, {@code defaultTimeout} when not given. */
    public static CallTimeouts withDefault(Duration defaultTimeout) {
        return new CallTimeouts(defaultTimeout, MIN, MAX);
    }

    /** The deadline of {@code call}: its {@code timeout_ms}, counted from its start. */
    Deadline deadlineOf(ToolCall call) {
        JsonNode v = call.params().get(PARAM);
        if (v == null || v.isNull()) {
            return Deadline.since(call.startNanos(), defaultTimeout);
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min.toMillis() || v.asLong() > max.toMillis()) {
            throw ToolException.invalidArgument(PARAM + " must be " + min.toMillis() + ".." + max.toMillis() + ", got "
                    + Params.describe(PARAM, v));
        }
        return Deadline.since(call.startNanos(), Duration.ofMillis(v.asLong()));
    }
}
