package dev.agenttools.server;

import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Behind a reverse proxy that publishes the server under a path ({@code https://host/agent-tools/}, the public URL's
 * path): a request under that prefix is served as the same request without it, so the proxy may pass the prefix on
 * or strip it, and both work. The well-known metadata is outside the prefix (at the host's root, RFC 8414 and RFC
 * 9728 insert the prefix after {@code /.well-known/...}) and is matched by the authorization server itself.
 */
final class PathPrefix extends Handler.Wrapper {
    private final String prefix;

    /** @param prefix {@code /agent-tools}: plain characters (the settings check it), no trailing slash */
    PathPrefix(String prefix, Handler next) {
        super(next);
        this.prefix = prefix;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        HttpURI uri = request.getHttpURI();
        String path = uri.getPath(); // as sent (encoded): the prefix has no character that encodes
        if (path != null && path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/')) {
            String rest = path.substring(prefix.length());
            return super.handle(Request.serveAs(request, HttpURI.build(uri).path(rest.isEmpty() ? "/" : rest)), response, callback);
        }
        return super.handle(request, response, callback);
    }
}
