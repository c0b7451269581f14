package dev.agenttools.gmail;

import com.google.api.services.gmail.Gmail;
import dev.agenttools.google.Deadline;
import dev.agenttools.google.FanOut;

import java.util.List;

/**
 * One virtual thread per message, at most the pacer's in-flight limit at once and paced to the user's quota,
 * all multiplexed over the shared HTTP/2 connection.
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
    public List<Fetched> fetch(Gmail gmail, List<String> ids, GmailService.View view, Deadline deadline) {
        return FanOut.map(ids, service.pacer().maxInFlight(), deadline, "gmail messages.get x" + ids.size(),
                id -> service.fetchListed(gmail, id, view, deadline));
    }
}
