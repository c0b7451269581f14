package dev.agenttools.emulator.http;

import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import jakarta.mail.BodyPart;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;
import org.eclipse.jetty.http.HttpStatus;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Google's HTTP batch format: a multipart/mixed body whose parts are whole HTTP requests, answered by a
 * multipart/mixed body whose parts are whole HTTP responses, in request order, each tagged
 * {@code Content-ID: <response-ID>}. The multipart layer is parsed by Angus Mail. The HTTP request inside each
 * part is read here, not by Jetty's {@code HttpParser}: that parser wants a callback handler and reads a body only
 * by {@code Content-Length} or chunking, while a part's body here is whatever follows the blank line (CRLF or bare
 * LF line ends), and its headers merge with the outer request's. The HTTP responses are written here too.
 */
final class BatchCodec {
    static final int MAX_PARTS = 100;

    /** One request inside a batch, with its Content-ID (without brackets) or null. */
    record Part(String contentId, ApiRequest request) {
    }

    private BatchCodec() {
    }

    /**
     * Splits a batch body into API requests. Outer headers other than Content-* apply to every part unless the
     * part sets them itself (a single outer Authorization, for example).
     */
    static List<Part> parse(String contentType, byte[] body, Map<String, String> outerHeaders) {
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/")) {
            throw ApiError.badRequest(null, "A batch request must be multipart/mixed, got Content-Type " + contentType);
        }
        List<Part> parts = new ArrayList<>();
        try {
            MimeMultipart multipart = new MimeMultipart(new ByteArrayDataSource(body, contentType));
            int count = multipart.getCount();
            if (count == 0) {
                throw ApiError.badRequest(null, "The batch request has no parts");
            }
            if (count > MAX_PARTS) {
                throw ApiError.badRequest(null, "A batch request may hold at most " + MAX_PARTS + " calls, got " + count);
            }
            for (int i = 0; i < count; i++) {
                BodyPart bp = multipart.getBodyPart(i);
                String[] ids = bp.getHeader("Content-ID");
                String id = ids == null || ids.length == 0 ? null : ids[0].strip().replaceAll("^<|>$", "");
                byte[] http;
                try (var in = bp.getInputStream()) {
                    http = in.readAllBytes();
                }
                parts.add(new Part(id, parseHttpRequest(http, outerHeaders, i)));
            }
        } catch (MessagingException | IOException e) {
            throw ApiError.badRequest(null, "Malformed batch body: " + e.getMessage());
        }
        return parts;
    }

    private static ApiRequest parseHttpRequest(byte[] http, Map<String, String> outerHeaders, int index) {
        String text = new String(http, StandardCharsets.UTF_8);
        int headerEnd = text.indexOf("\r\n\r\n");
        int sepLength = 4;
        if (headerEnd < 0) {
            headerEnd = text.indexOf("\n\n");
            sepLength = 2;
        }
        String head = headerEnd < 0 ? text : text.substring(0, headerEnd);
        String rest = headerEnd < 0 ? "" : text.substring(headerEnd + sepLength);
        String[] lines = head.strip().split("\r?\n");
        String[] requestLine = lines[0].strip().split(" ");
        if (requestLine.length < 2) {
            throw ApiError.badRequest(null, "Batch part " + (index + 1) + " does not start with an HTTP request line: "
                    + lines[0]);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        outerHeaders.forEach((k, v) -> {
            if (!k.regionMatches(true, 0, "Content-", 0, 8)) {
                headers.put(k, v);
            }
        });
        Map<String, String> own = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                own.put(lines[i].substring(0, colon).strip(), lines[i].substring(colon + 1).strip());
            }
        }
        headers.keySet().removeIf(own::containsKey);
        headers.putAll(own);
        byte[] body = rest.strip().getBytes(StandardCharsets.UTF_8);
        URI uri;
        try {
            uri = new URI(requestLine[1]);
        } catch (URISyntaxException e) {
            throw ApiError.badRequest(null, "Batch part " + (index + 1) + " has a malformed URL: " + requestLine[1]);
        }
        String path = uri.getPath() == null ? "/" : uri.getPath();
        return new ApiRequest(requestLine[0].toUpperCase(Locale.ROOT), path,
                ApiRequest.parseQuery(uri.getRawQuery()), headers, body);
    }

    /** A batch answer: its Content-Type (with the boundary) and body. */
    record Encoded(String contentType, byte[] body) {
    }

    static Encoded encode(List<Part> parts, List<ApiResponse> responses) {
        String boundary = "batch_" + UUID.randomUUID().toString().replace("-", "");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < parts.size(); i++) {
            ApiResponse response = responses.get(i);
            byte[] body = response.render(parts.get(i).request());
            StringBuilder head = new StringBuilder();
            head.append("--").append(boundary).append("\r\n");
            head.append("Content-Type: application/http\r\n");
            // a part sent without a Content-ID is still answered with one, empty after "response-" (captured:
            // PunitDh/Gmail-API), so clients that pair answers by it must handle that
            String id = parts.get(i).contentId();
            head.append("Content-ID: ").append(id == null ? "response-" : "<response-" + id + ">").append("\r\n");
            head.append("\r\n");
            head.append("HTTP/1.1 ").append(response.status()).append(' ')
                    .append(HttpStatus.getMessage(response.status())).append("\r\n");
            head.append("Content-Type: ").append(response.contentType()).append("\r\n");
            response.headers().forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
            out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
            out.writeBytes(body);
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return new Encoded("multipart/mixed; boundary=" + boundary, out.toByteArray());
    }
}
