package dev.agenttools.gmail;

import dev.agenttools.tool.Deadline;

import java.util.ArrayList;
import java.util.List;

/** One get after another, as the article's Python did: the baseline, and the fallback when a fast path fails. */
final class SequentialFetch implements FetchStrategy {
    private final GmailService service;

    SequentialFetch(GmailService service) {
        this.service = service;
    }

    @Override
    public String name() {
        return "sequential";
    }

    @Override
    public List<Fetched> fetch(GmailService.Session session, List<String> ids, GmailService.View view, Deadline deadline)
            throws InterruptedException {
        List<Fetched> out = new ArrayList<>(ids.size());
        for (String id : ids) {
            out.add(service.fetchListed(session, id, view, deadline));
        }
        return out;
    }
}
