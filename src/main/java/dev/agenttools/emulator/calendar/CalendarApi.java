package dev.agenttools.emulator.calendar;

import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.QuotaBucket;
import dev.agenttools.emulator.api.Route;
import dev.agenttools.emulator.api.RouteTable;

import java.time.Clock;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The Calendar v3 REST surface (read methods): maps a method and path under {@code /calendar/v3/} to the resource
 * method that answers it. Paths are those of the discovery document; ids arrive decoded ({@code #}, {@code @}).
 * Each request costs one unit of the user's Calendar quota (600 a minute by default, as Google's).
 */
public final class CalendarApi {
    /** Access roles from least to most, as calendarList's {@code minAccessRole} orders them. */
    static final List<String> ROLES = List.of("freeBusyReader", "reader", "writer", "owner");
    static final String ROOT = "/calendar/v3";
    private static final String CALENDAR = "/calendars/([^/]+)";

    private final RouteTable routes;

    public CalendarApi(CalendarSet set, QuotaBucket quota, Clock clock) {
        CalendarResource r = new CalendarResource(set, clock);
        routes = new RouteTable(Pattern.quote(ROOT), quota)
                .add("GET", "/users/me/calendarList", "calendarList.list", 1, r::listCalendars)
                .add("GET", "/users/me/calendarList/([^/]+)", "calendarList.get", 1, r::getListEntry)
                .add("GET", CALENDAR, "calendars.get", 1, r::getCalendar)
                .add("GET", CALENDAR + "/events", "events.list", 1, r::listEvents)
                .add("GET", CALENDAR + "/events/([^/]+)", "events.get", 1, r::getEvent)
                .add("GET", CALENDAR + "/events/([^/]+)/instances", "events.instances", 1, r::instances)
                .add("POST", "/freeBusy", "freebusy.query", 1, r::freeBusy)
                .add("GET", "/colors", "colors.get", 1, r::colors);
    }

    /** Whether a path is Calendar's. */
    public static boolean handles(String path) {
        return path.startsWith(ROOT + "/");
    }

    /** The route for this request; 404 for an unknown path, 405 for a known path with the wrong method. */
    public Route route(ApiRequest request) {
        return routes.route(request);
    }
}
