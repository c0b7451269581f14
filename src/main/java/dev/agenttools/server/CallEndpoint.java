package dev.agenttools.server;

import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

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
        if (!gate.admitKey(request, response, callback, "/v1/call")) {
            return true;
        }
        String body;
        try {
            body = read(request);
        } catch (TooLarge e) {
            gate.refuse(response, callback, "/v1/call", 413, ToolException.Kind.INVALID_ARGUMENT, "too_large",
                    "the request body is over " + maxBodyBytes + " bytes");
            return true;
        } catch (CharacterCodingException e) {
            gate.refuse(response, callback, "/v1/call", 400, ToolException.Kind.INVALID_ARGUMENT, null,
                    "the request body is not UTF-8");
            return true;
        }
        if (!gate.enter(response, callback, "/v1/call")) {
            return true;
        }
        try {
            ToolProtocol.Answer answer = protocol.answer(body, received, gate.googleToken(request));
            int status = answer.json().has("error") ? status(answer.json().path("error").path("code").asText()) : 200;
            gate.answered("/v1/call", status);
            Answers.json(response, callback, status, answer.line());
        } finally {
            gate.leave();
        }
        return true;
    }

    /** The HTTP status for an error code of the tool protocol. */
    static int status(String code) {
        return switch (code) {
            case "invalid_argument" -> 400;
            case "unauthenticated" -> 401;
            case "permission_denied" -> 403;
            case "not_found" -> 404;
            case "rate_limited" -> 429;
            case "upstream" -> 502;
            case "overloaded" -> 503;
            case "deadline" -> 504;
            default -> 500;
        };
    }

    private String read(Request request) throws IOException {
        long declared = request.getLength();
        if (declared > maxBodyBytes) {
            throw new TooLarge(); // refused before a byte is read
        }
        byte[] buffer = new byte[(int) Math.min(maxBodyBytes + 1L, declared >= 0 ? declared + 1 : 8192)];
        int length = 0;
        try (InputStream in = Content.Source.asInputStream(request)) {
            int n;
            while ((n = in.read(buffer, length, buffer.length - length)) >= 0) {
                length += n;
                if (length > maxBodyBytes) {
                    throw new TooLarge();
                }
                if (length == buffer.length) {
                    buffer = java.util.Arrays.copyOf(buffer, (int) Math.min(maxBodyBytes + 1L, buffer.length * 2L));
                }
            }
        }
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(java.nio.ByteBuffer.wrap(buffer, 0, length)).toString();
    }

    private static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;
    }
}
