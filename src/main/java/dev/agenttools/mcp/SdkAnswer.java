package dev.agenttools.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.tool.InternalErrors;
import dev.agenttools.tool.Json;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * What the SDK's servlet transport answers one request, held until it has returned (the stateless transport writes its
 * answer once, after the call: nothing is streamed), then sent as it is when it is a JSON-RPC answer of a request, or
 * made ours when it is an error: the SDK's own error answers carry its exception serialized (stack trace, class and
 * file names) and its handlers' errors an exception's text ({@code MismatchedInputException: Cannot deserialize ...}),
 * so every error answer is rewritten in our words, with the detail of an internal one in the server's log under an
 * error id. Used by one request's thread.
 */
final class SdkAnswer extends HttpServletResponseWrapper {
    private int status = HttpServletResponse.SC_OK;
    private boolean sentError;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private PrintWriter writer;
    private ServletOutputStream stream;

    SdkAnswer(HttpServletResponse response) {
        super(response);
    }

    @Override
    public void setStatus(int sc) {
        status = sc;
    }

    @Override
    public int getStatus() {
        return status;
    }

    @Override
    public void sendError(int sc, String msg) {
        status = sc;
        sentError = true;
    }

    @Override
    public void sendError(int sc) {
        sendError(sc, null);
    }

    @Override
    public void setContentType(String type) {
        // the answer's type is set when it is sent: application/json
    }

    @Override
    public void setCharacterEncoding(String charset) {
        // UTF-8, set when it is sent
    }

    @Override
    public void setContentLength(int len) {
        // set when it is sent
    }

    @Override
    public void setContentLengthLong(long len) {
        // set when it is sent
    }

    @Override
    public boolean isCommitted() {
        return false;
    }

    @Override
    public void flushBuffer() {
        // held until the transport returns
    }

    @Override
    public void resetBuffer() {
        if (writer != null) {
            writer.flush();
        }
        body.reset();
    }

    @Override
    public void reset() {
        resetBuffer();
        status = HttpServletResponse.SC_OK;
        sentError = false;
    }

    @Override
    public PrintWriter getWriter() {
        if (writer == null) {
            writer = new PrintWriter(new OutputStreamWriter(body, StandardCharsets.UTF_8));
        }
        return writer;
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    throw new IllegalStateException("the MCP answer is written blocking");
                }

                @Override
                public void write(int b) {
                    body.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    body.write(b, off, len);
                }
            };
        }
        return stream;
    }

    /**
     * Sends what the transport answered to {@code response}: a JSON-RPC result, or a notification's 202, as it is; an
     * error in our words.
     *
     * @param id     the request's id (null: a notification)
     * @param method the request's method
     */
    void send(HttpServletResponse response, JsonNode id, String method, InternalErrors internals) throws IOException {
        if (writer != null) {
            writer.flush();
        }
        String text = body.toString(StandardCharsets.UTF_8);
        if (sentError || status >= 400) {
            error(id, method, text, internals).write(response);
            return;
        }
        if (text.isBlank()) {
            response.setStatus(status); // 202: a notification taken
            return;
        }
        JsonNode answer;
        try {
            answer = Json.MAPPER.readTree(text);
        } catch (IOException e) {
            answer = null;
        }
        if (answer == null || !answer.isObject() || answer.has("error") || !answer.has("result")) {
            error(id, method, text, internals).write(response);
            return;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
        response.getOutputStream().flush();
    }

    /** The transport's error answer {@code text} (status {@link #status}), in our words. */
    private JsonRpcError error(JsonNode id, String method, String text, InternalErrors internals) {
        JsonNode sdk;
        try {
            sdk = text.isBlank() ? Json.object() : Json.MAPPER.readTree(text);
        } catch (IOException e) {
            sdk = Json.object();
        }
        // a JSON-RPC error answer {"error": {"code", "message"}}, or the SDK's exception {"jsonRpcError": {...}}
        JsonNode said = sdk.path("error").isObject() ? sdk.path("error") : sdk.path("jsonRpcError");
        int code = said.path("code").canConvertToInt() ? said.path("code").intValue() : JsonRpcError.INTERNAL_ERROR;
        String detail = said.path("message").isTextual() ? said.path("message").textValue() : "HTTP " + status;
        String shown = method.length() > 40 ? method.substring(0, 40) + "..." : method;
        int httpStatus = sentError || status >= 400 ? status : HttpServletResponse.SC_OK;
        if (httpStatus == HttpServletResponse.SC_SERVICE_UNAVAILABLE) {
            return new JsonRpcError(503, id, JsonRpcError.INTERNAL_ERROR, "the server is stopping; retry on another instance or later");
        }
        return switch (code) {
            case JsonRpcError.METHOD_NOT_FOUND -> new JsonRpcError(httpStatus, id, code, "no such method: " + shown
                    + "; this server answers initialize, ping, tools/list and tools/call");
            case JsonRpcError.INVALID_PARAMS -> new JsonRpcError(httpStatus, id, code, method.equals("tools/call")
                    ? "the params of tools/call name no tool of this server, or do not fit it; tools/list names the tools"
                    + " and their input schemas" : "the params of " + shown + " do not fit the method; see the MCP schema");
            case JsonRpcError.INVALID_REQUEST, JsonRpcError.PARSE_ERROR -> new JsonRpcError(httpStatus >= 400 ? httpStatus : 400,
                    id, code, "the MCP transport refused the request as not a valid JSON-RPC 2.0 message");
            default -> new JsonRpcError(httpStatus >= 500 ? httpStatus : httpStatus >= 400 ? 500 : httpStatus, id,
                    JsonRpcError.INTERNAL_ERROR, internals.logged(shown + " failed inside the MCP server",
                    "MCP " + shown + " (HTTP " + status + "): " + detail, null));
        };
    }
}
