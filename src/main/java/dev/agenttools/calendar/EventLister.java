package dev.agenttools.calendar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.api.client.http.HttpResponseException;
import com.google.api.services.calendar.model.CalendarListEntry;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.Events;
import dev.agenttools.google.FanOut;
import dev.agenttools.google.GoogleErrors;
import dev.agenttools.google.Outcome;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * list_events: the events of several calendars in a time range, fetched calendar by calendar (sequential), all at
 * once (concurrent, bounded by the user's in-flight cap) or in batch requests, then merged in start order, all-day
 * events first within their day. A calendar that is gone or not readable is skipped and named, never failing the
 * call. Paging: each calendar pages on its own; the answer's token carries the range, the text and each calendar's
 * next page, so the next call asks only the calendars that have more. Thread-safe.
 */
final class EventLister {
    static final List<String> STRATEGIES = List.of("auto", "sequential", "concurrent", "batch");
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
                   String pageToken, String strategy, Deadline deadline, String accessToken) {
    }

    /** Where a paged listing stands: the question and each calendar's next page. */
    private record Position(Instant min, Instant max, String query, int maxResults, Map<String, String> pages) {
    }

    ToolResult list(Request r) {
        Position asked = r.pageToken() == null ? null : decode(r.pageToken());
        return FanOut.one(r.deadline(), "calendar list", () -> {
            CalendarService.Session s = service.open(r.accessToken());
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
                TimeRange range = TimeRange.of(r.timeMin(), r.timeMax(), zone);
                min = range.min();
                max = range.max();
                query = r.query();
            }
            int perCalendar = r.maxResults() != null ? r.maxResults() : asked != null ? asked.maxResults() : CalendarTools.DEFAULT_MAX_RESULTS;
            CalendarService.EventQuery q = new CalendarService.EventQuery(min, max, query, perCalendar);
            Map<String, String> pages = asked == null ? Map.of() : asked.pages();
            String strategy = r.strategy().equals("auto") ? (ids.size() <= 1 ? "sequential" : "concurrent") : r.strategy();
            Map<String, Outcome<Events>> answers = fetch(s, ids, q, pages, strategy, r.deadline());
            return answer(ids, answers, q, zone, strategy);
        });
    }

    private Map<String, Outcome<Events>> fetch(CalendarService.Session s, List<String> ids, CalendarService.EventQuery q,
                                               Map<String, String> pages, String strategy, Deadline deadline)
            throws InterruptedException {
        Map<String, Outcome<Events>> out = new LinkedHashMap<>();
        switch (strategy) {
            case "sequential" -> {
                for (String id : ids) {
                    out.put(id, one(s, id, q, pages.get(id), deadline));
                }
            }
            case "concurrent" -> {
                List<Outcome<Events>> all = FanOut.map(ids, service.maxInFlight(s), deadline, "calendar events of " + ids.size()
                        + " calendars", id -> one(s, id, q, pages.get(id), deadline));
                for (int i = 0; i < ids.size(); i++) {
                    out.put(ids.get(i), all.get(i));
                }
            }
            default -> {
                int size = Math.max(1, Math.min(service.settings().batchSize(), service.maxInFlight(s)));
                for (int i = 0; i < ids.size(); i += size) {
                    out.putAll(service.eventsBatch(s, ids.subList(i, Math.min(ids.size(), i + size)), q, pages, deadline));
                }
            }
        }
        return out;
    }

    private Outcome<Events> one(CalendarService.Session s, String id, CalendarService.EventQuery q, String page, Deadline deadline)
            throws InterruptedException {
        try {
            return new Outcome.Ok<>(service.events(s, id, q, page, deadline));
        } catch (ToolException e) {
            return new Outcome.Failed<>(e);
        }
    }

    private static ToolResult answer(List<String> ids, Map<String, Outcome<Events>> answers, CalendarService.EventQuery q,
                                     ZoneId zone, String strategy) {
        List<CalendarAnswers.EventSummary> events = new ArrayList<>();
        List<CalendarAnswers.Skipped> skipped = new ArrayList<>();
        Map<String, String> more = new LinkedHashMap<>();
        Map<CalendarAnswers.EventSummary, Instant> starts = new java.util.IdentityHashMap<>();
        for (String id : ids) {
            switch (answers.get(id)) {
                case Outcome.Ok<Events> ok -> {
                    ZoneId calendarZone = TimeRange.zone(ok.value().getTimeZone());
                    for (Event e : ok.value().getItems() == null ? List.<Event>of() : ok.value().getItems()) {
                        CalendarAnswers.EventSummary summary = CalendarAnswers.event(id, e);
                        events.add(summary);
                        starts.put(summary, startOf(summary, calendarZone));
                    }
                    if (ok.value().getNextPageToken() != null) {
                        more.put(id, ok.value().getNextPageToken());
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
        Map<String, Integer> order = new java.util.HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            order.put(ids.get(i), i);
        }
        // an all-day event's day is its date wherever its calendar is; a timed event's day is the user's
        events.sort(Comparator.comparing((CalendarAnswers.EventSummary e) -> e.allDay() ? LocalDate.parse(e.start())
                        : starts.get(e).atZone(zone).toLocalDate())
                .thenComparing(e -> !e.allDay()).thenComparing(starts::get).thenComparing(e -> order.get(e.calendarId()))
                .thenComparing(CalendarAnswers.EventSummary::id));
        String next = more.isEmpty() ? null : encode(new Position(q.min(), q.max(), q.text(), q.maxResults(), more));
        return new ToolResult(Json.tree(new CalendarAnswers.EventList(events, next, skipped)), strategy, events.size(), Duration.ZERO);
    }

    /** Gone (404) or not readable (403 without a rate-limit reason): the calendar is skipped, not the call failed. */
    private static boolean skippable(ToolException e) {
        if (e.kind() == ToolException.Kind.NOT_FOUND) {
            return true;
        }
        return e.kind() == ToolException.Kind.UNAUTHENTICATED && e.getCause() instanceof HttpResponseException h && h.getStatusCode() == 403;
    }

    private static Instant startOf(CalendarAnswers.EventSummary e, ZoneId calendarZone) {
        return e.allDay() ? LocalDate.parse(e.start()).atStartOfDay(calendarZone).toInstant() : OffsetDateTime.parse(e.start()).toInstant();
    }

    /** Every calendar the user shows (selected, not hidden): the default of the tools that span calendars. */
    static List<String> selected(List<CalendarListEntry> calendars) {
        return calendars.stream().filter(c -> Boolean.TRUE.equals(c.getSelected()) && !Boolean.TRUE.equals(c.getHidden()))
                .map(CalendarListEntry::getId).toList();
    }

    private static String encode(Position p) {
        ObjectNode n = Json.object();
        n.put("min", p.min().toString()).put("max", p.max().toString()).put("n", p.maxResults());
        if (p.query() != null) {
            n.put("q", p.query());
        }
        ObjectNode pages = n.putObject("pages");
        p.pages().forEach(pages::put);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.write(n).getBytes(StandardCharsets.UTF_8));
    }

    private static Position decode(String token) {
        try {
            JsonNode n = Json.MAPPER.readTree(Base64.getUrlDecoder().decode(token));
            Map<String, String> pages = new LinkedHashMap<>();
            n.get("pages").properties().forEach(e -> pages.put(e.getKey(), e.getValue().asText()));
            if (pages.isEmpty()) {
                throw new IllegalArgumentException("no pages");
            }
            int max = n.get("n").asInt();
            if (max < 1 || max > CalendarTools.MAX_RESULTS_LIMIT) {
                throw new IllegalArgumentException("n");
            }
            return new Position(Instant.parse(n.get("min").asText()), Instant.parse(n.get("max").asText()),
                    n.hasNonNull("q") ? n.get("q").asText() : null, max, pages);
        } catch (RuntimeException | java.io.IOException e) {
            throw ToolException.invalidArgument("page_token is not one this tool gave: pass the next_page_token of a previous "
                    + "calendar.list-events answer, or leave it out for the first page");
        }
    }
}
