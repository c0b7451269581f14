package dev.agenttools.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
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
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;

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
    /** How much of a body over the limit is still read (and dropped) so that its sender gets the 413 (see {@link #read}). */
    static final long DISCARD_LIMIT = 4L << 20;

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
        } catch (TooLarge e) {
            gate.refuse(response, callback, "/v1/call", 413, ToolException.Kind.INVALID_ARGUMENT, "too_large",
                    "the request body is over " + maxBodyBytes + " bytes");
            return true;
        } catch (CharacterCodingException e) {
            gate.refuse(response, callback, "/v1/call", 400, ToolException.Kind.INVALID_ARGUMENT, null,
                    "the request body is not UTF-8");
            return true;
        } catch (IOException e) {
            // a body that stalled past the read timeout, a bad chunk, a connection that ended: never Jetty's 500 page
            boolean late = timedOut(e);
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

    /**
     * The body as text, at most {@code maxBodyBytes}. A body over the limit is refused; but a server that answers and
     * closes while the client is still sending makes the client's kernel see a reset, and the client often loses the
     * answer with it ("no bytes"), so the rest of a body up to {@link #DISCARD_LIMIT} is read and thrown away first, as
     * servers' lingering close does. A client that asked {@code Expect: 100-continue} has sent nothing yet: it is
     * answered at once. Beyond the discard limit the answer goes out and the connection closes.
     */
    private String read(Request request) throws IOException {
        long declared = request.getLength();
        boolean waitsForContinue = request.getHeaders().contains(HttpHeader.EXPECT, "100-continue");
        if (declared > maxBodyBytes && (waitsForContinue || declared > DISCARD_LIMIT)) {
            throw new TooLarge(); // refused before a byte is read
        }
        byte[] buffer = new byte[(int) Math.min(maxBodyBytes + 1L, declared >= 0 ? declared + 1 : 8192)];
        int length = 0;
        try (InputStream in = Content.Source.asInputStream(request)) {
            if (declared > maxBodyBytes) {
                discard(in, declared);
                throw new TooLarge();
            }
            int n;
            while ((n = in.read(buffer, length, buffer.length - length)) >= 0) {
                length += n;
                if (length > maxBodyBytes) {
                    discard(in, DISCARD_LIMIT - length);
                    throw new TooLarge();
                }
                if (length == buffer.length) {
                    buffer = Arrays.copyOf(buffer, (int) Math.min(maxBodyBytes + 1L, buffer.length * 2L));
                }
            }
        }
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(buffer, 0, length)).toString();
    }

    /** Reads and drops up to {@code bytes} more of the body (bounded in time by the connection's idle timeout). */
    private static void discard(InputStream in, long bytes) throws IOException {
        byte[] scratch = new byte[8192];
        long left = bytes;
        int n;
        while (left > 0 && (n = in.read(scratch, 0, (int) Math.min(scratch.length, left))) >= 0) {
            left -= n;
        }
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;
    }
}
