package dev.agenttools.emulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.nio.charset.StandardCharsets;

/** The emulator's one JSON mapper. Responses are built as trees so that absent fields are simply not put. */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    static byte[] bytes(JsonNode node, boolean pretty) {
        try {
            return (pretty ? PRETTY : MAPPER).writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON tree", e);
        }
    }

    static JsonNode parse(byte[] body, String what) {
        if (body.length == 0) {
            return MAPPER.createObjectNode();
        }
        try {
            return MAPPER.readTree(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw ApiError.badRequest(null, "Invalid JSON payload received. " + what + ": "
                    + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw ApiError.badRequest(null, "Unreadable body. " + what + ": " + e.getMessage());
        }
    }
}
