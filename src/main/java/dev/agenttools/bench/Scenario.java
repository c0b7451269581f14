package dev.agenttools.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;

import java.util.List;

/**
 * One row of the benchmark: a tool, a strategy and a size.
 *
 * @param tool     the short tool name: list_emails, search_emails or get_email
 * @param strategy sequential, concurrent or batch
 * @param n        emails per call (1 for get_email)
 */
record Scenario(String tool, String strategy, int n) {
    static final List<String> TOOLS = List.of("list_emails", "search_emails", "get_email");
    static final List<String> STRATEGIES = List.of("sequential", "concurrent", "batch");
    /** A query that matches most of the seeded mailbox, so that search_emails(n) returns n emails like list_emails. */
    static final String SEARCH_QUERY = "in:inbox -in:spam";

    String command() {
        return switch (tool) {
            case "list_emails" -> "gmail.list-emails";
            case "search_emails" -> "gmail.search-emails";
            default -> "gmail.get-email";
        };
    }

    /** The params of run number {@code run}; get_email cycles through the given ids. */
    ObjectNode params(int run, List<String> ids) {
        ObjectNode p = Json.object();
        if (!tool.equals("get_email")) {
            p.put("strategy", strategy);
        }
        p.put("agent_name", "bench");
        switch (tool) {
            case "list_emails" -> p.put("max_results", n);
            case "search_emails" -> p.put("query", SEARCH_QUERY).put("max_results", n);
            default -> p.put("message_id", ids.get(run % ids.size()));
        }
        return p;
    }

    String label() {
        return tool + "(" + (tool.equals("get_email") ? "" : n) + ") " + strategy;
    }
}
