package dev.agenttools.calendar;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.AccessToken;
import dev.agenttools.tool.Json;

/** What the Calendar tools share: their schema's frame and the params every one has. */
final class CalendarParams {
    private CalendarParams() {
    }

    static ObjectNode schema(String description, ObjectNode properties) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("description", description);
        schema.set("properties", properties);
        schema.putArray("required");
        schema.put("additionalProperties", false);
        return schema;
    }

    static ObjectNode commonProperties() {
        return AccessToken.properties("An OAuth2 access token with a Calendar scope; without it the stored sign-in is used. Never logged.");
    }
}
