package dev.agenttools.calendar;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.AccessToken;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.Set;
import java.util.function.UnaryOperator;

import static dev.agenttools.calendar.CalendarParams.commonProperties;
import static dev.agenttools.calendar.CalendarParams.schema;
import static dev.agenttools.calendar.CalendarTools.GET_EVENT;

/** get_event: one event in full. */
record GetEvent(CalendarService service, UnaryOperator<String> htmlToText) implements Tool {
    private static final Set<String> PARAMS = Set.of("calendar_id", "event_id", "include_html", AccessToken.PARAM);

    @Override
    public ToolSpec spec() {
        ObjectNode p = commonProperties();
        p.putObject("event_id").put("type", "string").put("minLength", 1)
                .put("description", "The event's id, from calendar.list-events (an instance of a series has its own id).");
        p.putObject("calendar_id").put("type", "string").put("default", "primary")
                .put("description", "The calendar it is in (its calendar_id in calendar.list-events).");
        p.putObject("include_html").put("type", "boolean").put("default", false)
                .put("description", "Also return an HTML description as description_html.");
        ObjectNode schema = schema("Params of calendar.get-event", p);
        schema.putArray("required").add("event_id");
        return new ToolSpec(GET_EVENT, "Get one event in full: summary, description as readable text (HTML turned into "
                + "text with links kept), start, end, time_zone, location, status, organizer, attendees with their answers, "
                + "conference_link, attachments, recurrence (for a series), recurring_event_id (for an instance), html_link.",
                schema, ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = Params.of(call, PARAMS);
        String eventId = p.requiredString("event_id");
        String calendarId = p.string("calendar_id", "primary");
        if (calendarId.isBlank()) {
            throw ToolException.invalidArgument("calendar_id must be a calendar id (from calendar.list-calendars) or 'primary', got \"\"");
        }
        boolean html = p.bool("include_html", false);
        CalendarService.Session s = service.sessionFor(AccessToken.of(p));
        CalendarAnswers.EventDetail detail = CalendarAnswers.detail(calendarId,
                service.event(s, calendarId, eventId, call.deadline()), htmlToText, html);
        return new ToolResult(Json.tree(detail), Backend.SEQUENTIAL, 1);
    }
}
