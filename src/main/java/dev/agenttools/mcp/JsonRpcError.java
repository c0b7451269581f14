package dev.agenttools.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * One JSON-RPC 2.0 error answer of {@code /mcp}, with its HTTP status: {@code {"jsonrpc": "2.0", "id": ..., "error":
 * {"code": ..., "message": ...}}}, the id the request's own or null when it could not be read. The message is ours,
 * never an exception's text.
 */
record JsonRpcError(int status, JsonNode id, int code, String message) {
    static final int PARSE_ERROR = -32700;
    static final int INVALID_REQUEST = -32600;
    static final int METHOD_NOT_FOUND = -32601;
    static final int INVALID_PARAMS = -32602;
    static final int INTERNAL_ERROR = -32603;

    JsonRpcError {
        id = id == null ? NullNode.getInstance() : id;
    }

    /** An error of a request whose id is not known. */
    static JsonRpcError of(int status, int code, String message) {
        return new JsonRpcError(status, null, code, message);
    }

    String json() {
        ObjectNode out = Json.object();
        out.put("jsonrpc", "2.0");
        out.set("id", id);
        out.putObject("error").put("code", code).put("message", message);
        return Json.write(out);
    }

    /** Writes it as the whole answer (the response must not be committed). */
    void write(HttpServletResponse response) throws IOException {
        response.setStatus(status);
        response.setHeader("Cache-Control", "no-store");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        byte[] body = (json() + "\n").getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.getOutputStream().flush();
    }
}
