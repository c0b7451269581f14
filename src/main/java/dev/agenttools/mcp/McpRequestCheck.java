package dev.agenttools.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.agenttools.tool.Json;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.util.Locale;
import java.util.Map;

/**
 * What a request to {@code /mcp} must be before the SDK's transport reads it: a POST, an {@code Accept} of both
 * {@code application/json} and {@code text/event-stream} (MCP Streamable HTTP), a body of {@code application/json} in
 * UTF-8 of at most the body limit that arrives within the server's read timeout, one JSON-RPC 2.0 object (no batch:
 * MCP dropped batching in 2025-06-18) nested at most {@value #MAX_DEPTH} levels, and params that fit the SDK's own
 * types for the method. Checked here, not left to the SDK, because the SDK answers these refusals with its exception
 * serialized (stack trace, class and file names), without {@code jsonrpc} or {@code id}, and a wrong {@code Accept} as
 * -32601 (method not found); every refusal here is a {@link JsonRpcError} of ours. Stateless; thread-safe.
 */
final class McpRequestCheck {
    /** How deep a request's JSON may nest: tool arguments are flat objects; deeper is garbage or an attack. */
    static final int MAX_DEPTH = 64;
    static final String ACCEPT = "application/json, text/event-stream";

    private static final ObjectMapper STRICT = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build()).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** The SDK types of the params of the methods this server answers, checked before the SDK converts them. */
    private static final Map<String, Class<?>> PARAMS = Map.of(
            McpSchema.METHOD_INITIALIZE, McpSchema.InitializeRequest.class,
            McpSchema.METHOD_TOOLS_CALL, McpSchema.CallToolRequest.class,
            McpSchema.METHOD_TOOLS_LIST, McpSchema.PaginatedRequest.class);

    private final int maxBodyBytes;
    private final McpJsonMapper mapper;

    McpRequestCheck(int maxBodyBytes, McpJsonMapper mapper) {
        this.maxBodyBytes = maxBodyBytes;
        this.mapper = mapper;
    }

    /** Either the request's body (it passed: for the SDK to read again), or the JSON-RPC error it gets instead. */
    sealed interface Outcome permits Outcome.Pass, Outcome.Refuse {
        /** @param id the request's id (null: a notification) */
        record Pass(byte[] body, JsonNode id, String method) implements Outcome {
        }

        record Refuse(JsonRpcError error) implements Outcome {
        }
    }

    Outcome check(HttpServletRequest request) {
        JsonRpcError refused = headers(request);
        if (refused != null) {
            return new Outcome.Refuse(refused);
        }
        byte[] body;
        try {
            body = read(request);
        } catch (BoundedRequestBody.TooLarge e) {
            return refuse(413, JsonRpcError.INVALID_REQUEST, "the request body is over " + maxBodyBytes + " bytes");
        } catch (IOException e) {
            return BoundedRequestBody.timedOut(e)
                    ? refuse(408, JsonRpcError.INVALID_REQUEST, "the request body did not arrive within the server's read timeout")
                    : refuse(400, JsonRpcError.INVALID_REQUEST, "the request body could not be read whole (a bad chunk, "
                    + "or the connection ended before it did)");
        }
        String text;
        try {
            text = BoundedRequestBody.utf8(body);
        } catch (CharacterCodingException e) {
            return refuse(400, JsonRpcError.PARSE_ERROR, "the request body is not UTF-8");
        }
        return message(text, body);
    }

    private static Outcome.Refuse refuse(int status, int code, String message) {
        return new Outcome.Refuse(JsonRpcError.of(status, code, message));
    }

    /** The method and headers, before a byte of the body is read (null: they pass). */
    private static JsonRpcError headers(HttpServletRequest request) {
        if (!"POST".equals(request.getMethod())) {
            return JsonRpcError.of(405, JsonRpcError.INVALID_REQUEST, "POST JSON-RPC messages to /mcp: this server is "
                    + "stateless (no GET stream of server messages, no session to DELETE)");
        }
        if (!accepts(request.getHeader("Accept"))) {
            return JsonRpcError.of(406, JsonRpcError.INVALID_REQUEST, "send Accept: " + ACCEPT
                    + " (MCP Streamable HTTP asks a client to take both; this server answers application/json)");
        }
        String type = request.getHeader("Content-Type");
        if (!isJsonInUtf8(type)) {
            return JsonRpcError.of(415, JsonRpcError.INVALID_REQUEST, "send the JSON-RPC message with Content-Type: "
                    + "application/json (UTF-8)" + (type == null ? "; the request had none" : ""));
        }
        return null;
    }

    /** Both media types named (as the SDK's transport asks, so that a request passed here passes there). */
    private static boolean accepts(String accept) {
        if (accept == null) {
            return false;
        }
        boolean json = false;
        boolean stream = false;
        for (String range : accept.split(",")) {
            String type = range.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
            json |= type.equals("application/json");
            stream |= type.equals("text/event-stream");
        }
        return json && stream;
    }

    private static boolean isJsonInUtf8(String contentType) {
        if (contentType == null) {
            return false;
        }
        String[] parts = contentType.split(";");
        if (!parts[0].strip().equalsIgnoreCase("application/json")) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            String[] param = parts[i].split("=", 2);
            if (param[0].strip().equalsIgnoreCase("charset")
                    && !(param.length == 2 && param[1].strip().replace("\"", "").equalsIgnoreCase("utf-8"))) {
                return false; // JSON is UTF-8 (RFC 8259 §8.1); a reader would decode another charset into other text
            }
        }
        return true;
    }

    private byte[] read(HttpServletRequest request) throws IOException {
        return BoundedRequestBody.read(request.getContentLengthLong(),
                "100-continue".equalsIgnoreCase(request.getHeader("Expect")), maxBodyBytes, request::getInputStream);
    }


    /** The JSON-RPC message. */
    private Outcome message(String text, byte[] body) {
        if (text.isBlank()) {
            return refuse(400, JsonRpcError.PARSE_ERROR, "the request body is empty; send one JSON-RPC 2.0 object");
        }
        JsonNode tree;
        try {
            tree = STRICT.readTree(text);
        } catch (StreamConstraintsException e) {
            return refuse(400, JsonRpcError.INVALID_REQUEST, "the JSON is nested deeper than " + MAX_DEPTH + " levels");
        } catch (MismatchedInputException e) {
            return refuse(400, JsonRpcError.PARSE_ERROR, "the request body has more after its JSON value; send one object");
        } catch (JsonProcessingException e) {
            String why = e.getOriginalMessage();
            if (why.startsWith("Duplicate field")) { // valid JSON (RFC 8259 §4 says SHOULD), but which value counts is unclear
                return refuse(400, JsonRpcError.INVALID_REQUEST, "a key is given twice: " + (why.length() > 80 ? why.substring(0, 80) + "..." : why));
            }
            return refuse(400, JsonRpcError.PARSE_ERROR, "the request body is not valid JSON: "
                    + (why.length() > 200 ? why.substring(0, 200) + "..." : why));
        }
        JsonRpcError refused = envelope(tree);
        return refused != null ? new Outcome.Refuse(refused)
                : new Outcome.Pass(body, tree.get("id"), tree.get("method").textValue());
    }

    /** What the JSON-RPC 2.0 envelope of {@code tree} lacks (null: nothing). */
    private JsonRpcError envelope(JsonNode tree) {
        if (tree.isArray()) {
            return JsonRpcError.of(400, JsonRpcError.INVALID_REQUEST, "a JSON array (a JSON-RPC batch) is not taken: MCP "
                    + "removed batching in 2025-06-18; send one JSON-RPC object per request");
        }
        if (!tree.isObject()) {
            return JsonRpcError.of(400, JsonRpcError.INVALID_REQUEST, "the request must be one JSON-RPC 2.0 object, got "
                    + tree.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        JsonNode id = tree.get("id");
        if (id != null && !(id.isTextual() || id.isIntegralNumber())) {
            return JsonRpcError.of(400, JsonRpcError.INVALID_REQUEST, "id must be a string or an integer, got "
                    + id.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        if (!"2.0".equals(tree.path("jsonrpc").textValue())) {
            return new JsonRpcError(400, id, JsonRpcError.INVALID_REQUEST, "jsonrpc must be \"2.0\"");
        }
        JsonNode method = tree.get("method");
        if (method == null) {
            return new JsonRpcError(400, id, JsonRpcError.INVALID_REQUEST, tree.has("result") || tree.has("error")
                    ? "this server takes requests and notifications, not responses: it sends no requests of its own"
                    : "method is required: initialize, ping, tools/list or tools/call");
        }
        if (!method.isTextual()) {
            return new JsonRpcError(400, id, JsonRpcError.INVALID_REQUEST, "method must be a string");
        }
        JsonNode params = tree.get("params");
        if (params != null && !params.isObject()) {
            return new JsonRpcError(400, id, JsonRpcError.INVALID_REQUEST, "params must be an object, got "
                    + params.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        Class<?> type = PARAMS.get(method.textValue());
        if (type != null && id != null && params == null && !method.textValue().equals(McpSchema.METHOD_TOOLS_LIST)) {
            return new JsonRpcError(200, id, JsonRpcError.INVALID_PARAMS, method.textValue() + " needs its params");
        }
        if (type != null && params != null && id != null) {
            try {
                mapper.convertValue(Json.MAPPER.convertValue(params, Map.class), type);
            } catch (RuntimeException e) {
                return new JsonRpcError(200, id, JsonRpcError.INVALID_PARAMS, "the params of " + method.textValue()
                        + " do not fit the method" + where(e) + "; see the MCP schema");
            }
        }
        return null;
    }

    /** Where in the params a conversion failed, by field names (never the exception's text: it names classes). */
    private static String where(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof tools.jackson.core.JacksonException j && !j.getPath().isEmpty()) {
                StringBuilder path = new StringBuilder("params");
                for (tools.jackson.core.JacksonException.Reference r : j.getPath()) {
                    if (r.getPropertyName() != null) {
                        path.append('.').append(r.getPropertyName());
                    } else if (r.getIndex() >= 0) {
                        path.append('[').append(r.getIndex()).append(']');
                    }
                }
                String at = path.toString();
                return ": " + (at.length() > 100 ? at.substring(0, 100) + "..." : at) + " has the wrong type or is missing";
            }
        }
        return "";
    }

}
