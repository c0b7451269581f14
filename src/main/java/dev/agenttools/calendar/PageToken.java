package dev.agenttools.calendar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * list_events' {@code page_token}: where a paged listing stands (the range, the text, the page size and each
 * calendar's next page at Calendar), as base64url JSON.
 *
 * <p>It comes back from the caller, so it is read as input: its length is bounded before it is decoded and each
 * field after, with the same bounds the params have (at most {@value CalendarTools#MAX_CALENDARS} calendars, ids of at
 * most {@value CalendarTools#MAX_CALENDAR_ID_CHARS} characters, ...). It is not signed: all it can name is what the
 * caller could ask with {@code calendar_ids}, {@code time_min}, {@code time_max}, {@code query} and
 * {@code max_results} directly, and Calendar checks its own page tokens; a key would also have to outlive the process
 * (a one-shot {@code call} is a process per call), which makes it a secret to keep for no gain. A token this tool
 * makes always passes the bounds: one that would not (a server's page token or calendar id past them) is the
 * server's error when it is made.
 *
 * @param pages each calendar that has more, with its Calendar page token, in the order asked
 */
record PageToken(Instant min, Instant max, String query, int maxResults, Map<String, String> pages) {
    /**
     * The longest page_token: half of the 1 MB a request may be, which leaves room for the rest of it. A real one
     * is far shorter: 250 calendars with Google's page tokens (~100 characters) take ~60,000.
     */
    static final int MAX_CHARS = 512 * 1024;
    /** The longest page token of one calendar kept (Google's are about 100 characters). */
    static final int MAX_CALENDAR_PAGE_CHARS = 4096;
    /** RFC 3339 has four-digit years. */
    private static final Instant FIRST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant END = Instant.parse("9999-12-31T23:59:59.999Z");
    private static final String NOT_OURS = "page_token is not one this tool gave (%s): pass the next_page_token of a "
            + "previous calendar.list-events answer as it was, or leave it out for the first page";

    PageToken {
        pages = Collections.unmodifiableMap(new LinkedHashMap<>(pages));
    }

    /**
     * The token for the next call.
     *
     * @throws ToolException UPSTREAM when Calendar's answers make one past the bounds (a calendar id or page token
     *                       longer than any Google gives): the caller could not pass it back
     */
    String encode() {
        ObjectNode n = Json.object();
        n.put("min", min.toString()).put("max", max.toString()).put("n", maxResults);
        if (query != null) {
            n.put("q", query);
        }
        ObjectNode out = n.putObject("pages");
        pages.forEach((id, page) -> {
            if (id.length() > CalendarTools.MAX_CALENDAR_ID_CHARS) {
                throw upstream("calendar calendarList.list named a calendar id of " + id.length() + " characters, more than the "
                        + CalendarTools.MAX_CALENDAR_ID_CHARS + " a calendar id may be");
            }
            if (page.length() > MAX_CALENDAR_PAGE_CHARS) {
                throw upstream("calendar events.list " + id + " sent a page token of " + page.length() + " characters, more than the "
                        + MAX_CALENDAR_PAGE_CHARS + " kept");
            }
            out.put(id, page);
        });
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(Json.write(n).getBytes(StandardCharsets.UTF_8));
        if (token.length() > MAX_CHARS) {
            throw upstream("the next page of " + pages.size() + " calendars would be a page_token of " + token.length()
                    + " characters, more than the " + MAX_CHARS + " one may be (Calendar's page tokens are too long)");
        }
        return token;
    }

    private static ToolException upstream(String message) {
        return new ToolException(ToolException.Kind.UPSTREAM, message + "; no next_page_token can be given");
    }

    /**
     * Reads a page_token the caller passed back.
     *
     * @throws ToolException INVALID_ARGUMENT naming page_token and what it may be, when it is not one this tool
     *                       gives or is past a bound
     */
    static PageToken decode(String token) {
        if (token.length() > MAX_CHARS) {
            throw ToolException.invalidArgument("page_token must be at most " + MAX_CHARS + " characters (a next_page_token "
                    + "as given), got " + token.length());
        }
        JsonNode n;
        try {
            n = Json.MAPPER.readTree(Base64.getUrlDecoder().decode(token));
        } catch (IllegalArgumentException | IOException e) {
            throw notOurs("not base64url JSON");
        }
        if (n == null || !n.isObject() || !n.path("pages").isObject() || !n.path("min").isTextual() || !n.path("max").isTextual()
                || !n.path("n").isIntegralNumber() || n.has("q") && !n.get("q").isTextual()) {
            throw notOurs("not its fields");
        }
        JsonNode pages = n.get("pages");
        if (pages.isEmpty() || pages.size() > CalendarTools.MAX_CALENDARS) {
            throw ToolException.invalidArgument("page_token names " + pages.size() + " calendars; one names 1 to "
                    + CalendarTools.MAX_CALENDARS + ", as calendar_ids does");
        }
        Map<String, String> byId = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : pages.properties()) {
            String id = e.getKey();
            if (id.isBlank() || id.length() > CalendarTools.MAX_CALENDAR_ID_CHARS) {
                throw ToolException.invalidArgument("page_token names a calendar id of " + id.length() + " characters; an id is 1 to "
                        + CalendarTools.MAX_CALENDAR_ID_CHARS + ", as in calendar_ids");
            }
            JsonNode page = e.getValue();
            if (!page.isTextual() || page.asText().isEmpty() || page.asText().length() > MAX_CALENDAR_PAGE_CHARS) {
                throw ToolException.invalidArgument("page_token holds a page of calendar " + clip(id) + " that is "
                        + (page.isTextual() ? page.asText().length() + " characters" : "not a string") + "; each is a string of 1 to "
                        + MAX_CALENDAR_PAGE_CHARS);
            }
            byId.put(id, page.asText());
        }
        long size = n.get("n").asLong();
        if (!n.get("n").canConvertToLong() || size < 1 || size > CalendarTools.MAX_RESULTS_LIMIT) {
            throw ToolException.invalidArgument("page_token's page size must be 1.." + CalendarTools.MAX_RESULTS_LIMIT
                    + " (as max_results), got " + clip(n.get("n").asText()));
        }
        String query = n.has("q") ? n.get("q").asText() : null;
        if (query != null && Params.codePoints(query) > CalendarTools.MAX_QUERY_CHARS) {
            throw ToolException.invalidArgument("page_token's query must be at most " + CalendarTools.MAX_QUERY_CHARS
                    + " characters (as query), got " + Params.codePoints(query));
        }
        Instant min = instant(n.get("min").asText());
        Instant max = instant(n.get("max").asText());
        if (!min.isBefore(max)) {
            throw ToolException.invalidArgument("page_token's range must end after it starts, got " + min + " .. " + max);
        }
        return new PageToken(min, max, query, (int) size, byId);
    }

    private static Instant instant(String v) {
        try {
            Instant t = Instant.parse(v);
            if (t.isBefore(FIRST) || t.isAfter(END)) {
                throw ToolException.invalidArgument("page_token's range must lie in the years 1 to 9999 (RFC 3339), got " + t);
            }
            return t;
        } catch (DateTimeParseException e) {
            throw ToolException.invalidArgument("page_token's range must be two RFC 3339 times, got \"" + clip(v) + "\"");
        }
    }

    private static ToolException notOurs(String why) {
        return ToolException.invalidArgument(String.format(NOT_OURS, why));
    }

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
