package dev.agenttools.server;

import dev.agenttools.tool.InternalErrors;
import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * The server's error handler: every error Jetty answers itself (a request line or header it cannot parse 400, an
 * ambiguous or badly escaped URI 400, a URI too long 414, headers too large 431, a body that stalls past the read
 * timeout 408, a failure that escaped a handler 500, a stop in progress 503) is our JSON, never Jetty's HTML or JSON
 * page: JSON-RPC 2.0 with {@code id: null} under {@code /mcp}, the call protocol's error everywhere else, and where the
 * target could not be read at all (a bad %-escape: Jetty keeps no path of it, so which endpoint was meant is unknown).
 * A 5xx says
 * what failed in words with an error id; its detail (the exception) goes to the server's log under that id. Jetty's own
 * reason for a 400 is shown only when it is plain words. Stateless; thread-safe.
 */
final class ErrorPages implements Request.Handler {
    /** What Jetty's reasons look like when they are words ("Ambiguous URI path separator"), not an exception's text. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9 ,.:;'=()-]{1,100}");

    private final List<String> mcpPaths;
    private final int maxBodyBytes;
    private final int maxHeaderBytes;
    private final InternalErrors internals;

    /** @param mcpPaths where MCP is served ({@code /mcp}, and under a public URL's path prefix) */
    ErrorPages(List<String> mcpPaths, int maxBodyBytes, int maxHeaderBytes, InternalErrors internals) {
        this.mcpPaths = List.copyOf(mcpPaths);
        this.maxBodyBytes = maxBodyBytes;
        this.maxHeaderBytes = maxHeaderBytes;
        this.internals = internals;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus();
        Throwable cause = request.getAttribute(ErrorHandler.ERROR_EXCEPTION) instanceof Throwable t ? t : null;
        String reason = request.getAttribute(ErrorHandler.ERROR_MESSAGE) instanceof String s ? s : null;
        if (cause instanceof HttpException http) {
            status = http.getCode();
            reason = http.getReason();
        }
        if (timedOut(cause)) {
            status = HttpStatus.REQUEST_TIMEOUT_408;
        }
        if (status < 400 || status > 599) {
            status = HttpStatus.INTERNAL_SERVER_ERROR_500;
        }
        String path = path(request);
        String message = status >= 500 && status != 503 && status != 505
                ? internals.logged("the server failed to answer the request", "HTTP " + status + " for "
                + (path == null ? "a request it could not read" : path) + (reason == null ? "" : ": " + reason)
                + (cause == null ? "" : ": " + cause), cause)
                : message(status, reason);
        response.getHeaders().remove("Content-Length");
        if (path != null && isMcp(path)) {
            Answers.jsonRpcError(response, callback, status, status >= 500 ? -32603 : -32600, message);
        } else {
            Answers.error(response, callback, status, kind(status), message);
        }
        return true;
    }

    private String message(int status, String reason) {
        String name = HttpStatus.getMessage(status);
        return switch (status) {
            case 400 -> "the request is not valid HTTP, or its URI is ambiguous or badly escaped (an encoded / or .., "
                    + "a bad %-escape or a control character is refused)"
                    + (reason != null && PLAIN.matcher(reason).matches() && !reason.equals(name) ? ": " + reason : "");
            case 408 -> "the request did not arrive whole within the server's read timeout";
            case 413 -> "the request is over the server's size limit (the body at most " + maxBodyBytes + " bytes)";
            case 414 -> "the request URI is over the " + maxHeaderBytes + " bytes of request line and headers the server reads";
            case 431 -> "the request headers are over the " + maxHeaderBytes + " bytes the server reads";
            case 503 -> "the server is stopping or has no room: retry later";
            case 505 -> "the HTTP version is not supported: send HTTP/1.1 or HTTP/2";
            default -> name;
        };
    }

    private static ToolException.Kind kind(int status) {
        return switch (status) {
            case 401 -> ToolException.Kind.UNAUTHENTICATED;
            case 403 -> ToolException.Kind.PERMISSION_DENIED;
            case 404 -> ToolException.Kind.NOT_FOUND;
            case 429 -> ToolException.Kind.RATE_LIMITED;
            case 503 -> ToolException.Kind.OVERLOADED;
            case 505 -> ToolException.Kind.INVALID_ARGUMENT; // the caller's HTTP version
            default -> status >= 500 ? ToolException.Kind.INTERNAL : ToolException.Kind.INVALID_ARGUMENT;
        };
    }

    /** The path as sent (still escaped); null when the request line could not be read. */
    private static String path(Request request) {
        try {
            return request.getHttpURI() == null ? null : request.getHttpURI().getPath();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Under an MCP path: {@code /mcp} itself, or followed by anything but a letter or digit ({@code /mcp%2F}, {@code /mcp/..}). */
    private boolean isMcp(String path) {
        for (String mcp : mcpPaths) {
            if (path.startsWith(mcp) && (path.length() == mcp.length() || !Character.isLetterOrDigit(path.charAt(mcp.length())))) {
                return true;
            }
        }
        return false;
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }
}
