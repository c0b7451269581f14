package dev.agenttools.tracking;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where call records go, read once from the environment.
 *
 * @param sink           where records go: SQLite (default), DynamoDB or nowhere
 * @param sqliteFile     the SQLite file (default, also when the variable is empty: the user's data folder,
 *                       agent-tools/calls.db); a regular file, or a path that does not exist yet in a writable folder
 * @param dynamoTable    the DynamoDB table (default agent-tools-calls; created when missing)
 * @param dynamoEndpoint a DynamoDB endpoint to use instead of AWS's (a local server), or null
 * @param region         the AWS region (default us-east-1)
 * @param journal        where long-running processes keep their call journals ({@code $XDG_DATA_HOME/agent-tools/call-journal},
 *                       a folder per store in it), or null when {@code AGENT_TOOLS_TRACKING_JOURNAL=off}: see {@link Journal}
 */
public record TrackingSettings(Sink sink, Path sqliteFile, String dynamoTable, URI dynamoEndpoint, String region,
                               Duration flushTimeout, Path journal) {
    /** Where call records go, as {@code AGENT_TOOLS_TRACKING} names it. */
    public enum Sink {
        SQLITE, DYNAMODB, NONE;

        /** {@code sqlite}, {@code dynamodb} or {@code none}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        @Override
        public String toString() {
            return wireName();
        }

        static Sink named(String name) {
            for (Sink s : values()) {
                if (s.wireName().equals(name)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("AGENT_TOOLS_TRACKING must be sqlite, dynamodb or none, got " + name);
        }
    }

    static final String DB_VARIABLE = "AGENT_TOOLS_TRACKING_DB";
    static final String FLUSH_VARIABLE = "AGENT_TOOLS_TRACKING_FLUSH_MS";
    static final String JOURNAL_VARIABLE = "AGENT_TOOLS_TRACKING_JOURNAL";
    /**
     * How long the exit waits for pending records. Long enough for a cold JVM to load the AWS SDK, connect and write
     * (1–2 s, more on a busy machine); short enough that a store that never answers costs one short wait.
     */
    static final Duration DEFAULT_FLUSH = Duration.ofSeconds(5);

    /** Settings with no journal (for a program of its own, whose process is not the command line's). */
    public TrackingSettings(Sink sink, Path sqliteFile, String dynamoTable, URI dynamoEndpoint, String region) {
        this(sink, sqliteFile, dynamoTable, dynamoEndpoint, region, DEFAULT_FLUSH);
    }

    public TrackingSettings(Sink sink, Path sqliteFile, String dynamoTable, URI dynamoEndpoint, String region,
                            Duration flushTimeout) {
        this(sink, sqliteFile, dynamoTable, dynamoEndpoint, region, flushTimeout, null);
    }

    public TrackingSettings {
        Objects.requireNonNull(sink, "sink");
    }

    /**
     * Reads {@code AGENT_TOOLS_TRACKING}, {@code AGENT_TOOLS_TRACKING_DB}, {@code AGENT_TOOLS_TRACKING_FLUSH_MS},
     * {@code AGENT_TOOLS_TRACKING_JOURNAL} ({@code on}, the default, or {@code off}), {@code AGENT_TOOLS_DYNAMODB_TABLE},
     * {@code AGENT_TOOLS_DYNAMODB_ENDPOINT} and {@code AWS_REGION}.
     *
     * @throws IllegalArgumentException for a bad value, naming the variable (with sqlite, a store path that is a
     *                                  device, a folder, or in a folder that cannot be written)
     */
    public static TrackingSettings fromEnvironment(Map<String, String> env) {
        Sink sink = Sink.named(env.getOrDefault("AGENT_TOOLS_TRACKING", "sqlite").strip().toLowerCase(Locale.ROOT));
        // Empty means unset, as for XDG_DATA_HOME: an empty path would be SQLite's temporary database, and every
        // record would silently vanish with the process.
        String db = env.get(DB_VARIABLE);
        Path file;
        try {
            file = db == null || db.isBlank() ? defaultFile(env) : Path.of(db);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(DB_VARIABLE + " must be a file path, got \"" + db + "\": " + e.getReason());
        }
        if (sink == Sink.SQLITE) {
            checkSqliteFile(file, db == null || db.isBlank() ? "the default call store" : DB_VARIABLE);
        }
        String endpoint = env.get("AGENT_TOOLS_DYNAMODB_ENDPOINT");
        URI uri;
        try {
            uri = endpoint == null || endpoint.isBlank() ? null : URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("AGENT_TOOLS_DYNAMODB_ENDPOINT must be a URL, got " + endpoint);
        }
        return new TrackingSettings(sink, file, env.getOrDefault("AGENT_TOOLS_DYNAMODB_TABLE", "agent-tools-calls"), uri,
                env.getOrDefault("AWS_REGION", env.getOrDefault("AWS_DEFAULT_REGION", "us-east-1")), flushTimeout(env),
                journal(env));
    }

    /** The journals' folder, beside the default call store (whatever store is used), or null when turned off. */
    private static Path journal(Map<String, String> env) {
        String value = env.getOrDefault(JOURNAL_VARIABLE, "on").strip().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "on", "" -> defaultFile(env).resolveSibling("call-journal");
            case "off" -> null;
            default -> throw new IllegalArgumentException(JOURNAL_VARIABLE + " must be on or off, got \"" + env.get(JOURNAL_VARIABLE) + "\"");
        };
    }

    private static Duration flushTimeout(Map<String, String> env) {
        String value = env.get(FLUSH_VARIABLE);
        if (value == null || value.isBlank()) {
            return DEFAULT_FLUSH;
        }
        try {
            long ms = Long.parseLong(value.strip());
            if (ms >= 1 && ms <= 600_000) {
                return Duration.ofMillis(ms);
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException(FLUSH_VARIABLE + " must be a number of milliseconds 1..600000, got \"" + value + "\"");
    }

    /**
     * A call store must be a regular file, or not exist yet with a writable folder (or the nearest existing ancestor
     * of one to create) above it: SQLite would open a device or a FIFO as given, and then create its journal next to
     * it ({@code /dev/full-journal}).
     */
    static void checkSqliteFile(Path file, String source) {
        Path absolute = file.toAbsolutePath();
        if (Files.exists(absolute)) {
            if (!Files.isRegularFile(absolute)) {
                throw new IllegalArgumentException(source + " must be a regular file or a path that does not exist yet, got "
                        + file + " (" + (Files.isDirectory(absolute) ? "a folder" : "a device, pipe or socket") + ")");
            }
            return;
        }
        Path ancestor = absolute.getParent();
        while (ancestor != null && !Files.exists(ancestor)) {
            ancestor = ancestor.getParent();
        }
        if (ancestor == null || !Files.isDirectory(ancestor)) {
            throw new IllegalArgumentException(source + " must be in a folder, got " + file + " (" + ancestor + " is not a folder)");
        }
        if (!Files.isWritable(ancestor)) {
            throw new IllegalArgumentException(source + " must be in a folder you can write, got " + file + " (" + ancestor
                    + " is not writable)");
        }
    }

    /** $XDG_DATA_HOME/agent-tools/calls.db, else ~/.local/share/agent-tools/calls.db. */
    static Path defaultFile(Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("agent-tools").resolve("calls.db");
    }
}
