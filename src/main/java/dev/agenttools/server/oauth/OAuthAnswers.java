package dev.agenttools.server.oauth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Writing the authorization server's answers: JSON that is never cached, RFC 6749's errors, redirects. */
final class OAuthAnswers {
    private OAuthAnswers() {
    }

    static void json(Response response, Callback callback, int status, ObjectNode body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json; charset=utf-8");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put(HttpHeader.PRAGMA, "no-cache");
        response.write(true, ByteBuffer.wrap((Json.write(body) + "\n").getBytes(StandardCharsets.UTF_8)), callback);
    }

    /** RFC 6749 section 5.2's error body: {@code error} and an {@code error_description} that names the parameter. */
    static ObjectNode error(String error, String description) {
        return Json.object().put("error", error).put("error_description", description);
    }

    static void error(Response response, Callback callback, int status, String error, String description) {
        json(response, callback, status, error(error, description));
    }

    /** 302 to {@code uri} with {@code params} added to its query. */
    static void redirect(Response response, Callback callback, String uri, Map<String, String> params) {
        redirect(response, callback, 302, uri, params);
    }

    /** {@code status} (302, or 303 after a POST) to {@code uri} with {@code params} added to its query. */
    static void redirect(Response response, Callback callback, int status, String uri, Map<String, String> params) {
        String query = Google.form(params);
        String location = uri + (URI.create(uri).getRawQuery() == null ? "?" : "&") + query;
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.LOCATION, location);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, null, callback);
    }

    /**
     * What a browser-based client (the MCP Inspector in a page) needs to read the answer: any origin, since these
     * endpoints take no cookies or other ambient credentials, only what the request itself carries.
     */
    static void allowAnyOrigin(Response response) {
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_HEADERS, "Authorization, Content-Type, MCP-Protocol-Version");
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, OPTIONS");
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_EXPOSE_HEADERS, "WWW-Authenticate");
    }
}
