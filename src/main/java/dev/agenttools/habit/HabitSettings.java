package dev.agenttools.habit;

import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolException;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where the Habit tools keep habits, and whose habits a call reaches, read once and sealed.
 *
 * <p>Whose habits: by default the Google account behind the call's credential, the account its Gmail and Calendar
 * calls act as (its {@code access_token}, else the configured token, else the stored sign-in; the address asked of
 * Google once per credential). A deployment without Google sign-in names its user ({@code AGENT_TOOLS_HABIT_USER}),
 * and a trusted backend between many users and the tools names each call's ({@code user_id}, with
 * {@code AGENT_TOOLS_HABIT_USER_PARAM=on}: the tools cannot check that the caller is that user, so only then).
 *
 * <p>Where: a SQLite file by default; a DynamoDB table ({@code AGENT_TOOLS_HABIT_TABLE}, or the default table
 * {@value #DEFAULT_TABLE} when the instances share their state in DynamoDB: {@code AGENT_TOOLS_SHARED_STATE=dynamodb})
 * for instances on several machines, which one file cannot serve. Naming both a file and a table is refused.
 *
 * @param file        the SQLite file: {@code AGENT_TOOLS_HABIT_DB}, else {@code $XDG_DATA_HOME/agent-tools/habits.db},
 *                    else {@code ~/.local/share/agent-tools/habits.db}; unused when {@code table} is set
 * @param defaultUser whose habits a call that names no {@code user_id} reaches; null: the Google account of its
 *                    credential
 * @param userParam   whether a call's {@code user_id} is honoured (a trusted backend names the user); when not, a call
 *                    that sends one is refused
 * @param table       the DynamoDB table the habits are kept in instead of the file, or null
 * @param manyUsers   a service of many users (the HTTP service, {@link #forManyUsers}): a call without a credential is
 *                    told to bring its end user's, not to configure a user the service would ignore
 */
public record HabitSettings(Path file, String defaultUser, boolean userParam, DynamoTable table, boolean manyUsers) {
    static final String DB_VARIABLE = "AGENT_TOOLS_HABIT_DB";
    static final String USER_VARIABLE = "AGENT_TOOLS_HABIT_USER";
    static final String USER_PARAM_VARIABLE = "AGENT_TOOLS_HABIT_USER_PARAM";
    static final String TABLE_VARIABLE = "AGENT_TOOLS_HABIT_TABLE";
    /** The variable that puts every store the instances share in DynamoDB (as the OAuth store and the pacing read it). */
    static final String SHARED_STATE_VARIABLE = "AGENT_TOOLS_SHARED_STATE";
    /** Tracking's, read alike: one local DynamoDB for every table. */
    static final String ENDPOINT_VARIABLE = "AGENT_TOOLS_DYNAMODB_ENDPOINT";
    static final String DEFAULT_TABLE = "agent-tools-habits";
    static final String DEFAULT_REGION = "us-east-1";
    static final String DEFAULT_USER = "local";
    /** A user id is an account's address or a backend's id, in Unicode code points: past this it is not one. */
    static final int MAX_USER_CHARS = 320;

    public HabitSettings {
        Objects.requireNonNull(file, "file");
        if (defaultUser != null) {
            try {
                Params.name(USER_VARIABLE, defaultUser, MAX_USER_CHARS); // kept as written (see HabitUsers)
            } catch (ToolException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
            if (defaultUser.startsWith(HabitUsers.USER_ID_PREFIX)) {
                throw new IllegalArgumentException(USER_VARIABLE + " must not begin with " + HabitUsers.USER_ID_PREFIX
                        + ": that is the namespace of the users a trusted backend names (user_id)");
            }
        }
    }

    /** Settings that keep the habits in the SQLite file. */
    public HabitSettings(Path file, String defaultUser, boolean userParam) {
        this(file, defaultUser, userParam, null);
    }

    /** Settings of one machine's users (not a service of many). */
    public HabitSettings(Path file, String defaultUser, boolean userParam, DynamoTable table) {
        this(file, defaultUser, userParam, table, false);
    }

    /**
     * The DynamoDB table the habits are kept in.
     *
     * @param table    its name (3..255 of {@code A-Za-z0-9._-}, as DynamoDB allows)
     * @param endpoint a local DynamoDB (dynalite, DynamoDB Local), where the table is made when missing; null: AWS's,
     *                 where it must exist
     * @param region   the AWS region
     */
    public record DynamoTable(String table, URI endpoint, String region) {
        public DynamoTable {
            if (table == null || !table.matches("[A-Za-z0-9._-]{3,255}")) {
                throw new IllegalArgumentException(TABLE_VARIABLE + " must be 3..255 of A-Z a-z 0-9 . _ -, got \"" + table + "\"");
            }
            if (region == null || region.isBlank()) {
                throw new IllegalArgumentException("the habit table's AWS region is missing (AWS_REGION)");
            }
        }
    }

    /** The tools for the one user {@value #DEFAULT_USER}, their habits in {@code file} (tests, programs of their own). */
    public static HabitSettings at(Path file) {
        return new HabitSettings(file, DEFAULT_USER, false);
    }

    /**
     * Reads {@code AGENT_TOOLS_HABIT_DB}, {@code AGENT_TOOLS_HABIT_USER}, {@code AGENT_TOOLS_HABIT_USER_PARAM}
     * ({@code off}, the default, or {@code on}), and for DynamoDB {@code AGENT_TOOLS_HABIT_TABLE},
     * {@code AGENT_TOOLS_SHARED_STATE}, {@code AGENT_TOOLS_DYNAMODB_ENDPOINT} and {@code AWS_REGION} (else
     * {@code AWS_DEFAULT_REGION}, else {@value #DEFAULT_REGION}), as tracking reads the last two.
     *
     * @throws IllegalArgumentException naming the variable, for a bad value
     */
    public static HabitSettings fromEnvironment(Map<String, String> env) {
        String db = env.get(DB_VARIABLE);
        Path file;
        try {
            file = db == null || db.isBlank() ? defaultFile(env) : Path.of(db.strip());
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(DB_VARIABLE + " must be a file path, got \"" + db + "\": " + e.getReason());
        }
        String user = env.get(USER_VARIABLE);
        String param = env.getOrDefault(USER_PARAM_VARIABLE, "off").strip().toLowerCase(Locale.ROOT);
        if (!param.equals("on") && !param.equals("off") && !param.isEmpty()) {
            throw new IllegalArgumentException(USER_PARAM_VARIABLE + " must be on or off, got \"" + env.get(USER_PARAM_VARIABLE) + "\"");
        }
        return new HabitSettings(file, user == null || user.isBlank() ? null : user.strip(), param.equals("on"),
                table(env));
    }

    /** The table, when {@code AGENT_TOOLS_HABIT_TABLE} is set or the shared state is in DynamoDB; null: the SQLite file. */
    private static DynamoTable table(Map<String, String> env) {
        String table = env.get(TABLE_VARIABLE);
        boolean named = table != null && !table.isBlank();
        boolean shared = "dynamodb".equals(env.getOrDefault(SHARED_STATE_VARIABLE, "").strip());
        if (!named && !shared) {
            return null;
        }
        String db = env.get(DB_VARIABLE);
        if (db != null && !db.isBlank()) {
            throw new IllegalArgumentException(DB_VARIABLE + " names a SQLite file, but the habits are kept in DynamoDB ("
                    + (named ? TABLE_VARIABLE + " is set" : SHARED_STATE_VARIABLE + "=dynamodb") + "): unset one of them");
        }
        String endpoint = env.get(ENDPOINT_VARIABLE);
        URI uri = null;
        if (endpoint != null && !endpoint.isBlank()) {
            try {
                uri = new URI(endpoint.strip());
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(ENDPOINT_VARIABLE + " must be a URL, got \"" + endpoint + "\"");
            }
            if (uri.getScheme() == null || uri.getHost() == null) {
                throw new IllegalArgumentException(ENDPOINT_VARIABLE + " must be a URL such as http://127.0.0.1:8000, got \""
                        + endpoint + "\"");
            }
        }
        String region = env.getOrDefault("AWS_REGION", env.getOrDefault("AWS_DEFAULT_REGION", DEFAULT_REGION));
        return new DynamoTable(named ? table.strip() : DEFAULT_TABLE, uri, region.strip());
    }

    /**
     * These settings for a service of many users (the HTTP service): no configured user, so that every call reaches
     * the habits of its own Google account (or, behind a trusted backend, of the {@code user_id} it names), never one
     * user's for all.
     */
    public HabitSettings forManyUsers() {
        return new HabitSettings(file, null, userParam, table, true);
    }

    private static Path defaultFile(Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("agent-tools").resolve("habits.db");
    }
}
