package dev.agenttools.emulator;

import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Gmail v1 REST surface: maps a method and path to its quota cost and the resource method that answers
 * it. Paths are those of the discovery document, under {@code /gmail/v1/users/{userId}/}.
 */
final class GmailApi {
    private record Entry(String method, Pattern path, String name, int units,
                         BiFunction<ApiRequest, Matcher, ApiResponse> handler) {
    }

    private static final String USER = "/gmail/v1/users/([^/]+)";
    private final List<Entry> entries;
    private final Mailbox mailbox;
    private final QuotaBucket quota;

    GmailApi(Mailbox mailbox, QuotaBucket quota, Faults faults, Counters counters, java.time.Clock clock) {
        this.mailbox = mailbox;
        this.quota = quota;
        MessagesResource messages = new MessagesResource(mailbox, faults, counters, clock);
        ThreadsResource threads = new ThreadsResource(mailbox, clock);
        HistoryResource history = new HistoryResource(mailbox);
        LabelsResource labels = new LabelsResource(mailbox);
        entries = List.of(
                entry("GET", "/profile", "users.getProfile", 1, labels::profile),
                entry("GET", "/labels", "users.labels.list", 1, labels::list),
                entry("GET", "/labels/([^/]+)", "users.labels.get", 1, labels::get),
                entry("GET", "/messages", "users.messages.list", 5, messages::list),
                entry("GET", "/messages/([^/]+)", "users.messages.get", 5, messages::get),
                entry("GET", "/messages/([^/]+)/attachments/([^/]+)", "users.messages.attachments.get", 5,
                        messages::attachment),
                entry("POST", "/messages/([^/]+)/modify", "users.messages.modify", 5, messages::modify),
                entry("POST", "/messages/([^/]+)/trash", "users.messages.trash", 5, messages::trash),
                entry("POST", "/messages/([^/]+)/untrash", "users.messages.untrash", 5, messages::untrash),
                entry("GET", "/threads", "users.threads.list", 10, threads::list),
                entry("GET", "/threads/([^/]+)", "users.threads.get", 10, threads::get),
                entry("GET", "/history", "users.history.list", 2, history::list));
    }

    private static Entry entry(String method, String path, String name, int units,
                               BiFunction<ApiRequest, Matcher, ApiResponse> handler) {
        return new Entry(method, Pattern.compile(USER + path), name, units, handler);
    }

    /** The route for this request; 404 for an unknown path, 405 for a known path with the wrong method, 403 for another user. */
    Route route(ApiRequest request) {
        boolean pathKnown = false;
        for (Entry e : entries) {
            Matcher m = e.path.matcher(request.path());
            if (m.matches()) {
                pathKnown = true;
                if (e.method.equals(request.method())) {
                    checkUser(m.group(1));
                    return new Route(e.name, e.units, quota, e.handler, m);
                }
            }
        }
        if (pathKnown) {
            throw ApiError.methodNotAllowed(request.method(), request.path());
        }
        throw ApiError.notFound("Method not found: " + request.method() + " " + request.path());
    }

    private void checkUser(String userId) {
        if (!userId.equals("me") && !userId.equalsIgnoreCase(mailbox.email)) {
            throw ApiError.delegationDenied(userId);
        }
    }
}
