package dev.agenttools.cli;

import java.time.ZoneId;
import java.util.Optional;
import java.util.TimeZone;

/**
 * The zone a launcher's caller would get from {@link ZoneId#systemDefault()} in a JVM of its own, worked out by the
 * resident server from the caller's {@code TZ}, so that a forwarded call answers as the in-process call would (a
 * habit created without a {@code time_zone} gets the caller's zone, not that of whoever started the server).
 *
 * <p>The JDK's own rules, as far as they can be followed without the C library: an unset or empty {@code TZ} means the
 * platform's zone ({@code /etc/timezone}, {@code /etc/localtime}), which is this server's own when its {@code TZ} is
 * unset too (the launcher starts it without one); otherwise a leading {@code :} and a {@code posix/} prefix are
 * dropped (as the JDK does on Linux) and the rest is looked up as {@link TimeZone#getTimeZone(String)} looks it up,
 * offsets such as {@code GMT+9} included. What the JDK would resolve through the C library instead (a POSIX rule such
 * as {@code JST-9}, a file path, an id it does not know, which it turns into an offset or GMT), a three-letter id
 * (whose deprecation warning the caller's own JVM prints), and a caller or server that sets {@code user.timezone} in
 * {@code AGENT_TOOLS_JAVA_OPTS} are not guessed at: {@link #of} is empty, and the call is answered in-process.
 */
final class CallerZone {
    static final String TZ = "TZ";
    private static final String JAVA_OPTS = "AGENT_TOOLS_JAVA_OPTS";

    private CallerZone() {
    }

    /**
     * The caller's zone, or empty when only a JVM of the caller's own can say.
     *
     * @param callerTz     the caller's {@code TZ}; null when unset
     * @param callerOpts   the caller's {@code AGENT_TOOLS_JAVA_OPTS}; null when unset
     * @param ownTz        this server's {@code TZ}; null when unset
     * @param ownOpts      this server's {@code AGENT_TOOLS_JAVA_OPTS}; null when unset
     */
    static Optional<ZoneId> of(String callerTz, String callerOpts, String ownTz, String ownOpts) {
        if (setsZone(callerOpts) || setsZone(ownOpts)) {
            return Optional.empty();
        }
        boolean callerSet = callerTz != null && !callerTz.isEmpty();
        boolean ownSet = ownTz != null && !ownTz.isEmpty();
        if (!callerSet || callerTz.equals(ownTz)) {
            // the platform's zone is this JVM's only when this JVM was given no TZ of its own
            return !callerSet && ownSet ? Optional.empty() : Optional.of(ZoneId.systemDefault());
        }
        String id = callerTz.startsWith(":") ? callerTz.substring(1) : callerTz;
        if (id.startsWith("posix/")) {
            id = id.substring("posix/".length());
        }
        if (ZoneId.SHORT_IDS.containsKey(id)) {
            return Optional.empty();
        }
        TimeZone zone = TimeZone.getTimeZone(id); // GMT for an id it does not know
        if (zone.getID().equals("GMT") && !id.equals("GMT") && !id.matches("GMT[+-]0{1,2}(:?00)?")) {
            return Optional.empty();
        }
        return Optional.of(zone.toZoneId());
    }

    private static boolean setsZone(String javaOptions) {
        return javaOptions != null && javaOptions.contains("user.timezone");
    }
}
