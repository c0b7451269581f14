package dev.agenttools.emulator.api;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One API call as the resources see it, whether it came as its own HTTP request or as a part of a batch.
 * The transport has already undone what clients layer on top: gzip, {@code X-HTTP-Method-Override} with a
 * form-encoded body, absolute URLs in batch parts.
 *
 * @param method  the effective HTTP method (after any override)
 * @param path    the decoded path, starting with {@code /}
 * @param params  query (and override form) parameters, repeated ones in order
 * @param headers request headers, names matched case-insensitively
 */
public record ApiRequest(String method, String path, Map<String, List<String>> params, Map<String, String> headers, byte[] body) {

    public ApiRequest {
        Map<String, List<String>> p = new LinkedHashMap<>();
        params.forEach((k, v) -> p.put(k, List.copyOf(v)));
        params = Collections.unmodifiableMap(p);
        TreeMap<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        h.putAll(headers);
        headers = Collections.unmodifiableMap(h);
    }

    /** The first value of a parameter, or null. */
    public String param(String name) {
        List<String> values = params.get(name);
        return values == null || values.isEmpty() ? null : values.getFirst();
    }

    public List<String> params(String name) {
        return params.getOrDefault(name, List.of());
    }

    public String header(String name) {
        return headers.get(name);
    }

    /** Parses {@code a=1&b=2&a=3} (a query string or a form body) into ordered, repeated parameters. */
    public static Map<String, List<String>> parseQuery(String query) {
        Map<String, List<String>> params = new LinkedHashMap<>();
        if (query == null || query.isEmpty()) {
            return params;
        }
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            params.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return params;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(null, "Malformed percent-encoding in the query: " + s);
        }
    }
}
