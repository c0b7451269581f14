package dev.agenttools.calendar;

import com.google.api.services.calendar.model.CalendarListEntry;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.Events;
import dev.agenttools.google.GoogleErrors;
import dev.agenttools.google.Outcome;
import dev.agenttools.google.Strategy;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * list_events: the events of several calendars in a time range, fetched calendar by calendar (sequential), all at
 * once (concurrent, bounded by the user's in-flight cap) or in batch requests, then merged in start order, all-day
 * events first within their day. A calendar that is gone or not readable is skipped and named, never failing the
 * call. Paging: each calendar pages on its own; the answer's token carries the range, the text and each calendar's
 * next page, so the next call asks only the calendars that have more ({@link PageToken}, bounded as input). A page
 * whose next token is the one it was asked with fails the call: an agent following it would page forever. Thread-safe.
 */
final class EventLister {
    private final CalendarService service;

    EventLister(CalendarService service) {
        this.service = service;
    }

    /**
     * What the caller asked: calendars (null: every selected one), a range (RFC 3339 times or dates; null: today in
     * the user's zone), free text, events per calendar (null: the page token's, else the default), the previous
     * answer's page token.
     */
    record Request(List<String> calendarIds, String timeMin, String timeMax, String query, Integer maxResults,
                   String pageToken, Strategy strategy, Deadline deadline, String accessToken) {
    }

    ToolResult list(Request r) throws InterruptedException {
        PageToken asked = r.pageToken() == null ? null : PageToken.decode(r.pageToken());
        CalendarService.Session s = service.sessionFor(r.accessToken());
        List<String> ids;
        Instant min;
        Instant max;
        String query;
        ZoneId zone = ZoneOffset.UTC;
        if (asked != null) {
            ids = List.copyOf(asked.pages().keySet());
            min = asked.min();
            max = asked.max();
            query = asked.query();
        } else {
            boolean needList = r.calendarIds() == null || TimeRange.needsZone(r.timeMin(), r.timeMax());
            List<CalendarListEntry> calendars = needList ? service.calendars(s, r.deadline()) : List.of();
            zone = TimeRange.userZone(calendars);
            ids = r.calendarIds() != null ? r.calendarIds() : selected(calendars);
            if (ids.size() > CalendarTools.MAX_CALENDARS) {
                // the bound calendar_ids has, kept for the default too: one call fans out to at most that many
                throw ToolException.invalidArgument("calendar_ids: the account shows " + ids.size() + " calendars, more than the "
                        + CalendarTools.MAX_CALENDARS + " one call asks; name up to " + CalendarTools.MAX_CALENDARS + " in calendar_ids");
            }
            TimeRange range = TimeRange.of(r.timeMin(), r.timeMax(), zone);
            min = range.min();
            max = range.max();
            query = r.query();
        }
        int perCalendar = r.maxResults() != null ? r.maxResults() : asked != null ? asked.maxResults() : CalendarTools.DEFAULT_MAX_RESULTS;
        CalendarService.EventQuery q = new CalendarService.EventQuery(min, max, query, perCalendar);
        Map<String, String> pages = asked == null ? Map.of() : asked.pages();
        Strategy strategy = r.strategy().resolve(ids.size());
        Strategy.Source<String, Outcome<Events>> source = source(s, q, pages, r.deadline());
        List<Outcome<Events>> fetched;
        try (var _ = service.admitEvents(s, ids.size(), strategy, r.deadline())) {
            fetched = strategy.fetch(ids, source, new Strategy.Limits(service.maxInFlight(s), service.settings().batchSize()),
                    r.deadline(), "calendar events of " + ids.size() + " calendars");
        }
        Map<String, Outcome<Events>> answers = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            answers.put(ids.get(i), fetched.get(i));
        }
        return answer(ids, answers, q, pages, zone, strategy.backend());
    }

    /** A calendar's events on a request of its own or in a batch, a failure kept as that calendar's outcome. */
    private Strategy.Source<String, Outcome<Events>> source(CalendarService.Session s, CalendarService.EventQuery q,
                                                            Map<String, String> pages, Deadline deadline) {
        return new Strategy.Source<>() {
            @Override
            public Outcome<Events> one(String id) throws InterruptedException {
                try {
                    return new Outcome.Ok<>(service.events(s, id, q, pages.get(id), deadline));
                } catch (ToolException e) {
                    return new Outcome.Failed<>(e);
                }
            }

            @Override
            public Map<String, Outcome<Events>> batch(List<String> chunk) throws InterruptedException {
                return service.eventsBatch(s, chunk, q, pages, deadline);
            }
        };
    }

    /** @param asked each calendar's page token this call asked with (absent: its first page) */
    private static ToolResult answer(List<String> ids, Map<String, Outcome<Events>> answers, CalendarService.EventQuery q,
                                     Map<String, String> asked, ZoneId zone, Backend backend) {
        List<CalendarAnswers.EventSummary> events = new ArrayList<>();
        List<CalendarAnswers.Skipped> skipped = new ArrayList<>();
        Map<String, String> more = new LinkedHashMap<>();
        Map<CalendarAnswers.EventSummary, Instant> starts = new IdentityHashMap<>();
        for (String id : ids) {
            switch (answers.get(id)) {
                case Outcome.Ok<Events> ok -> {
                    ZoneId calendarZone = TimeRange.zone(ok.value().getTimeZone());
                    for (Event e : ok.value().getItems() == null ? List.<Event>of() : ok.value().getItems()) {
                        CalendarAnswers.EventSummary summary = CalendarAnswers.event(id, e);
                        events.add(summary);
                        starts.put(summary, startOf(summary, calendarZone));
                    }
                    String next = ok.value().getNextPageToken();
                    if (next != null && next.equals(asked.get(id))) {
                        // the caller follows the tokens, call after call: the same one back would page forever
                        throw new ToolException(ToolException.Kind.UPSTREAM, "calendar events.list " + id + ": the server sent "
                                + "the same page token again (the one this page was asked with), so its pages would never end; not followed",
                                null, true);
                    }
                    if (next != null && !next.isEmpty()) {
                        more.put(id, next);
                    }
                }
                case Outcome.Failed<Events> failed -> {
                    if (!skippable(failed.error())) {
                        throw failed.error();
                    }
                    skipped.add(new CalendarAnswers.Skipped(id, failed.error().kind().code(), failed.error().kind() == ToolException.Kind.NOT_FOUND
                            ? "not found: deleted, or no longer shared with this account"
                            : "not readable with this account (Google answered 403: " + GoogleErrors.message(failed.error().getCause()) + ")"));
                }
            }
        }
        // in start order; within a day (in the user's zone), all-day events first
        Map<String, Integer> order = new HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            order.put(ids.get(i), i);
        }
        // an all-day event's day is its date wherever its calendar is; a timed event's day is the user's
        events.sort(Comparator.comparing((CalendarAnswers.EventSummary e) -> e.allDay() ? LocalDate.parse(e.start())
                        : starts.get(e).atZone(zone).toLocalDate())
                .thenComparing(e -> !e.allDay()).thenComparing(starts::get).thenComparing(e -> order.get(e.calendarId()))
                .thenComparing(CalendarAnswers.EventSummary::id));
        String next = more.isEmpty() ? null : new PageToken(q.min(), q.max(), q.text(), q.maxResults(), more).encode();
        return new ToolResult(Json.tree(new CalendarAnswers.EventList(events, next, skipped)), backend, events.size());
    }

    /** Gone (404) or not readable (403 without a rate-limit reason): the calendar is skipped, not the call failed. */
    private static boolean skippable(ToolException e) {
        if (e.kind() == ToolException.Kind.NOT_FOUND) {
            return true;
        }
        return e.kind() == ToolException.Kind.PERMISSION_DENIED;
    }

    private static Instant startOf(CalendarAnswers.EventSummary e, ZoneId calendarZone) {
        return e.allDay() ? LocalDate.parse(e.start()).atStartOfDay(calendarZone).toInstant() : OffsetDateTime.parse(e.start()).toInstant();
    }

    /** Every calendar the user shows (selected, not hidden): the default of the tools that span calendars. */
    static List<String> selected(List<CalendarListEntry> calendars) {
        return calendars.stream().filter(c -> Boolean.TRUE.equals(c.getSelected()) && !Boolean.TRUE.equals(c.getHidden()))
                .map(CalendarListEntry::getId).toList();
    }
}
