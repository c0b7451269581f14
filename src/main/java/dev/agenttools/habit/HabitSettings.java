package dev.agenttools.habit;

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
 * @param file        the SQLite file: {@code AGENT_TOOLS_HABIT_DB}, else {@code $XDG_DATA_HOME/agent-tools/habits.db},
 *                    else {@code ~/.local/share/agent-tools/habits.db}
 * @param defaultUser whose habits a call that names no {@code user_id} reaches; null: the Google account of its
 *                    credential
 * @param userParam   whether a call's {@code user_id} is honoured (a trusted backend names the user); when not, a call
 *                    that sends one is refused
 */
public record HabitSettings(Path file, String defaultUser, boolean userParam) {
    static final String DB_VARIABLE = "AGENT_TOOLS_HABIT_DB";
    static final String USER_VARIABLE = "AGENT_TOOLS_HABIT_USER";
    static final String USER_PARAM_VARIABLE = "AGENT_TOOLS_HABIT_USER_PARAM";
    static final String DEFAULT_USER = "local";
    /** A user id is an account's address or a backend's id: past this it is not one. */
    static final int MAX_USER_CHARS = 320;

    public HabitSettings {
        Objects.requireNonNull(file, "file");
        if (defaultUser != null && (defaultUser.isBlank() || defaultUser.length() > MAX_USER_CHARS)) {
            throw new IllegalArgumentException(USER_VARIABLE + " must be 1.." + MAX_USER_CHARS + " characters, got \""
                    + defaultUser + "\"");
        }
    }

    /** The tools for the one user {@value #DEFAULT_USER}, their habits in {@code file} (tests, programs of their own). */
    public static HabitSettings at(Path file) {
        return new HabitSettings(file, DEFAULT_USER, false);
    }

    /**
     * Reads {@code AGENT_TOOLS_HABIT_DB}, {@code AGENT_TOOLS_HABIT_USER} and {@code AGENT_TOOLS_HABIT_USER_PARAM}
     * ({@code off}, the default, or {@code on}).
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
        return new HabitSettings(file, user == null || user.isBlank() ? null : user.strip(), param.equals("on"));
    }

    /**
     * These settings for a service of many users (the HTTP service): no configured user, so that every call reaches
     * the habits of its own Google account (or, behind a trusted backend, of the {@code user_id} it names), never one
     * user's for all.
     */
    public HabitSettings forManyUsers() {
        return new HabitSettings(file, null, userParam);
    }

    private static Path defaultFile(Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("agent-tools").resolve("habits.db");
    }
}
