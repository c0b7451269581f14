package dev.agenttools;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The one configuration file plus the environment, read once: {@code config.properties} (keys named like the
 * environment variables, e.g. {@code AGENT_TOOLS_GMAIL_ROOT_URL=...}) in {@code $AGENT_TOOLS_CONFIG}, else
 * {@code $XDG_CONFIG_HOME/agent-tools/}, else {@code ~/.config/agent-tools/}; environment variables win.
 */
public final class Config {
    private Config() {
    }

    /** File settings overlaid by the environment. */
    public static Map<String, String> load() {
        return load(System.getenv());
    }

    /** The config file that {@code env} points at (or the default one), overlaid by {@code env}. */
    public static Map<String, String> load(Map<String, String> env) {
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
}
