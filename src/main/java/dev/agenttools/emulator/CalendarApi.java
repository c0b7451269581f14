package dev.agenttools.emulator;

import java.time.Clock;
import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Calendar v3 REST surface (read methods): maps a method and path under {@code /calendar/v3/} to the resource
 * method that answers it. Paths are those of the discovery document; ids arrive decoded ({@code #}, {@code @}).
 * Each request costs one unit of the user's Calendar quota (600 a minute by default, as Google's).
 */
final class CalendarApi {
    /** Access roles from least to most, as calendarList's {@code minAccessRole} orders them. */
    static final List<String> ROLES = List.of("freeBusyReader", "reader", "writer", "owner");
    static final String ROOT = "/calendar/v3";
    private static final String CALENDAR = "/calendars/([^/]+)";

    private record Entry(String method, Pattern path, String name, BiFunction<ApiRequest, Matcher, ApiResponse> handler) {
    }

    private final List<Entry> entries;
    private final QuotaBucket quota;

    CalendarApi(CalendarSet set, QuotaBucket quota, Clock clock) {
        this.quota = quota;
        CalendarResource r = new CalendarResource(set, clock);
        entries = List.of(
                entry("GET", "/users/me/calendarList", "calendarList.list", r::listCalendars),
                entry("GET", "/users/me/calendarList/([^/]+)", "calendarList.get", r::getListEntry),
                entry("GET", CALENDAR, "calendars.get", r::getCalendar),
                entry("GET", CALENDAR + "/events", "events.list", r::listEvents),
                entry("GET", CALENDAR + "/events/([^/]+)", "events.get", r::getEvent),
                entry("GET", CALENDAR + "/events/([^/]+)/instances", "events.instances", r::instances),
                entry("POST", "/freeBusy", "freebusy.query", r::freeBusy),
                entry("GET", "/colors", "colors.get", r::colors));
    }

    /** Whether a path is Calendar's. */
    static boolean handles(String path) {
        return path.startsWith(ROOT + "/");
    }

    private static Entry entry(String method, String path, String name, BiFunction<ApiRequest, Matcher, ApiResponse> handler) {
        return new Entry(method, Pattern.compile(Pattern.quote(ROOT) + path), name, handler);
    }

    /** The route for this request; 404 for an unknown path, 405 for a known path with the wrong method. */
    Route route(ApiRequest request) {
        boolean pathKnown = false;
        for (Entry e : entries) {
            Matcher m = e.path.matcher(request.path());
            if (m.matches()) {
                pathKnown = true;
                if (e.method.equals(request.method())) {
                    return new Route(e.name, 1, quota, e.handler, m);
                }
            }
        }
        if (pathKnown) {
            throw ApiError.methodNotAllowed(request.method(), request.path());
        }
        throw ApiError.notFound("Method not found: " + request.method() + " " + request.path());
    }
}
