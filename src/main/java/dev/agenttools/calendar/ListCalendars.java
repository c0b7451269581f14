package dev.agenttools.calendar;

import dev.agenttools.google.AccessToken;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.List;
import java.util.Set;

import static dev.agenttools.calendar.CalendarParams.commonProperties;
import static dev.agenttools.calendar.CalendarParams.schema;
import static dev.agenttools.calendar.CalendarTools.LIST_CALENDARS;

/** list_calendars: the calendars in the user's list. */
record ListCalendars(CalendarService service) implements Tool {
    private static final Set<String> PARAMS = Set.of(AccessToken.PARAM);

    @Override
    public ToolSpec spec() {
        return new ToolSpec(LIST_CALENDARS, "List the user's calendars: id, summary, primary, access_role, time_zone, "
                + "color, selected and hidden for each, the primary first. Use an id with calendar.list-events.",
                schema("Params of calendar.list-calendars", commonProperties()), ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = Params.of(call, PARAMS);
        CalendarService.Session s = service.sessionFor(AccessToken.of(p));
        List<CalendarAnswers.CalendarSummary> calendars = service.calendars(s, call.deadline()).stream()
                .map(CalendarAnswers::calendar).sorted((a, b) -> Boolean.compare(b.primary(), a.primary())).toList();
        return new ToolResult(Json.tree(new CalendarAnswers.CalendarList(calendars)), Backend.SEQUENTIAL, calendars.size());
    }
}
