package dev.agenttools.emulator.http;

import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.ErrorBody;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Answers the errors Jetty finds itself (a malformed request line 400, a URI too long 414, headers too large 431,
 * a failure that escaped the API 500) in Google's JSON error envelope instead of Jetty's HTML page, so a client
 * parses every error the emulator sends the same way. Never shows a stack trace or an exception's text for a 5xx.
 * Thread-safe (stateless).
 */
public final class JsonErrorHandler implements Request.Handler {
    private static final ApiRequest NO_REQUEST = new ApiRequest("GET", "/", Map.of(), Map.of(), new byte[0]);
    private final int maxHeaderSize;

    public JsonErrorHandler(int maxHeaderSize) {
        this.maxHeaderSize = maxHeaderSize;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus();
        String reason = request.getAttribute(ErrorHandler.ERROR_MESSAGE) instanceof String s ? s : null;
        if (request.getAttribute(ErrorHandler.ERROR_EXCEPTION) instanceof HttpException http) {
            status = http.getCode();
            reason = reason == null ? http.getReason() : reason;
        }
        if (status < 400 || status > 599) {
            status = 500;
        }
        ApiResponse error = ErrorBody.of(ApiError.http(status, message(status, reason)));
        response.setStatus(error.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, error.contentType());
        response.write(true, ByteBuffer.wrap(error.render(NO_REQUEST)), callback);
        return true;
    }

    private String message(int status, String reason) {
        String limit = " bytes of request line and headers (emulator --max-header-size)";
        return switch (status) {
            case 414 -> "Request URI too long: the limit is " + maxHeaderSize + limit;
            case 431 -> "Request header fields too large: the limit is " + maxHeaderSize + limit;
            default -> {
                String name = HttpStatus.getMessage(status);
                yield reason == null || reason.isBlank() || reason.equals(name) ? name : name + ": " + reason;
            }
        };
    }
}
