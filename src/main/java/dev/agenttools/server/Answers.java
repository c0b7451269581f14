package dev.agenttools.server;

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

    /**
     * MCP's error answer (JSON-RPC, {@code id} null: the request's own was not read), for refusals on {@code /mcp} made
     * before the MCP servlet runs; {@code data.code} is the tool protocol's code for the same refusal.
     *
     * @param rpcCode JSON-RPC's code: -32600 for a request refused for its form, -32000 for the rest
     */
    static void rpcError(Response response, Callback callback, int status, int rpcCode, ToolException.Kind kind,
                         String message) {
        var answer = Json.object().put("jsonrpc", "2.0").putNull("id");
        answer.putObject("error").put("code", rpcCode).put("message", message).putObject("data").put("code", kind.code());
        json(response, callback, status, Json.write(answer));
    }

    /** The tool protocol's error answer, for refusals made before the protocol runs. */
    static void error(Response response, Callback callback, int status, ToolException.Kind kind, String message) {
        json(response, callback, status, ToolProtocol.error(null, kind, message).line());
    }
}
