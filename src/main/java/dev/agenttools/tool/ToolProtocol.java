package dev.agenttools.tool;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The article's wire protocol, shared by the one-shot {@code call} and the persistent {@code serve --stdio}:
 * a request {@code {"id": ..., "command": "gmail.list-emails", "params": {...}}} gets
 * {@code {"id": ..., "status": "ok", "data": ..., "meta": {"backend": ..., "duration_ms": ...}}} or
 * {@code {"id": ..., "status": "error", "error": {"code": ..., "message": ...}}}. Every input, however broken,
 * gets an answer; nothing here throws. Thread-safe.
 */
public final class ToolProtocol {
    /** Lists every command with the JSON Schema of its params. */
    public static final String TOOLS_LIST = "tools.list";
    /**
     * One object per request, read strictly: {@code {...}{...}} on one line is an error, not the first request with
     * the second dropped, and a key given twice is an error, not "the last one wins".
     */
    private static final ObjectMapper STRICT = JsonMapper.builder(JsonFactory.builder()
                    // Deeply nested garbage must be an error answer, not a stack overflow.
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** The most code points of a request's {@code id}: recorded with the call (tracking) and echoed in its answer. */
    public static final int MAX_ID = 100;

    private final ToolRegistry registry;
    private final Map<String, String> names;
    private final InternalErrors internals;

    /** A protocol whose tools.list names each command by {@link #toolName} without a table (gmail_list-emails). */
    public ToolProtocol(ToolRegistry registry) {
        this(registry, Map.of());
    }

    /**
     * @param names the tool name a model calls each command by (gmail.list-emails: list_emails), as the MCP server
     *              names them; tools.list gives it as {@code name}, so that other adapters (the Python client's
     *              LangChain tools) keep to the same names
     */
    public ToolProtocol(ToolRegistry registry, Map<String, String> names) {
        this(registry, names, InternalErrors.SHOWN);
    }

    /** @param internals what a caller is told of an internal failure (remote callers: words and an error id) */
    public ToolProtocol(ToolRegistry registry, Map<String, String> names, InternalErrors internals) {
        this.registry = registry;
        this.names = Map.copyOf(names);
        this.internals = Objects.requireNonNull(internals, "internals");
    }

    /**
     * The name a model calls {@code command} by: its entry in {@code names}, else the command with every character
     * other than a letter, digit, _ or - as _ (model APIs refuse dots in function names).
     */
    public static String toolName(Map<String, String> names, String command) {
        return names.getOrDefault(command, command.replaceAll("[^A-Za-z0-9_-]", "_"));
    }

    /** One answer for a request: its JSON, and its error's kind when it is one (null when it is not). */
    public record Answer(ObjectNode json, ToolException.Kind error) {
        public String line() {
            return Json.write(json);
        }

        /** The exit status a one-shot process should end with: 0, or the error's. */
        public int exitStatus() {
            return error == null ? 0 : error.exitStatus();
        }

        /** The HTTP status an HTTP endpoint answers it with: 200, or the error's. */
        public int httpStatus() {
            return error == null ? 200 : error.httpStatus();
        }
    }

    /** The answer to a request received now. */
    public Answer answer(String request) {
        return answer(request, System.nanoTime());
    }

    /**
     * The answer to a request received at {@code receivedNanos} (a {@link System#nanoTime()} reading): its
     * {@code timeout_ms} counts from then.
     */
    public Answer answer(String request, long receivedNanos) {
        return answer(request, receivedNanos, null);
    }

    /**
     * The answer to a request received at {@code receivedNanos}, made with {@code accessToken} as its
     * {@code access_token} (over any the params carry; null: the params' own). For transports that carry the caller's
     * Google token beside the request, not in it (the HTTP service's header).
     */
    public Answer answer(String request, long receivedNanos, String accessToken) {
        JsonNode id = null;
        String named = null; // the command, once read
        try {
            if (request.isBlank()) {
                throw ToolException.invalidArgument("empty request; send one JSON object such as {\"command\": \"tools.list\"}");
            }
            JsonNode tree;
            try {
                tree = STRICT.readTree(request);
            } catch (MismatchedInputException e) {
                // the one mismatch a tree read has: more after the object (FAIL_ON_TRAILING_TOKENS)
                throw ToolException.invalidArgument("the request has more after its JSON object; send exactly one "
                        + "object per request (one per line for serve)");
            } catch (JsonProcessingException e) {
                throw ToolException.invalidArgument("the request is not valid JSON: " + e.getOriginalMessage()
                        + "; send one object such as {\"command\": \"tools.list\", \"params\": {}}");
            }
            if (tree == null || !tree.isObject()) {
                throw ToolException.invalidArgument("the request must be a JSON object with command and params, got "
                        + (tree == null ? "nothing" : tree.getNodeType().name().toLowerCase(Locale.ROOT)));
            }
            id = tree.get("id");
            if (id != null && !(id.isTextual() || id.isIntegralNumber() || id.isNull())) {
                JsonNode bad = id;
                id = null;
                throw ToolException.invalidArgument("id must be a string or an integer, got " + bad.getNodeType().name().toLowerCase(Locale.ROOT));
            }
            if (id != null && !id.isNull() && Params.codePoints(id.asText()) > MAX_ID) {
                int length = Params.codePoints(id.asText());
                id = null; // not echoed: the answer would carry it back
                throw ToolException.invalidArgument("id must be at most " + MAX_ID + " characters (Unicode code points), got "
                        + length);
            }
            checkFields(tree);
            JsonNode command = tree.get("command");
            if (command == null || !command.isTextual() || command.asText().isBlank()) {
                throw ToolException.invalidArgument("command is required: one of " + TOOLS_LIST + ", "
                        + String.join(", ", registry.specs().stream().map(ToolSpec::name).toList()));
            }
            JsonNode params = tree.get("params");
            if (params != null && !params.isNull() && !params.isObject()) {
                throw ToolException.invalidArgument("params must be a JSON object, got " + params.getNodeType().name().toLowerCase(Locale.ROOT));
            }
            named = command.asText();
            ObjectNode p = params == null || params.isNull() ? Json.object() : (ObjectNode) params;
            if (accessToken != null) {
                p.put("access_token", accessToken);
            }
            if (command.asText().equals(TOOLS_LIST)) {
                return ok(id, toolsList(), "registry", 0);
            }
            JsonNode agent = p.get("agent_name");
            ToolCall call = new ToolCall(command.asText(), p, agent != null && agent.isTextual() ? agent.asText() : null,
                    id == null || id.isNull() ? null : id.asText(), receivedNanos, null);
            ToolResult result = registry.call(call);
            return ok(id, result.data(), result.backend().wireName(), result.duration().toNanos() / 1e6);
        } catch (ToolException e) {
            return error(id, e.kind(), internals.message(named, e), e.retryAfterMs());
        } catch (RuntimeException | StackOverflowError e) {
            return error(id, ToolException.Kind.INTERNAL, internals.unexpected(named, e));
        }
    }

    private static void checkFields(JsonNode tree) {
        Iterator<String> names = tree.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!name.equals("id") && !name.equals("command") && !name.equals("params")) {
                throw ToolException.invalidArgument("unknown request field '" + (name.length() > 40 ? name.substring(0, 40) + "..." : name)
                        + "'; a request has id, command and params");
            }
        }
    }

    private ArrayNode toolsList() {
        ArrayNode tools = Json.MAPPER.createArrayNode();
        ObjectNode list = tools.addObject();
        list.put("command", TOOLS_LIST);
        list.put("name", toolName(names, TOOLS_LIST));
        list.put("description", "List every command with the JSON Schema of its params. A call that fails answers "
                + "{\"status\": \"error\", \"error\": {\"code\", \"message\"}}; the codes, with a one-shot call's exit status: "
                + String.join("; ", Arrays.stream(ToolException.Kind.values())
                        .map(k -> k.code() + " (" + k.exitStatus() + "): " + k.meaning()).toList()) + ".");
        list.set("params_schema", Json.object().put("type", "object").put("additionalProperties", false));
        for (ToolSpec spec : registry.specs()) {
            ObjectNode t = tools.addObject();
            t.put("command", spec.name());
            t.put("name", toolName(names, spec.name()));
            t.put("description", spec.description());
            t.set("params_schema", spec.inputSchema());
        }
        return tools;
    }

    private static Answer ok(JsonNode id, JsonNode data, String backend, double durationMs) {
        ObjectNode out = Json.object();
        if (id != null && !id.isNull()) {
            out.set("id", id);
        }
        out.put("status", "ok");
        out.set("data", data);
        out.putObject("meta").put("backend", backend).put("duration_ms", Math.round(durationMs * 1000) / 1000.0);
        return new Answer(out, null);
    }

    public static Answer error(JsonNode id, ToolException.Kind kind, String message) {
        return error(id, kind, message, null);
    }

    /** @param retryAfterMs when to try again ({@code retry_after_ms}, {@link ToolException#retryAfterMs}), or null */
    static Answer error(JsonNode id, ToolException.Kind kind, String message, Long retryAfterMs) {
        ObjectNode out = Json.object();
        if (id != null && !id.isNull()) {
            out.set("id", id);
        }
        out.put("status", "error");
        ObjectNode error = out.putObject("error").put("code", kind.code()).put("message", message);
        if (retryAfterMs != null) {
            error.put("retry_after_ms", retryAfterMs);
        }
        return new Answer(out, kind);
    }
}
