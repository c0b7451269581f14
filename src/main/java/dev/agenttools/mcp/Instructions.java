package dev.agenttools.mcp;

import dev.agenttools.tool.ToolSpec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The {@code instructions} an MCP server sends in its {@code initialize} answer, made from the registry's own tool
 * specs, so that they name every tool the server serves (they once named three Gmail tools while seven were served)
 * and cannot fall behind when a tool family is added. Tools are grouped by family, the registry command's prefix
 * ({@code gmail.list-emails} is Gmail's), each with the first sentence of its description.
 */
final class Instructions {
    /** A tool's summary is cut here: instructions are read by the model on every session, so they stay short. */
    static final int MAX_SUMMARY_CHARS = 160;

    private Instructions() {
    }

    /**
     * @param specs    the registry's tools, in its order
     * @param mcpName  the MCP tool name of a registry command
     */
    static String of(List<ToolSpec> specs, Function<String, String> mcpName) {
        Map<String, StringBuilder> families = new LinkedHashMap<>();
        for (ToolSpec spec : specs) {
            StringBuilder family = families.computeIfAbsent(family(spec.name()), name -> new StringBuilder(name).append(':'));
            family.append(family.charAt(family.length() - 1) == ':' ? " " : "; ")
                    .append(mcpName.apply(spec.name())).append(" (").append(summary(spec.description())).append(')');
        }
        StringBuilder text = new StringBuilder("agent-tools serves ").append(specs.size())
                .append(specs.size() == 1 ? " tool" : " tools").append(" on the user's account.");
        families.values().forEach(family -> text.append(' ').append(family).append('.'));
        text.append(" Every tool takes timeout_ms (the whole call's deadline) and agent_name (who calls, for statistics);"
                + " a failure's text starts with its error code (invalid_argument, not_found, unauthenticated, permission_denied,"
                + " rate_limited, upstream, deadline, internal).");
        return text.toString();
    }

    /** {@code gmail.list-emails} → {@code Gmail}; a command without a prefix is its own family. */
    private static String family(String command) {
        int dot = command.indexOf('.');
        String prefix = dot > 0 ? command.substring(0, dot) : command;
        return prefix.substring(0, 1).toUpperCase(Locale.ROOT) + prefix.substring(1);
    }

    /** The description's first sentence (up to ". " or ": "), cut at {@link #MAX_SUMMARY_CHARS}. */
    private static String summary(String description) {
        int end = description.length();
        for (String stop : List.of(". ", ": ")) {
            int at = description.indexOf(stop);
            if (at > 0 && at < end) {
                end = at;
            }
        }
        String first = description.substring(0, end).strip();
        if (first.endsWith(".")) {
            first = first.substring(0, first.length() - 1);
        }
        return first.length() <= MAX_SUMMARY_CHARS ? first : first.substring(0, MAX_SUMMARY_CHARS - 1).strip() + "…";
    }
}
