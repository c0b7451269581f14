package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.AccessToken;
import dev.agenttools.google.Strategy;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;

import java.util.List;

/** What the Gmail tools share: their schema's frame, the params every one has, and the lists' params and call. */
final class GmailParams {
    static final int MAX_RESULTS_LIMIT = 500;
    static final int DEFAULT_MAX_RESULTS = 10;
    static final String CACHE = "cache";

    private GmailParams() {
    }

    static ObjectNode schema(String description, List<String> required, ObjectNode properties) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("description", description);
        schema.set("properties", properties);
        ArrayNode req = schema.putArray("required");
        required.forEach(req::add);
        schema.put("additionalProperties", false);
        return schema;
    }

    /** The params every Gmail tool has (the registry adds timeout_ms and agent_name). */
    static ObjectNode commonProperties() {
        return AccessToken.properties("An OAuth2 access token for Gmail; without it the stored sign-in is used. Never logged.");
    }

    static void listProperties(ObjectNode p) {
        p.putObject("max_results").put("type", "integer").put("minimum", 1).put("maximum", MAX_RESULTS_LIMIT)
                .put("default", DEFAULT_MAX_RESULTS).put("description", "How many emails to return (newest first).");
        p.putObject("page_token").put("type", "string")
                .put("description", "The next_page_token of a previous answer, to get the next page.");
        Strategy.describe(p, "How the emails are fetched: auto (best), sequential, concurrent or batch. The answer is the same.");
        ObjectNode cache = p.putObject(CACHE).put("type", "string").put("default", "auto")
                .put("description", "The local mail index (when AGENT_TOOLS_CACHE is not off): auto (one round trip when "
                        + "nothing new arrived), off (ask Gmail for everything), refresh (ask Gmail for everything and "
                        + "rebuild the index). The answer is the same.");
        ArrayNode modes = cache.putArray("enum");
        MailLister.IndexUse.NAMES.forEach(modes::add);
    }

    /** A list by label or by query, with the params both tools share. */
    static ToolResult list(MailLister lister, ToolCall call, Params p, String label, String query) throws InterruptedException {
        return lister.list(new MailLister.Request(label, query, p.integer("max_results", 1, MAX_RESULTS_LIMIT, DEFAULT_MAX_RESULTS),
                p.string("page_token", null), Strategy.of(p), MailLister.IndexUse.of(p, CACHE), call.deadline(), AccessToken.of(p)));
    }
}
