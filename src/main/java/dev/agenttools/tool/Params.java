package dev.agenttools.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Reads a tool's params once, at the edge, and fails with a message that names the field, its bad value and
 * what is allowed: {@code max_results must be 1..500, got -5}. Never echoes a credential ({@code access_token} and the like).
 */
public final class Params {
    /**
     * Params of the call rather than of the tool, accepted by every tool and read by the registry and the transports:
     * who is calling, and the call's deadline.
     */
    public static final Set<String> CALL_LEVEL = Set.of("agent_name", CallTimeouts.PARAM);
    /** Names of params whose values are secrets (credentials of any tool): never echoed in an error. */
    private static final java.util.regex.Pattern SECRET =
            java.util.regex.Pattern.compile("(?i).*(access_token|refresh_token|secret|password|api_key).*");
    private final String tool;
    private final ObjectNode params;

    private Params(String tool, ObjectNode params) {
        this.tool = tool;
        this.params = params;
    }

    /** Checks that every param is one the tool knows (its own or a call-level one). */
    public static Params of(ToolCall call, Set<String> known) {
        Iterator<String> names = call.params().fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name) && !CALL_LEVEL.contains(name)) {
                List<String> allowed = new java.util.ArrayList<>(known);
                allowed.addAll(CALL_LEVEL);
                allowed.sort(null);
                throw ToolException.invalidArgument(call.tool() + ": unknown param '" + clip(name) + "'; allowed: "
                        + String.join(", ", allowed));
            }
        }
        return new Params(call.tool(), call.params());
    }

    public String string(String name, String defaultValue) {
        JsonNode v = params.get(name);
        if (v == null || v.isNull()) {
            return defaultValue;
        }
        if (!v.isTextual()) {
            throw ToolException.invalidArgument(name + " must be a string, got " + describe(name, v));
        }
        return v.asText();
    }

    public String requiredString(String name) {
        String v = string(name, null);
        if (v == null || v.isBlank()) {
            throw ToolException.invalidArgument(tool + ": " + name + " is required (a non-empty string)");
        }
        return v;
    }

    public int integer(String name, int min, int max, int defaultValue) {
        JsonNode v = params.get(name);
        if (v == null || v.isNull()) {
            return defaultValue;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min || v.asInt() > max) {
            throw ToolException.invalidArgument(name + " must be " + min + ".." + max + ", got " + describe(name, v));
        }
        return v.asInt();
    }

    public boolean bool(String name, boolean defaultValue) {
        JsonNode v = params.get(name);
        if (v == null || v.isNull()) {
            return defaultValue;
        }
        if (!v.isBoolean()) {
            throw ToolException.invalidArgument(name + " must be true or false, got " + describe(name, v));
        }
        return v.asBoolean();
    }

    public String choice(String name, List<String> allowed, String defaultValue) {
        String v = string(name, defaultValue);
        if (!allowed.contains(v)) {
            throw ToolException.invalidArgument(name + " must be one of " + String.join(", ", allowed) + ", got \""
                    + clip(v) + "\"");
        }
        return v;
    }

    static String describe(String name, JsonNode v) {
        if (SECRET.matcher(name).matches()) {
            return "a " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        }
        String text = v.isTextual() ? "\"" + clip(v.asText()) + "\"" : clip(v.toString());
        return text + " (" + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + ")";
    }

    private static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
