package dev.agenttools.mailindex;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The local mail index list_emails and search_emails keep ({@link MailIndex}), read once and sealed.
 *
 * @param mode        {@link Mode#AUTO} (use and keep it up to date), or {@link Mode#OFF} (never read nor write it)
 * @param file        where it is: {@code AGENT_TOOLS_CACHE_DB}, else {@code $XDG_DATA_HOME/agent-tools/mail-index.db},
 *                    else {@code ~/.local/share/agent-tools/mail-index.db}
 * @param maxMessages the most messages kept per account (the oldest go first)
 */
public record CacheSettings(Mode mode, Path file, int maxMessages) {
    /** {@code AGENT_TOOLS_CACHE}: {@code auto} or {@code off}. */
    public enum Mode {
        AUTO, OFF;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final int DEFAULT_MAX_MESSAGES = 20_000;
    /** No index: what tools built without settings (an emulator's, a benchmark's) get. */
    public static final CacheSettings OFF = new CacheSettings(Mode.OFF, null, DEFAULT_MAX_MESSAGES);

    public CacheSettings {
        Objects.requireNonNull(mode, "mode");
        if (mode == Mode.AUTO && file == null) {
            throw new IllegalArgumentException("the mail index needs a file");
        }
        if (maxMessages < 1) {
            throw new IllegalArgumentException("AGENT_TOOLS_CACHE_MAX_MESSAGES must be 1 or more, got " + maxMessages);
        }
    }

    boolean enabled() {
        return mode == Mode.AUTO;
    }

    /** From the environment (and the config file), as {@link dev.agenttools.Settings} merged them. */
    public static CacheSettings fromEnvironment(Map<String, String> env) {
        String mode = env.getOrDefault("AGENT_TOOLS_CACHE", "auto").strip().toLowerCase(Locale.ROOT);
        if (mode.isEmpty()) {
            mode = "auto";
        }
        String db = env.get("AGENT_TOOLS_CACHE_DB");
        Path file = db != null && !db.isBlank() ? Path.of(db) : defaultFile(env);
        String max = env.get("AGENT_TOOLS_CACHE_MAX_MESSAGES");
        int maxMessages;
        try {
            maxMessages = max == null || max.isBlank() ? DEFAULT_MAX_MESSAGES : Integer.parseInt(max.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("AGENT_TOOLS_CACHE_MAX_MESSAGES must be a whole number, got \"" + max + "\"");
        }
        if (!mode.equals("auto") && !mode.equals("off")) {
            throw new IllegalArgumentException("AGENT_TOOLS_CACHE must be auto or off, got " + mode);
        }
        return new CacheSettings(mode.equals("auto") ? Mode.AUTO : Mode.OFF, file, maxMessages);
    }

    private static Path defaultFile(Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("agent-tools").resolve("mail-index.db");
    }
}
