package dev.agenttools.gmail;

import dev.agenttools.google.FanOut;
import dev.agenttools.tool.Deadline;

import java.util.List;

/**
 * One virtual thread per message, as many at once as the configured in-flight limit (the user's pacer holds them
 * to what Gmail has shown it allows) and paced to the user's quota, all multiplexed over the shared HTTP/2
 * connection.
 */
final class ConcurrentFetch implements FetchStrategy {
    private final GmailService service;

    ConcurrentFetch(GmailService service) {
        this.service = service;
    }

    @Override
    public String name() {
        return "concurrent";
    }

    @Override
    public List<Fetched> fetch(GmailService.Session session, List<String> ids, GmailService.View view, Deadline deadline) {
        return FanOut.map(ids, service.settings().maxInFlight(), deadline, "gmail messages.get x" + ids.size(),
                id -> service.fetchListed(session, id, view, deadline));
    }
}
