package dev.agenttools.emulator.api;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An API's methods by HTTP method and path pattern, each with its quota cost, as the discovery document lists them.
 * Built once, then read by many threads.
 */
public final class RouteTable {
    private record Entry(String method, Pattern path, String name, int units, BiFunction<ApiRequest, Matcher, ApiResponse> handler) {
    }

    private final String prefix;
    private final QuotaBucket quota;
    private final List<Entry> entries = new ArrayList<>();

    /** @param prefix a regular expression every path starts with (its groups come first in each match) */
    public RouteTable(String prefix, QuotaBucket quota) {
        this.prefix = prefix;
        this.quota = quota;
    }

    public RouteTable add(String method, String path, String name, int units, BiFunction<ApiRequest, Matcher, ApiResponse> handler) {
        entries.add(new Entry(method, Pattern.compile(prefix + path), name, units, handler));
        return this;
    }

    /** The route for this request; 404 for an unknown path, 405 for a known path with the wrong method. */
    public Route route(ApiRequest request) {
        boolean pathKnown = false;
        for (Entry e : entries) {
            Matcher m = e.path.matcher(request.path());
            if (m.matches()) {
                pathKnown = true;
                if (e.method.equals(request.method())) {
                    return new Route(e.name, e.units, quota, e.handler, m);
                }
            }
        }
        if (pathKnown) {
            throw ApiError.methodNotAllowed(request.method(), request.path());
        }
        throw ApiError.notFound("Method not found: " + request.method() + " " + request.path());
    }
}
