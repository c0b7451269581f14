package dev.agenttools.tool;

/**
 * The one place library code speaks to whoever runs the process: a line on stderr. stdout is the protocol's (call,
 * serve, mcp over stdio answer there), so nothing else may write to it; and a line is written whole, so that two
 * threads' warnings do not interleave. What a line may carry is the caller's duty: never a token, a key or a message's
 * text (see README's ground rules).
 */
public final class Diagnostics {
    private static final String PROCESS = "agent-tools: ";

    private Diagnostics() {
    }

    /** "agent-tools: " and {@code text}: a warning of the tools' own. */
    public static void warn(String text) {
        line(PROCESS + text);
    }

    /** {@code text} as it is (it names its own source, as the emulator's lines do). */
    public static void line(String text) {
        System.err.println(text);
    }

    /** {@code text}, then {@code failure}'s stack trace: a fault of ours, for whoever reads the log to report. */
    public static void fault(String text, Throwable failure) {
        synchronized (System.err) {
            System.err.println(text);
            failure.printStackTrace(System.err);
        }
    }
}
