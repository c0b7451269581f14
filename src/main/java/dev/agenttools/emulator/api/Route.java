package dev.agenttools.emulator.api;

import java.util.function.BiFunction;
import java.util.regex.Matcher;

/**
 * A matched API method: its name, what it costs and from which quota, and how to answer it.
 *
 * @param quotaUnits what the call takes from {@code quota} (Gmail's units per method; 1 per Calendar request)
 * @param quota      the user's bucket of the API the method belongs to
 */
public record Route(String name, int quotaUnits, QuotaBucket quota, BiFunction<ApiRequest, Matcher, ApiResponse> handler, Matcher match) {
    public ApiResponse answer(ApiRequest request) {
        return handler.apply(request, match);
    }
}
