package dev.agenttools.gmail;

import dev.agenttools.google.FanOut;
import dev.agenttools.tool.Deadline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gmail's HTTP batch endpoint: messages fetched in chunks (at most the configured batch size, 50 by default as
 * Google advises, and no more than the user's in-flight limit, since Gmail charges each part to it), each chunk one
 * round trip. Parts are paced, retried and judged on the same path as single gets ({@link GmailService#fetchBatch}).
 */
final class BatchFetch implements FetchStrategy {
    private final GmailService service;

    BatchFetch(GmailService service) {
        this.service = service;
    }

    @Override
    public String name() {
        return "batch";
    }

    @Override
    public List<Fetched> fetch(GmailService.Session session, List<String> ids, GmailService.View view, Deadline deadline) {
        int inFlight = service.maxInFlight(session);
        int chunkSize = Math.max(1, Math.min(service.settings().batchSize(), inFlight));
        List<List<String>> chunks = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += chunkSize) {
            chunks.add(ids.subList(i, Math.min(ids.size(), i + chunkSize)));
        }
        int parallel = Math.max(1, inFlight / chunkSize);
        List<Map<String, Fetched>> answers = FanOut.map(chunks, parallel, deadline, "gmail batch of " + ids.size(),
                chunk -> service.fetchBatch(session, chunk, view, deadline));
        Map<String, Fetched> all = new LinkedHashMap<>();
        answers.forEach(all::putAll);
        List<Fetched> out = new ArrayList<>(ids.size());
        ids.forEach(id -> out.add(all.get(id)));
        return out;
    }
}
