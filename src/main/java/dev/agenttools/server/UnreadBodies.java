package dev.agenttools.server;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;

/**
 * Keeps an HTTP/1 connection usable after an answer given before the request's body was read (a 429, a 401, a 403 of
 * a gate): when the answer's headers go out, the body that has already arrived is read and dropped; if some of it is
 * still on its way, the answer says {@code Connection: close}. Without this, Jetty closes such a connection only after
 * the answer, which said nothing of it, so a client sending its next request on it (Java's {@code HttpClient},
 * Python's {@code http.client}) lost that request: "received no bytes", "Remote end closed connection" — seen 32 times
 * in 900 rate-limited MCP requests, and in the benchmark's warm-up. HTTP/2 streams are left alone (an unread stream is
 * reset by itself, and {@code Connection} is not allowed there). Stateless; thread-safe.
 */
final class UnreadBodies extends Handler.Wrapper {
    UnreadBodies(Handler next) {
        super(next);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (request.getConnectionMetaData().getHttpVersion().getVersion() >= HttpVersion.HTTP_2.getVersion()) {
            return super.handle(request, response, callback);
        }
        return super.handle(request, new Response.Wrapper(request, response) {
            private boolean settled;

            @Override
            public void write(boolean last, ByteBuffer content, Callback written) {
                if (!settled) {
                    settled = true;
                    if (!isCommitted() && !request.consumeAvailable()) {
                        getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
                    }
                }
                super.write(last, content, written);
            }
        }, callback);
    }
}
