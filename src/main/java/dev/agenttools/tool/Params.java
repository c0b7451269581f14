package dev.agenttools.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

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
    /** The call-level param that names who is calling: recorded with every call (tracking), so bounded. */
    public static final String AGENT_NAME = "agent_name";
    /** The most Unicode code points an {@value #AGENT_NAME} has: a name for statistics, not a payload. */
    public static final int MAX_AGENT_NAME = 100;
    /** Names of params whose values are secrets (credentials of any tool): never echoed in an error. */
    private static final Pattern SECRET =
            Pattern.compile("(?i).*(access_token|refresh_token|secret|password|api_key).*");
    private final String tool;
    private final ObjectNode params;

    private Params(String tool, ObjectNode params) {
        this.tool = tool;
        this.params = params;
    }

    /**
     * Checks that every param is one the tool knows (its own or a call-level one). An unknown one is refused naming it
     * and the tool's own params, those a model fills in: not the call-level settings ({@link #CALL_LEVEL}) nor a
     * credential, which the program around the model sets (a LangChain toolkit hides them from the model).
     */
    public static Params of(ToolCall call, Set<String> known) {
        Iterator<String> names = call.params().fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name) && !CALL_LEVEL.contains(name)) {
                List<String> allowed = new ArrayList<>(known.stream()
                        .filter(k -> !CALL_LEVEL.contains(k) && !SECRET.matcher(k).matches()).toList());
                allowed.sort(null);
                throw ToolException.invalidArgument(call.tool() + ": unknown param '" + clip(name) + "'; "
                        + (allowed.isEmpty() ? "it takes none" : "its params: " + String.join(", ", allowed)));
            }
        }
        return new Params(call.tool(), call.params());
    }

    /**
     * The call's {@value #AGENT_NAME} as {@link #name} checks it (1..{@value #MAX_AGENT_NAME} code points, one line,
     * no control, format, bidi or zero-width character), or null when the params have none (or a blank one).
     *
     * @throws ToolException INVALID_ARGUMENT naming the field and the limit
     */
    public static String agentName(ObjectNode params) {
        JsonNode v = params.get(AGENT_NAME);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw ToolException.invalidArgument(AGENT_NAME + " must be a string, got " + describe(AGENT_NAME, v));
        }
        if (v.asText().isBlank()) {
            return null; // as if not given: the call is recorded as "unknown"
        }
        return name(AGENT_NAME, v.asText(), MAX_AGENT_NAME);
    }

    /** The length of {@code s} in Unicode code points, as JSON Schema's {@code maxLength} counts it (an emoji is one). */
    public static int codePoints(String s) {
        return s.codePointCount(0, s.length());
    }

    /**
     * {@code value} as a name to store and compare: stripped, in Unicode NFC (so that "é" typed two ways is one name),
     * 1..{@code max} code points, and plain text: no control or format character (bidirectional controls such as
     * U+202E and zero-width characters such as U+200B make a name look like another or read backwards), no line or
     * paragraph separator, no lone surrogate.
     *
     * @throws ToolException INVALID_ARGUMENT naming {@code field}, what it holds, and what is allowed
     */
    public static String name(String field, String value, int max) {
        String s = Normalizer.normalize(value.strip(), Normalizer.Form.NFC);
        int length = codePoints(s);
        if (length == 0 || length > max) {
            throw ToolException.invalidArgument(field + " must be 1.." + max + " characters (Unicode code points), got " + length);
        }
        refuseHidden(field, s, false);
        return s;
    }

    /**
     * {@code value} as free text to store (a note): in Unicode NFC, at most {@code max} code points, tabs and line breaks
     * allowed but no other control or format character (see {@link #name}).
     *
     * @throws ToolException INVALID_ARGUMENT naming {@code field}, what it holds, and what is allowed
     */
    public static String text(String field, String value, int max) {
        String s = Normalizer.normalize(value, Normalizer.Form.NFC);
        int length = codePoints(s);
        if (length > max) {
            throw ToolException.invalidArgument(field + " must be at most " + max + " characters (Unicode code points), got " + length);
        }
        refuseHidden(field, s, true);
        return s;
    }

    private static void refuseHidden(String field, String s, boolean lines) {
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (lines && (cp == '\n' || cp == '\t' || cp == '\r')) {
                continue;
            }
            String what = hidden(cp);
            if (what != null) {
                throw ToolException.invalidArgument(field + " must be " + (lines ? "plain text" : "one line of plain text")
                        + ", without control, format, bidirectional or zero-width characters; it has "
                        + String.format(Locale.ROOT, "U+%04X", cp) + " (" + what + ")");
            }
        }
    }

    /** What kind of invisible or misleading character {@code cp} is, or null for one a name may hold. */
    private static String hidden(int cp) {
        if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C) {
            return "a bidirectional text control";
        }
        if ((cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || cp == 0xFEFF) {
            return "a zero-width character";
        }
        return switch (Character.getType(cp)) {
            case Character.CONTROL -> "a control character";
            case Character.FORMAT -> "a format character";
            case Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> "a line break";
            case Character.SURROGATE -> "half of a character (a lone surrogate)";
            default -> null;
        };
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
            return "a " + v.getNodeType().name().toLowerCase(Locale.ROOT);
        }
        String text = v.isTextual() ? "\"" + clip(v.asText()) + "\"" : clip(v.toString());
        return text + " (" + v.getNodeType().name().toLowerCase(Locale.ROOT) + ")";
    }

    /** {@code s}, or its first 60 code points and "..." (never half of a character). */
    static String clip(String s) {
        return codePoints(s) > 60 ? s.substring(0, s.offsetByCodePoints(0, 60)) + "..." : s;
    }
}
