package dev.agenttools.server;

import dev.agenttools.tool.ToolException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Refuses, before any route or gate, what a proxy in front could read another way than this server (400, the JSON
 * envelope of the endpoint the path names: JSON-RPC for {@code /mcp}, the tool protocol's elsewhere):
 * <ul>
 * <li>a path not in its one plain form: a {@code .} or {@code ..} segment, an empty segment ({@code //}, a trailing
 * {@code /}), a path parameter ({@code ;x=1}), any percent-encoding (of a dot, a slash or anything else: none of the
 * server's paths needs one), a backslash, a fragment ({@code #}, which no request may carry). A proxy that routes or
 * allows by path ({@code /mcp} to the public,
 * {@code /v1/call} to the backends only) and does not normalise would otherwise let {@code /mcp/../v1/call} reach
 * {@code /v1/call}; refusing leaves nothing to normalise, so the gates see the path the router does;</li>
 * <li>two {@code Authorization}, two {@value Gate#GOOGLE_TOKEN_HEADER} or two {@code Origin} headers: which one counts
 * would be a choice a proxy could make the other way ("first wins" here, "last wins" there).</li>
 * </ul>
 * {@code X-Forwarded-For} is not refused for being repeated: its lines are one list by RFC 9110 (HAProxy adds a line of
 * its own), read from the right, where a client's forgery is never reached ({@code TrustedProxies}).
 */
final class AmbiguousRequests extends Handler.Wrapper {
    /** One or more segments of RFC 3986's unreserved and sub-delimiter characters, less {@code ;}; or the root. */
    private static final Pattern PLAIN_PATH = Pattern.compile("/|(/[A-Za-z0-9._~!$&'()*+,=:@-]+)+");
    private static final List<String> SINGLE_HEADERS = List.of(HttpHeader.AUTHORIZATION.asString(),
            Gate.GOOGLE_TOKEN_HEADER, HttpHeader.ORIGIN.asString());
    private static final int SHOWN_PATH_CHARS = 100;

    private final String prefix;
    private final ServiceMetrics metrics;

    /** @param prefix the public URL's path ({@code /agent-tools}), or empty */
    AmbiguousRequests(String prefix, ServiceMetrics metrics, Handler next) {
        super(next);
        this.prefix = prefix;
        this.metrics = metrics;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = request.getHttpURI().getPath(); // as sent: still encoded, path parameters included
        String problem = null;
        if (path == null || !PLAIN_PATH.matcher(path).matches() || request.getHttpURI().getFragment() != null
                || path.contains("/./") || path.endsWith("/.")
                || path.contains("/../") || path.endsWith("/..")) {
            String shown = path == null ? "(none)"
                    : path.length() > SHOWN_PATH_CHARS ? path.substring(0, SHOWN_PATH_CHARS) + "..." : path;
            problem = "the path " + shown + " is not in its plain form: no . or .. segments, empty segments, "
                    + "trailing /, ; parameters, percent-encoding, backslashes or #; send the path itself, such as "
                    + "/v1/call or /mcp";
        } else {
            for (String name : SINGLE_HEADERS) {
                int count = request.getHeaders().getValuesList(name).size();
                if (count > 1) {
                    problem = "the request has " + count + " " + name + " headers; send one";
                    break;
                }
            }
        }
        if (problem == null) {
            return super.handle(request, response, callback);
        }
        metrics.refused("ambiguous");
        boolean mcp = path != null
                && (path.startsWith(McpGate.PATH) || !prefix.isEmpty() && path.startsWith(prefix + McpGate.PATH));
        if (mcp) {
            metrics.answered(McpGate.PATH, 400);
            Answers.jsonRpcError(response, callback, 400, -32600, ToolException.Kind.INVALID_ARGUMENT.code() + ": "
                    + problem);
        } else {
            Answers.error(response, callback, 400, ToolException.Kind.INVALID_ARGUMENT, problem);
        }
        return true;
    }
}
