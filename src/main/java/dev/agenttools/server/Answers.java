package dev.agenttools.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Writing a whole answer: JSON with its status, never an HTML error page. */
final class Answers {
    private Answers() {
    }

    static void json(Response response, Callback callback, int status, String json) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json; charset=utf-8");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap((json + "\n").getBytes(StandardCharsets.UTF_8)), callback);
    }

    /** MCP's error answer, JSON-RPC 2.0 with {@code id: null}, for refusals made before the request's id is read. */
    static void jsonRpcError(Response response, Callback callback, int status, int code, String message) {
        ObjectNode out = Json.object();
        out.put("jsonrpc", "2.0");
        out.putNull("id");
        out.putObject("error").put("code", code).put("message", message);
        json(response, callback, status, Json.write(out));
    }

    /** The tool protocol's error answer, for refusals made before the protocol runs. */
    static void error(Response response, Callback callback, int status, ToolException.Kind kind, String message) {
        json(response, callback, status, ToolProtocol.error(null, kind, message).line());
    }
}
