package dev.agenttools.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.mcp.BoundedRequestBody;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;

/**
 * {@code POST /v1/call}: the JSON tool protocol of {@code call}, one request per HTTP request, the same request and
 * answer JSON; the caller's Google access token in the {@value Gate#GOOGLE_TOKEN_HEADER} header; the HTTP status
 * mapped from the error code (see {@link #status}).
 */
final class CallEndpoint extends Handler.Abstract {
    static final String PATH = "/v1/call";

    private final ToolProtocol protocol;
    private final Gate gate;
    private final int maxBodyBytes;

    CallEndpoint(ToolProtocol protocol, Gate gate, int maxBodyBytes) {
        this.protocol = protocol;
        this.gate = gate;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!PATH.equals(Request.getPathInContext(request))) {
            return false;
        }
        long received = request.getBeginNanoTime();
        if (!"POST".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "POST");
            gate.refuse(response, callback, "/v1/call", 405, ToolException.Kind.INVALID_ARGUMENT, null,
                    "POST the request to " + PATH);
            return true;
        }
        if (!gate.admitAddress(request, response, callback, PATH, true) || !gate.admitKey(request, response, callback, PATH)) {
            return true;
        }
        String body;
        try {
            body = read(request);
        } catch (BoundedRequestBody.TooLarge e) {
            gate.refuse(response, callback, "/v1/call", 413, ToolException.Kind.INVALID_ARGUMENT, "too_large",
                    "the request body is over " + maxBodyBytes + " bytes");
            return true;
        } catch (CharacterCodingException e) {
            gate.refuse(response, callback, "/v1/call", 400, ToolException.Kind.INVALID_ARGUMENT, null,
                    "the request body is not UTF-8");
            return true;
        } catch (IOException e) {
            // a body that stalled past the read timeout, a bad chunk, a connection that ended: never Jetty's 500 page
            boolean late = BoundedRequestBody.timedOut(e);
            gate.refuse(response, callback, "/v1/call", late ? 408 : 400, ToolException.Kind.INVALID_ARGUMENT, null, late
                    ? "the request body did not arrive within the server's read timeout"
                    : "the request body could not be read whole (a bad chunk, or the connection ended before it did)");
            return true;
        }
        String headerToken = gate.googleToken(request);
        if (!gate.admitUser(Gate.tokenUser(headerToken != null ? headerToken : bodyToken(body)), response, callback, PATH)
                || !gate.enter(response, callback, "/v1/call")) {
            return true;
        }
        try {
            ToolProtocol.Answer answer = protocol.answer(body, received, headerToken);
            int status = answer.httpStatus();
            gate.answered("/v1/call", status);
            JsonNode retryAfterMs = answer.json().path("error").path("retry_after_ms");
            if (retryAfterMs.canConvertToLong()) {
                // HTTP's Retry-After is whole seconds: rounded up, so that a client honouring it is not early
                response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString((retryAfterMs.asLong() + 999) / 1000));
            }
            Answers.json(response, callback, status, answer.line());
        } finally {
            gate.leave();
        }
        return true;
    }

    /**
     * The Google token a request carries in its params ({@code access_token}), for the limit per user when the header
     * has none; null when it has none or is not a request at all (the protocol then answers why).
     */
    private static String bodyToken(String body) {
        if (!body.contains("access_token")) {
            return null;
        }
        try {
            JsonNode token = Json.MAPPER.readTree(body).path("params").path("access_token");
            return token.isTextual() ? Gate.googleToken(token.asText()) : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private String read(Request request) throws IOException {
        return BoundedRequestBody.utf8(BoundedRequestBody.read(request.getLength(),
                request.getHeaders().contains(HttpHeader.EXPECT, "100-continue"), maxBodyBytes,
                () -> Content.Source.asInputStream(request)));
    }

}
