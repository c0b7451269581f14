package dev.agenttools;

import dev.agenttools.auth.AuthSettings;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.google.AccessToken;
import dev.agenttools.google.GoogleSettings;
import dev.agenttools.google.RootUrl;
import dev.agenttools.habit.HabitSettings;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.tool.Diagnostics;
import dev.agenttools.tracking.TrackingSettings;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Every setting of a process, read once at its start and typed: the configuration file {@code config.properties}
 * (keys named like the environment variables, e.g. {@code AGENT_TOOLS_GMAIL_ROOT_URL=...}) in
 * {@code $AGENT_TOOLS_CONFIG}, else {@code $XDG_CONFIG_HOME/agent-tools/}, else {@code ~/.config/agent-tools/},
 * overlaid by the environment (which wins). Every mode ({@code call}, {@code serve}, {@code mcp}, {@code bench},
 * {@code auth}, {@code stats}) builds from one. A bad value fails here, naming the setting and what it may be.
 *
 * @param google   what Gmail and Calendar share: the CA certificate to trust, the token for calls that bring none
 * @param gmail    Gmail's root URL, limits and batch size
 * @param calendar Calendar's root URL and limits
 * @param mailIndex the local mail index
 * @param auth     where the stored sign-in lives
 * @param tracking where call records go
 * @param habit    where the Habit tools keep habits, and whose they are
 * @param values   the {@code AGENT_TOOLS_*} settings as given but the token, for the commands' own (serve's limits):
 *                 read them with {@link #wholeNumber} and {@link #value}. Nothing else of the environment is kept
 *                 (an AWS secret, say), and the token only in {@code google}, whose text never shows it
 */
public record Settings(GoogleSettings google, GmailSettings gmail, CalendarSettings calendar, CacheSettings mailIndex,
                       AuthSettings auth, TrackingSettings tracking, HabitSettings habit, Map<String, String> values) {
    /** The config files whose unknown keys this process has warned about already. */
    private static final Set<Path> WARNED = ConcurrentHashMap.newKeySet();
    /** The environment variable holding the token for calls that bring none. */
    private static final String ACCESS_TOKEN = "AGENT_TOOLS_ACCESS_TOKEN";

    public Settings {
        Map<String, String> kept = new HashMap<>();
        values.forEach((k, v) -> {
            if (k.startsWith("AGENT_TOOLS_") && !k.equals(ACCESS_TOKEN)) {
                kept.put(k, v);
            }
        });
        values = Map.copyOf(kept);
    }

    /** The configuration file overlaid by this process's environment. */
    public static Settings load() {
        return from(read(System.getenv()));
    }

    /**
     * Settings from {@code values} (environment variable names to values), nothing read from a file.
     *
     * @throws IllegalArgumentException for a bad value (the message names the setting)
     */
    public static Settings from(Map<String, String> values) {
        return new Settings(google(values), gmail(values), calendar(values), CacheSettings.fromEnvironment(values),
                AuthSettings.from(values, configHome(values)), TrackingSettings.fromEnvironment(values),
                HabitSettings.fromEnvironment(values), values);
    }

    /**
     * The config file that {@code env} points at (or the default one), overlaid by {@code env}. A key of the file that
     * no setting is (a misspelling, most often) is warned about on stderr, once a process, with the nearest name.
     */
    public static Map<String, String> read(Map<String, String> env) {
        return read(env, Diagnostics::line);
    }

    /** {@link #read(Map)}, its warnings given to {@code warn}. */
    static Map<String, String> read(Map<String, String> env, Consumer<String> warn) {
        Map<String, String> merged = new HashMap<>();
        Path file = file(env);
        if (Files.isRegularFile(file)) {
            Properties p = new Properties();
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the config file " + file + ": " + e.getMessage(), e);
            }
            p.stringPropertyNames().forEach(k -> merged.put(k, p.getProperty(k).strip()));
            if (WARNED.add(file.toAbsolutePath().normalize())) { // once a process, though several commands read it
                KnownSettings.warnings(p.stringPropertyNames()).forEach(warn);
            }
        }
        merged.putAll(env);
        return merged;
    }

    /** Where the config file is looked for. */
    public static Path file(Map<String, String> env) {
        if (env.containsKey("AGENT_TOOLS_CONFIG")) {
            return Path.of(env.get("AGENT_TOOLS_CONFIG"));
        }
        return configHome(env).resolve("config.properties");
    }

    /** $XDG_CONFIG_HOME/agent-tools, else ~/.config/agent-tools: the config file and the stored sign-in live here. */
    public static Path configHome(Map<String, String> env) {
        String xdg = env.get("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return base.resolve("agent-tools");
    }

    @Override
    public String toString() {
        // not the values: they may hold a token
        return "Settings[google=" + google + ", gmail=" + gmail + ", calendar=" + calendar + ", mailIndex=" + mailIndex
                + ", auth=" + auth + ", tracking=" + tracking + ", habit=" + habit + "]";
    }

    /** The same settings with {@code google} in place of theirs. */
    public Settings withGoogle(GoogleSettings settings) {
        return new Settings(settings, gmail, calendar, mailIndex, auth, tracking, habit, values);
    }

    /** A setting as given, or null. */
    public String value(String name) {
        return values.get(name);
    }

    /**
     * A whole-number setting, {@code fallback} when it is not set.
     *
     * @throws IllegalArgumentException naming the setting and what it may be, when it is not a number in range
     */
    public int wholeNumber(String name, int fallback, int min, int max) {
        return wholeNumber(values, name, fallback, min, max);
    }

    /** {@code AGENT_TOOLS_CA_CERT} and {@code AGENT_TOOLS_ACCESS_TOKEN}. */
    private static GoogleSettings google(Map<String, String> env) {
        String token = env.get(ACCESS_TOKEN);
        String flaw = token == null || token.isBlank() ? null : AccessToken.flaw(token);
        if (flaw != null) {
            throw new IllegalArgumentException("AGENT_TOOLS_ACCESS_TOKEN is not an OAuth access token: it " + flaw
                    + " (the value is not shown); set it to a token alone, without quotes or a line break, or unset it to use the stored sign-in");
        }
        return new GoogleSettings(env.containsKey("AGENT_TOOLS_CA_CERT") ? Path.of(env.get("AGENT_TOOLS_CA_CERT")) : null, token);
    }

    /** {@code AGENT_TOOLS_GMAIL_ROOT_URL}, {@code _QUOTA}, {@code _MAX_IN_FLIGHT} and {@code _BATCH_SIZE}. */
    private static GmailSettings gmail(Map<String, String> env) {
        String root = env.getOrDefault("AGENT_TOOLS_GMAIL_ROOT_URL", GmailSettings.GOOGLE_ROOT_URL);
        String urlFlaw = RootUrl.flaw(root, GmailSettings.GOOGLE_ROOT_URL);
        if (urlFlaw != null) {
            throw new IllegalArgumentException("AGENT_TOOLS_GMAIL_ROOT_URL " + urlFlaw + "; unset it for Google's Gmail");
        }
        GmailSettings d = GmailSettings.forRoot(root);
        int quota = wholeNumber(env, "AGENT_TOOLS_GMAIL_QUOTA", d.quotaPerMinute(), 1, Integer.MAX_VALUE);
        return new GmailSettings(d.rootUrl(), quota, Math.max(1, quota / 60),
                wholeNumber(env, "AGENT_TOOLS_GMAIL_MAX_IN_FLIGHT", d.maxInFlight(), 1, Integer.MAX_VALUE),
                wholeNumber(env, "AGENT_TOOLS_GMAIL_BATCH_SIZE", d.batchSize(), 1, GmailSettings.MAX_BATCH_SIZE), d.maxBodyChars());
    }

    /** {@code AGENT_TOOLS_CALENDAR_ROOT_URL} (default Google's) and {@code AGENT_TOOLS_CALENDAR_QUOTA}. */
    private static CalendarSettings calendar(Map<String, String> env) {
        String root = env.getOrDefault("AGENT_TOOLS_CALENDAR_ROOT_URL", CalendarSettings.GOOGLE_ROOT_URL);
        CalendarSettings d;
        try {
            d = CalendarSettings.forRoot(root);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("AGENT_TOOLS_CALENDAR_ROOT_URL: " + e.getMessage() + "; unset it for Google's Calendar");
        }
        int q = wholeNumber(env, "AGENT_TOOLS_CALENDAR_QUOTA", d.quotaPerMinute(), 1, Integer.MAX_VALUE);
        return q == d.quotaPerMinute() ? d : d.withPacing(q, Math.min(q, CalendarSettings.DEFAULT_BURST), d.maxInFlight());
    }

    private static int wholeNumber(Map<String, String> env, String name, int fallback, int min, int max) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        String allowed = max == Integer.MAX_VALUE ? "a whole number from " + min + " up" : "a whole number " + min + ".." + max;
        int n;
        try {
            n = Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be " + allowed + ", got \"" + v + "\"");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(name + " must be " + allowed + ", got " + n);
        }
        return n;
    }
}
