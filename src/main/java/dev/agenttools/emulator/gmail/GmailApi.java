package dev.agenttools.emulator.gmail;

import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.Counters;
import dev.agenttools.emulator.api.Faults;
import dev.agenttools.emulator.api.QuotaBucket;
import dev.agenttools.emulator.api.Route;
import dev.agenttools.emulator.api.RouteTable;

import java.time.Clock;

/**
 * The Gmail v1 REST surface: maps a method and path to its quota cost and the resource method that answers
 * it. Paths are those of the discovery document, under {@code /gmail/v1/users/{userId}/}.
 */
public final class GmailApi {
    private static final String USER = "/gmail/v1/users/([^/]+)";
    private final RouteTable routes;
    private final Mailbox mailbox;

    public GmailApi(Mailbox mailbox, QuotaBucket quota, Faults faults, Counters counters, Clock clock) {
        this.mailbox = mailbox;
        MessagesResource messages = new MessagesResource(mailbox, faults, counters, clock);
        ThreadsResource threads = new ThreadsResource(mailbox, clock);
        HistoryResource history = new HistoryResource(mailbox);
        LabelsResource labels = new LabelsResource(mailbox);
        routes = new RouteTable(USER, quota)
                .add("GET", "/profile", "users.getProfile", 1, labels::profile)
                .add("GET", "/labels", "users.labels.list", 1, labels::list)
                .add("GET", "/labels/([^/]+)", "users.labels.get", 1, labels::get)
                .add("GET", "/messages", "users.messages.list", 5, messages::list)
                .add("GET", "/messages/([^/]+)", "users.messages.get", 5, messages::get)
                .add("GET", "/messages/([^/]+)/attachments/([^/]+)", "users.messages.attachments.get", 5, messages::attachment)
                .add("POST", "/messages", "users.messages.insert", 25, messages::insert)
                .add("POST", "/messages/([^/]+)/modify", "users.messages.modify", 5, messages::modify)
                .add("POST", "/messages/([^/]+)/trash", "users.messages.trash", 5, messages::trash)
                .add("POST", "/messages/([^/]+)/untrash", "users.messages.untrash", 5, messages::untrash)
                .add("GET", "/threads", "users.threads.list", 10, threads::list)
                .add("GET", "/threads/([^/]+)", "users.threads.get", 10, threads::get)
                .add("POST", "/threads/([^/]+)/modify", "users.threads.modify", 10, threads::modify)
                .add("POST", "/threads/([^/]+)/trash", "users.threads.trash", 10, threads::trash)
                .add("POST", "/threads/([^/]+)/untrash", "users.threads.untrash", 10, threads::untrash)
                .add("GET", "/history", "users.history.list", 2, history::list);
    }

    /** The route for this request; 404 for an unknown path, 405 for a known path with the wrong method, 403 for another user. */
    public Route route(ApiRequest request) {
        Route route = routes.route(request);
        checkUser(route.match().group(1));
        return route;
    }

    private void checkUser(String userId) {
        if (!userId.equals("me") && !userId.equalsIgnoreCase(mailbox.email)) {
            throw ApiError.delegationDenied(userId);
        }
    }
}
