package dev.agenttools.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;

import java.util.List;

/**
 * One row of the benchmark: a tool, a strategy and a size.
 *
 * @param tool     the short tool name: list_emails, search_emails, get_email, list_events or get_event
 * @param strategy sequential, concurrent or batch
 * @param n        emails per call (1 for get_email and get_event); for list_events, the calendars it reads
 */
record Scenario(String tool, String strategy, int n) {
    static final List<String> TOOLS = List.of("list_emails", "search_emails", "get_email", "list_events", "get_event");
    static final List<String> STRATEGIES = List.of("sequential", "concurrent", "batch");
    /** A query that matches most of the seeded mailbox, so that search_emails(n) returns n emails like list_emails. */
    static final String SEARCH_QUERY = "in:inbox -in:spam";

    /** Whether the tool reads Calendar, whose quota (600 requests a minute) is Gmail's 25th. */
    boolean calendar() {
        return calendarTool(tool);
    }

    static boolean calendarTool(String tool) {
        return tool.endsWith("_event") || tool.endsWith("_events");
    }

    /**
     * A row with the local mail index: {@code warm} (a list asked again, nothing new) or {@code warm+new} (a list
     * asked again after new mail arrived), both with the tools' default strategy.
     */
    boolean warm() {
        return strategy.startsWith("warm");
    }

    /** Whether the tool fetches one item, whatever the strategy: get_email and get_event have none. */
    boolean single() {
        return tool.startsWith("get_");
    }

    String command() {
        return switch (tool) {
            case "list_emails" -> "gmail.list-emails";
            case "search_emails" -> "gmail.search-emails";
            case "get_email" -> "gmail.get-email";
            case "list_events" -> "calendar.list-events";
            default -> "calendar.get-event";
        };
    }

    /**
     * The params of run number {@code run}; get_email and get_event cycle through the fixtures' items. list_events
     * asks for today (the tool's default) across every calendar the user shows, as "what is on my plate today?" does.
     */
    ObjectNode params(int run, Fixtures fixtures) {
        ObjectNode p = Json.object();
        if (warm()) {
            p.put("strategy", "auto").put("cache", "auto");
        } else if (!single()) {
            p.put("strategy", strategy);
            if (tool.endsWith("_emails")) {
                p.put("cache", "off"); // the cold path, as every peer pays it
            }
        }
        p.put("agent_name", "bench");
        switch (tool) {
            case "list_emails" -> p.put("max_results", n);
            case "search_emails" -> p.put("query", SEARCH_QUERY).put("max_results", n);
            case "get_email" -> p.put("message_id", fixtures.messageId(run));
            case "list_events" -> {
                // today across every calendar the user shows: the tool's defaults
            }
            default -> {
                Fixtures.EventRef e = fixtures.event(run);
                p.put("calendar_id", e.calendarId()).put("event_id", e.eventId());
            }
        }
        return p;
    }

    String label() {
        return tool + "(" + (single() ? "" : n) + ") " + strategy;
    }
}
