package dev.agenttools.calendar;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.model.CalendarListEntry;
import dev.agenttools.google.AccessToken;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.agenttools.calendar.CalendarParams.commonProperties;
import static dev.agenttools.calendar.CalendarParams.schema;
import static dev.agenttools.calendar.CalendarTools.FREE_BUSY;
import static dev.agenttools.calendar.CalendarTools.MAX_CALENDARS;
import static dev.agenttools.calendar.CalendarTools.MAX_CALENDAR_ID_CHARS;

/** free_busy: busy blocks across calendars. */
record FreeBusy(CalendarService service) implements Tool {
    private static final Set<String> PARAMS = Set.of("calendar_ids", "time_min", "time_max", AccessToken.PARAM);

    @Override
    public ToolSpec spec() {
        ObjectNode p = commonProperties();
        p.putObject("time_min").put("type", "string").put("description", "Start: an RFC 3339 time with an offset or a date. Default: today.");
        p.putObject("time_max").put("type", "string").put("description", "End, exclusive: a time, or a date (up to the end of that day).");
        ObjectNode ids = p.putObject("calendar_ids").put("type", "array").put("maxItems", MAX_CALENDARS)
                .put("description", "Calendar ids, or other people's addresses whose free/busy you may see. Default: every selected calendar.");
        ids.putObject("items").put("type", "string").put("minLength", 1).put("maxLength", MAX_CALENDAR_ID_CHARS);
        return new ToolSpec(FREE_BUSY, "When each calendar is busy in a time range (Calendar's freeBusy): busy blocks "
                + "[{start, end}] per calendar, overlapping events merged, free (transparent) and cancelled events left "
                + "out. A calendar that cannot be read is named in skipped_calendars.", schema("Params of calendar.free-busy", p), ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = Params.of(call, PARAMS);
        List<String> asked = ListEvents.calendarIds(call.params().get("calendar_ids"));
        String timeMin = p.string("time_min", null);
        String timeMax = p.string("time_max", null);
        CalendarService.Session s = service.sessionFor(AccessToken.of(p));
        List<CalendarListEntry> calendars =
                asked == null || TimeRange.needsZone(timeMin, timeMax) ? service.calendars(s, call.deadline()) : List.of();
        ZoneId zone = TimeRange.userZone(calendars);
        TimeRange range = TimeRange.of(timeMin, timeMax, zone);
        List<String> ids = asked != null ? asked : EventLister.selected(calendars);
        List<CalendarAnswers.Busy> busy = new ArrayList<>();
        List<CalendarAnswers.Skipped> skipped = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += CalendarService.FREE_BUSY_CALENDARS) {
            List<String> chunk = ids.subList(i, Math.min(ids.size(), i + CalendarService.FREE_BUSY_CALENDARS));
            var answer = service.freeBusy(s, chunk, range.min(), range.max(), call.deadline());
            for (String id : chunk) {
                var c = answer.getCalendars() == null ? null : answer.getCalendars().get(id);
                if (c == null || c.getErrors() != null && !c.getErrors().isEmpty()) {
                    skipped.add(CalendarTools.skippedFreeBusy(id, c == null ? "missing" : c.getErrors().getFirst().getReason()));
                    continue;
                }
                List<CalendarAnswers.Period> periods = c.getBusy() == null ? List.of() : c.getBusy().stream()
                        .map(b -> new CalendarAnswers.Period(local(b.getStart(), zone), local(b.getEnd(), zone))).toList();
                busy.add(new CalendarAnswers.Busy(id, periods));
            }
        }
        return new ToolResult(Json.tree(new CalendarAnswers.FreeBusy(busy, skipped)), Backend.SEQUENTIAL, busy.size());
    }

    private static String local(DateTime t, ZoneId zone) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
                Instant.ofEpochMilli(t.getValue()).atZone(zone).toOffsetDateTime());
    }
}
