package dev.agenttools.calendar;

import com.google.api.client.googleapis.batch.BatchRequest;
import com.google.api.client.googleapis.json.GoogleJsonErrorContainer;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.client.util.DateTime;
import com.google.api.services.calendar.Calendar;
import com.google.api.services.calendar.model.CalendarList;
import com.google.api.services.calendar.model.CalendarListEntry;
import com.google.api.services.calendar.model.Event;
import com.google.api.services.calendar.model.Events;
import com.google.api.services.calendar.model.FreeBusyRequest;
import com.google.api.services.calendar.model.FreeBusyRequestItem;
import com.google.api.services.calendar.model.FreeBusyResponse;
import dev.agenttools.google.Account;
import dev.agenttools.google.BoundedBody;
import dev.agenttools.google.GoogleCalls;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.google.Outcome;
import dev.agenttools.google.PageTokens;
import dev.agenttools.google.Retry;
import dev.agenttools.google.Strategy;
import dev.agenttools.google.StreamingJson;
import dev.agenttools.tool.Deadline;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Calendar's read calls as one user, on the official Calendar client, each paced, retried and translated on the
 * path Gmail's calls take ({@link GoogleCalls}, with Calendar's own quota numbers). Thread-safe.
 */
final class CalendarService {
    private static final String APPLICATION = "agent-tools";
    /** Calendar counts requests, not units: each costs one. */
    private static final int UNITS = 1;
    /** Calendars one freeBusy.query may name (Google's calendarExpansionMax). */
    static final int FREE_BUSY_CALENDARS = 50;
    /** calendarList.list's largest page. */
    private static final int CALENDAR_PAGE = 250;
    /**
     * The most calendarList pages one call reads: 2,500 calendars at {@value #CALENDAR_PAGE} a page, ten times what
     * one list_events call may ask ({@link CalendarTools#MAX_CALENDARS}). Google sets no limit on the calendars a
     * user may have in the list (rooms and colleagues' calendars add up in a large organisation), so the cap is not
     * what list_events asks; it is there so that a server that hands out page after page ends each read of the list
     * in 10 requests rather than at the call's deadline.
     */
    static final int CALENDAR_LIST_PAGES = 10;
    /**
     * What the list tools read of a calendar (CalendarAnswers.calendar, the default calendars, the user's zone):
     * a partial response leaves out the reminders, notification settings and conference properties of each.
     */
    public static final String CALENDAR_LIST_FIELDS = "nextPageToken,items(id,summary,summaryOverride,primary,accessRole,timeZone,"
            + "backgroundColor,selected,hidden)";
    /**
     * What list_events reads of an event (CalendarAnswers.event): descriptions, which may run to kilobytes of HTML,
     * reminders, creators and attachments stay on the server until get_event asks for them.
     */
    public static final String EVENT_LIST_FIELDS = "timeZone,nextPageToken,items(id,summary,start,end,location,status,"
            + "organizer(email,displayName),attendees(email,displayName,responseStatus,optional),htmlLink,recurringEventId,hangoutLink)";
    private static final String CALENDAR_LIST_FIELDS_QUERY = GoogleConnection.encode(CALENDAR_LIST_FIELDS);
    private static final String EVENT_LIST_FIELDS_QUERY = GoogleConnection.encode(EVENT_LIST_FIELDS);
    private final CalendarSettings settings;
    private final GoogleConnection connection;
    private final GoogleCalls calls;

    /** @param connection shared with the other Google tools (one transport, one stored sign-in) */
    public CalendarService(CalendarSettings settings, GoogleConnection connection) {
        this(settings, connection, Retry.DEFAULT);
    }

    CalendarService(CalendarSettings settings, GoogleConnection connection, Retry retry) {
        this.settings = settings;
        this.connection = connection;
        this.calls = new GoogleCalls("Calendar", settings.quotaPerMinute(), settings.burst(), settings.maxInFlight(), retry,
                connection.pacingShare(), connection.pacingStats());
    }

    /** One call's way to Calendar: the account it acts as, the client that acts as it and its lean GETs' session. */
    record Session(Account account, Calendar client, GoogleConnection.Session google) {
    }

    CalendarSettings settings() {
        return settings;
    }

    /** A session for one call: the call's token, else the configured one, else the stored sign-in. */
    Session sessionFor(String accessToken) {
        GoogleConnection.Session google = connection.sessionFor(accessToken, this::primaryCalendarId);
        return new Session(google.account(), new Calendar.Builder(connection.transport(), GsonFactory.getDefaultInstance(),
                connection.initializer(google)).setApplicationName(APPLICATION).setRootUrl(settings.rootUrl()).build(), google);
    }

    /** The most of a calendarList entry read when asking whose the primary calendar is (it is a few hundred bytes). */
    private static final long MAX_ENTRY_BYTES = 64 * 1024;

    /**
     * Who the session's credential is, for the connection: the primary calendar's id is its owner's address
     * (calendarList.get, the scope the tools' calendarList.list already needs; one request).
     */
    String primaryCalendarId(GoogleConnection.Session google, Deadline deadline) throws InterruptedException {
        String url = settings.rootUrl() + "calendar/v3/users/me/calendarList/primary?fields=id";
        return calls.one(google.account(), "calendar calendarList.get primary", UNITS, deadline,
                () -> connection.get(google, url, GoogleConnection.USER_AGENT, false, MAX_ENTRY_BYTES,
                        in -> GsonFactory.getDefaultInstance().fromInputStream(in, CalendarListEntry.class).getId()));
    }

    /** Requests the user may have in flight now (learned from Google's refusals). */
    int maxInFlight(Session s) {
        return calls.maxInFlight(s.account());
    }

    /**
     * Every calendar in the user's list (all pages, at most {@value #CALENDAR_LIST_PAGES}), hidden ones included.
     *
     * @throws dev.agenttools.tool.ToolException UPSTREAM when the server sends a page token again or more pages
     */
    List<CalendarListEntry> calendars(Session s, Deadline deadline) throws InterruptedException {
        List<CalendarListEntry> all = new ArrayList<>();
        PageTokens paging = new PageTokens("calendar calendarList.list", CALENDAR_LIST_PAGES);
        String page = null;
        do {
            String token = page;
            String url = settings.rootUrl() + "calendar/v3/users/me/calendarList?maxResults=" + CALENDAR_PAGE
                    + "&showHidden=true&fields=" + CALENDAR_LIST_FIELDS_QUERY + (token == null ? "" : "&pageToken=" + GoogleConnection.encode(token));
            CalendarList list = calls.one(s.account(), "calendar calendarList.list", UNITS, deadline,
                    () -> connection.get(s.google(), url, GoogleConnection.USER_AGENT, false, BoundedBody.MAX_BYTES,
                            in -> ListJson.calendarList(in, CALENDAR_PAGE)));
            if (list.getItems() != null) {
                all.addAll(list.getItems());
            }
            page = paging.next(list.getNextPageToken());
        } while (page != null);
        return all;
    }

    /** One event (a single event, a series, or an instance by its id) in full. */
    Event event(Session s, String calendarId, String eventId, Deadline deadline) throws InterruptedException {
        return calls.one(s.account(), "calendar events.get " + calendarId + " " + eventId, UNITS, deadline,
                () -> s.client().events().get(calendarId, eventId).execute());
    }

    /** Busy time of up to {@value #FREE_BUSY_CALENDARS} calendars in one freeBusy.query. */
    FreeBusyResponse freeBusy(Session s, List<String> calendarIds, Instant min, Instant max, Deadline deadline)
            throws InterruptedException {
        FreeBusyRequest request = new FreeBusyRequest().setTimeMin(new DateTime(min.toEpochMilli())).setTimeMax(new DateTime(max.toEpochMilli()))
                .setItems(calendarIds.stream().map(id -> new FreeBusyRequestItem().setId(id)).toList());
        return calls.one(s.account(), "calendar freebusy.query x" + calendarIds.size(), UNITS, deadline,
                () -> s.client().freebusy().query(request).execute());
    }

    /** The question asked of each calendar: a time range, a text, a page size and the calendar's page token. */
    record EventQuery(Instant min, Instant max, String text, int maxResults) {
    }

    /**
     * Admits a list of {@code calendars} calendars' events fetched by {@code strategy}: the quota of an events.list per
     * calendar is promised to it, or it is refused at once (rate_limited, with when to try again) when the account's
     * Calendar quota could not serve it before its deadline ({@link GoogleCalls#admit}), so that no calendar's
     * request is spent on a list that the next one's refusal would leave half answered.
     */
    GoogleCalls.Promise admitEvents(Session s, int calendars, Strategy strategy, Deadline deadline) {
        int rounds = strategy == Strategy.SEQUENTIAL ? calendars : 1;
        return calls.admit(s.account(), calendars * UNITS, rounds, deadline, "calendar events.list x" + calendars);
    }

    /** One calendar's events in the range, instances of series expanded, in start order. */
    Events events(Session s, String calendarId, EventQuery q, String pageToken, Deadline deadline) throws InterruptedException {
        StringBuilder url = new StringBuilder(settings.rootUrl()).append("calendar/v3/calendars/").append(GoogleConnection.encode(calendarId))
                .append("/events?singleEvents=true&orderBy=startTime&timeMin=").append(GoogleConnection.encode(rfc3339(q.min())))
                .append("&timeMax=").append(GoogleConnection.encode(rfc3339(q.max()))).append("&maxResults=").append(q.maxResults());
        if (q.text() != null) {
            url.append("&q=").append(GoogleConnection.encode(q.text()));
        }
        if (pageToken != null) {
            url.append("&pageToken=").append(GoogleConnection.encode(pageToken));
        }
        url.append("&fields=").append(EVENT_LIST_FIELDS_QUERY);
        return calls.one(s.account(), "calendar events.list " + calendarId, UNITS, deadline,
                () -> url.length() > GoogleConnection.MAX_URL_LENGTH
                        ? eventsRequest(s, calendarId, q, pageToken).execute() // the client sends a long one as it must
                        : connection.get(s.google(), url.toString(), GoogleConnection.USER_AGENT, false, BoundedBody.MAX_BYTES,
                                in -> ListJson.events(in, q.maxResults())));
    }

    /** A time as the Calendar client sends it: {@code 2026-06-02T07:00:00.000Z}. */
    private static String rfc3339(Instant t) {
        return new DateTime(t.toEpochMilli()).toStringRfc3339();
    }

    /**
     * Several calendars' events in one batch request (parts refused for now are sent again in a later one), each
     * part judged as a single events.list would be.
     *
     * @param pageTokens each calendar's page token (absent: its first page)
     */
    Map<String, Outcome<Events>> eventsBatch(Session s, List<String> calendarIds, EventQuery q, Map<String, String> pageTokens,
                                             Deadline deadline) throws InterruptedException {
        return calls.each(s.account(), "calendar batch events.list x" + calendarIds.size(),
                id -> "calendar events.list " + id + " in a batch", UNITS, calendarIds, deadline, (pending, answers) -> {
                    BatchRequest batch = s.client().batch();
                    for (String id : pending) {
                        HttpRequest part = eventsRequest(s, id, q, pageTokens.get(id)).buildHttpRequest();
                        part.setParser(StreamingJson.preferring(Events.class, p -> ListJson.events(p, q.maxResults()), part.getParser()));
                        batch.queue(part, Events.class, GoogleJsonErrorContainer.class, answers.callback(id));
                    }
                    batch.execute();
                });
    }

    private static Calendar.Events.List eventsRequest(Session s, String calendarId, EventQuery q, String pageToken) throws IOException {
        return s.client().events().list(calendarId).setSingleEvents(true).setOrderBy("startTime")
                .setTimeMin(new DateTime(q.min().toEpochMilli())).setTimeMax(new DateTime(q.max().toEpochMilli()))
                .setQ(q.text()).setMaxResults(q.maxResults()).setPageToken(pageToken).setFields(EVENT_LIST_FIELDS);
    }
}
