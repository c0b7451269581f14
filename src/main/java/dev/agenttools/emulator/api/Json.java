package dev.agenttools.emulator.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The emulator's one JSON mapper. Responses are built as trees so that absent fields are simply not put. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper();
    /**
     * Pretty-printed as Google prints: two spaces of indent, {@code "key": value} (Jackson's default puts a space
     * before the colon too), {@code []} for an empty array.
     */
    private static final ObjectWriter PRETTY = new ObjectMapper().writer(new DefaultPrettyPrinter(Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER).withArrayEmptySeparator("").withObjectEmptySeparator("")));

    private Json() {
    }

    public static byte[] bytes(JsonNode node, boolean pretty) {
        try {
            return (pretty ? PRETTY : MAPPER.writer()).writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a JSON tree", e);
        }
    }

    public static JsonNode parse(byte[] body, String what) {
        if (body.length == 0) {
            return MAPPER.createObjectNode();
        }
        try {
            return MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw ApiError.badRequest(null, "Invalid JSON payload received. " + what + ": "
                    + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiError.badRequest(null, "Unreadable body. " + what + ": " + e.getMessage());
        }
    }
}
