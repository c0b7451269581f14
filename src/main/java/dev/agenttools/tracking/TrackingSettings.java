package dev.agenttools.tracking;

import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Where call records go, read once from the environment.
 *
 * @param sink           {@code sqlite} (default), {@code dynamodb} or {@code none}
 * @param sqliteFile     the SQLite file (default: the user's data folder, agent-tools/calls.db)
 * @param dynamoTable    the DynamoDB table (default agent-tools-calls; created when missing)
 * @param dynamoEndpoint a DynamoDB endpoint to use instead of AWS's (a local server), or null
 * @param region         the AWS region (default us-east-1)
 */
public record TrackingSettings(String sink, Path sqliteFile, String dynamoTable, URI dynamoEndpoint, String region) {
    public TrackingSettings {
        if (!sink.equals("sqlite") && !sink.equals("dynamodb") && !sink.equals("none")) {
            throw new IllegalArgumentException("AGENT_TOOLS_TRACKING must be sqlite, dynamodb or none, got " + sink);
        }
    }

    public static TrackingSettings none() {
        return new TrackingSettings("none", null, null, null, null);
    }

    public static TrackingSettings sqlite(Path file) {
        return new TrackingSettings("sqlite", file, null, null, null);
    }

    /**
     * Reads {@code AGENT_TOOLS_TRACKING}, {@code AGENT_TOOLS_TRACKING_DB}, {@code AGENT_TOOLS_DYNAMODB_TABLE},
     * {@code AGENT_TOOLS_DYNAMODB_ENDPOINT} and {@code AWS_REGION}.
     */
    public static TrackingSettings fromEnvironment(Map<String, String> env) {
        String sink = env.getOrDefault("AGENT_TOOLS_TRACKING", "sqlite").strip().toLowerCase(Locale.ROOT);
        Path file = env.containsKey("AGENT_TOOLS_TRACKING_DB") ? Path.of(env.get("AGENT_TOOLS_TRACKING_DB")) : defaultFile(env);
        String endpoint = env.get("AGENT_TOOLS_DYNAMODB_ENDPOINT");
        URI uri;
        try {
            uri = endpoint == null || endpoint.isBlank() ? null : URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("AGENT_TOOLS_DYNAMODB_ENDPOINT must be a URL, got " + endpoint);
        }
        return new TrackingSettings(sink, file, env.getOrDefault("AGENT_TOOLS_DYNAMODB_TABLE", "agent-tools-calls"), uri,
                env.getOrDefault("AWS_REGION", env.getOrDefault("AWS_DEFAULT_REGION", "us-east-1")));
    }

    /** $XDG_DATA_HOME/agent-tools/calls.db, else ~/.local/share/agent-tools/calls.db. */
    static Path defaultFile(Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("agent-tools").resolve("calls.db");
    }
}
