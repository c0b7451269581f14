package dev.agenttools.mcp;

import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * One input line, checked against JSON-RPC 2.0 and MCP's rules before the SDK sees it: a line the SDK would choke
 * on becomes an {@link Invalid} that the transport answers itself. Ids must be strings or 64-bit integers (MCP forbids
 * null ids; JSON-RPC discourages fractions; the SDK holds ids as {@code Long}); params, when present, must be an object (MCP has no positional params).
 */
sealed interface Inbound {
    int PARSE_ERROR = -32700;
    int INVALID_REQUEST = -32600;
    int METHOD_NOT_FOUND = -32601;
    int INVALID_PARAMS = -32602;
    int INTERNAL_ERROR = -32603;

    /** An empty or all-blank line: not a message, not answered. */
    record Blank() implements Inbound {
    }

    /** A line to answer with an error; {@code id} is null when the line had no usable id. */
    record Invalid(JsonNode id, int code, String message) implements Inbound {
    }

    /** A request: answered exactly once. {@code params} is null when absent. */
    record Request(JsonNode id, String method, ObjectNode params) implements Inbound {
    }

    /** A notification (no id): never answered. */
    record Notification(String method, ObjectNode params) implements Inbound {
    }

    /** A client's answer to a server request (an id, {@code result} or {@code error}, no method): never answered. */
    record Response(ObjectNode message) implements Inbound {
    }

    static Inbound of(byte[] line, JsonMapper mapper) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(line)).toString();
        } catch (CharacterCodingException e) {
            return new Invalid(null, PARSE_ERROR, "parse error: the line is not valid UTF-8");
        }
        if (text.isBlank()) {
            return new Blank();
        }
        JsonNode node;
        try {
            node = mapper.readTree(text); // Jackson 3 rejects trailing content and nesting over its depth limit
        } catch (StreamConstraintsException e) {
            return new Invalid(null, PARSE_ERROR, "parse error: the JSON is nested deeper than "
                    + StreamReadConstraints.DEFAULT_MAX_DEPTH + " levels");
        } catch (MismatchedInputException e) {
            return new Invalid(null, PARSE_ERROR, "parse error: the line holds more than one JSON value");
        } catch (JacksonException e) {
            return new Invalid(null, PARSE_ERROR, "parse error: the line is not one JSON value"
                    + (e.getOriginalMessage() == null ? "" : " (" + firstLine(e.getOriginalMessage()) + ")"));
        }
        if (node.isArray()) {
            return new Invalid(null, INVALID_REQUEST, "invalid request: batches (JSON arrays) are not supported; send one object per line");
        }
        if (!(node instanceof ObjectNode message)) {
            return new Invalid(null, INVALID_REQUEST, "invalid request: a message must be a JSON object, got " + node.getNodeType());
        }
        JsonNode id = message.get("id");
        if (id != null && !(id.isString() || id.isIntegralNumber())) {
            return new Invalid(null, INVALID_REQUEST, "invalid request: id must be a string or an integer, got " + id.getNodeType());
        }
        if (id != null && id.isIntegralNumber() && !id.canConvertToLong()) { // the SDK keeps ids as Integer or Long
            return new Invalid(null, INVALID_REQUEST, "invalid request: an integer id must fit in 64 bits, got " + id);
        }
        JsonNode method = message.get("method");
        if (method == null && id != null && (message.has("result") || message.has("error"))) {
            return new Response(message);
        }
        if (!"2.0".equals(message.path("jsonrpc").asString(null))) {
            return new Invalid(id, INVALID_REQUEST, "invalid request: jsonrpc must be \"2.0\"");
        }
        if (method == null || !method.isString()) {
            return new Invalid(id, INVALID_REQUEST, "invalid request: method must be a string");
        }
        JsonNode params = message.get("params");
        if (params != null && !params.isObject()) {
            if (id == null) {
                return new Invalid(null, INVALID_REQUEST, "invalid request: params must be an object, got " + params.getNodeType());
            }
            return new Invalid(id, INVALID_PARAMS, "invalid params: params must be an object, got " + params.getNodeType());
        }
        ObjectNode p = (ObjectNode) params;
        return id == null ? new Notification(method.asString(), p) : new Request(id, method.asString(), p);
    }

    private static String firstLine(String message) {
        int end = message.indexOf('\n');
        String line = end < 0 ? message : message.substring(0, end);
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
