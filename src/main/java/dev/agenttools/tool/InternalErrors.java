package dev.agenttools.tool;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * What a caller is told of a failure inside agent-tools ({@link ToolException.Kind#INTERNAL}, or a fault that is not a
 * {@link ToolException} at all).
 * <ul>
 * <li>{@link #SHOWN}: the whole message, for the transports on the user's own machine ({@code call}, {@code serve},
 * {@code mcp} over stdio, the resident server): the caller is the user, the path of their own habit store and SQLite's
 * words are what they need to fix it, and no operator's log exists for them to read instead.</li>
 * <li>{@link #logged}: for remote callers (the HTTP service, both endpoints): only what failed, in words
 * ({@link ToolException#words()}), and an error id; the detail (file paths, class names, a driver's text) goes to the
 * server's log under that id, where the operator finds it. A stranger learns nothing of the server's files or
 * code.</li>
 * </ul>
 * Immutable; thread-safe (the log sink must be).
 */
public final class InternalErrors {
    /** Every message as it is: the user's own machine. */
    public static final InternalErrors SHOWN = new InternalErrors(null);

    private final Consumer<String> log;

    private InternalErrors(Consumer<String> log) {
        this.log = log;
    }

    /**
     * Internal failures told in words with an error id; their detail written to {@code log} as one line starting with
     * {@code internal error <id>}.
     */
    public static InternalErrors logged(Consumer<String> log) {
        return new InternalErrors(Objects.requireNonNull(log, "log"));
    }

    /** The message a caller of {@code command} gets for {@code e} (the whole message unless internal and logged). */
    public String message(String command, ToolException e) {
        if (log == null || e.kind() != ToolException.Kind.INTERNAL) {
            return e.getMessage();
        }
        String words = e.words() != null ? e.words() : (command == null ? "the call" : command) + " failed inside agent-tools";
        return logged(words, (command == null ? "" : "in " + command + ": ") + e.getMessage(), e.getCause());
    }

    /** The message for a fault that is not a ToolException (a bug): its class alone when shown, else words and an id. */
    public String unexpected(String command, Throwable e) {
        if (log == null) {
            return "internal error: " + e.getClass().getSimpleName();
        }
        return logged((command == null ? "the request" : command) + " failed inside agent-tools", (command == null ? "" : "in " + command + ": ") + e, e);
    }

    /**
     * Writes {@code detail} (and the stack of {@code cause}, when it is a bug rather than a failure already told in
     * the detail) to the log under a new error id, and returns {@code words} with that id for the caller. When shown,
     * {@code detail} itself.
     */
    public String logged(String words, String detail, Throwable cause) {
        if (log == null) {
            return detail;
        }
        String id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        StringBuilder line = new StringBuilder("internal error ").append(id).append(": ").append(detail.replace('\n', ' '));
        if (cause != null && !(cause instanceof ToolException) && isBug(cause)) {
            StringWriter trace = new StringWriter();
            cause.printStackTrace(new PrintWriter(trace));
            line.append('\n').append(trace.toString().stripTrailing());
        }
        log.accept(line.toString());
        return words + " (error id " + id + "; the server's log has the detail)";
    }

    /** A fault of the code (its stack helps), as against an I/O or store failure whose message says it all. */
    private static boolean isBug(Throwable t) {
        return t instanceof RuntimeException && !(t instanceof UncheckedIOException) || t instanceof Error;
    }
}
