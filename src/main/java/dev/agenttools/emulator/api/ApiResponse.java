package dev.agenttools.emulator.api;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One answer of the API, before the transport writes it (directly, or as one part of a batch response).
 *
 * @param json the JSON body, rendered when written (so that {@code prettyPrint} and {@code fields} apply), or null
 * @param bytes a body already rendered (non-JSON answers), or null
 */
public record ApiResponse(int status, String contentType, JsonNode json, byte[] bytes, Map<String, String> headers) {
    public static final String JSON_UTF8 = "application/json; charset=UTF-8";

    public ApiResponse {
        headers = Map.copyOf(headers);
    }

    public static ApiResponse json(int status, JsonNode body) {
        return new ApiResponse(status, JSON_UTF8, body, null, Map.of());
    }

    public static ApiResponse ok(JsonNode body) {
        return json(200, body);
    }

    public static ApiResponse raw(int status, String contentType, byte[] bytes) {
        return new ApiResponse(status, contentType, null, bytes, Map.of());
    }

    public ApiResponse withHeader(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(name, value);
        return new ApiResponse(status, contentType, json, bytes, copy);
    }

    /** The body as sent: JSON is masked by {@code fields} (when given, on success only) and pretty-printed unless asked not to. */
    public byte[] render(ApiRequest request) {
        if (json == null) {
            return bytes;
        }
        JsonNode body = json;
        String fields = request.param("fields");
        if (fields != null && !fields.isBlank() && status < 300) {
            body = FieldMask.parse(fields).apply(body);
        }
        return Json.bytes(body, !"false".equalsIgnoreCase(request.param("prettyPrint")));
    }
}
