package dev.agenttools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * What the benchmark's rows read, found once through the tools before any row is timed: emails for get_email,
 * events for get_event, and how many calendars list_events spans by default (its size in the table).
 *
 * @param messageIds the INBOX's newest emails
 * @param events     events of the coming weeks across the shown calendars
 * @param calendars  the calendars the user shows (selected, not hidden)
 */
record Fixtures(List<String> messageIds, List<EventRef> events, int calendars) {
    /** An event as get_event asks for it. */
    record EventRef(String calendarId, String eventId) {
    }

    Fixtures {
        messageIds = List.copyOf(messageIds);
        events = List.copyOf(events);
    }

    /** Reads what the given tools need: Gmail's fixtures when {@code gmail}, Calendar's when {@code calendar}. */
    static Fixtures load(ToolRegistry tools, boolean gmail, boolean calendar) {
        return new Fixtures(gmail ? messageIds(tools) : List.of(), calendar ? events(tools) : List.of(),
                calendar ? shownCalendars(tools) : 0);
    }

    String messageId(int run) {
        return messageIds.get(run % messageIds.size());
    }

    EventRef event(int run) {
        return events.get(run % events.size());
    }

    private static List<String> messageIds(ToolRegistry tools) {
        var params = Json.object().put("max_results", 10).put("strategy", "sequential");
        JsonNode emails = call(tools, "gmail.list-emails", params).get("emails");
        List<String> ids = new ArrayList<>();
        emails.forEach(m -> ids.add(m.get("id").asText()));
        if (ids.isEmpty()) {
            throw new IllegalStateException("the mailbox's INBOX is empty: get_email has nothing to fetch");
        }
        return ids;
    }

    private static List<EventRef> events(ToolRegistry tools) {
        LocalDate today = LocalDate.now();
        var params = Json.object().put("time_min", today.toString()).put("time_max", today.plusWeeks(4).toString())
                .put("max_results", 20).put("strategy", "sequential");
        List<EventRef> events = new ArrayList<>();
        call(tools, "calendar.list-events", params).get("events")
                .forEach(e -> events.add(new EventRef(e.get("calendar_id").asText(), e.get("id").asText())));
        if (events.isEmpty()) {
            throw new IllegalStateException("the shown calendars have no event in the next four weeks: get_event has nothing to fetch");
        }
        return events;
    }

    private static int shownCalendars(ToolRegistry tools) {
        int shown = 0;
        for (JsonNode c : call(tools, "calendar.list-calendars", Json.object()).get("calendars")) {
            if (c.path("selected").asBoolean() && !c.path("hidden").asBoolean()) {
                shown++;
            }
        }
        return shown;
    }

    private static JsonNode call(ToolRegistry tools, String command, ObjectNode params) {
        return tools.call(new ToolCall(command, params, "bench", null)).data();
    }
}
