package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;

/** users.threads.list and users.threads.get. A thread matches a search when any of its messages does. */
final class ThreadsResource {
    private final Mailbox mailbox;
    private final Clock clock;

    ThreadsResource(Mailbox mailbox, Clock clock) {
        this.mailbox = mailbox;
        this.clock = clock;
    }

    ApiResponse list(ApiRequest r, Matcher m) {
        int max = Params.maxResults(r);
        long position = Params.pageOffset(r, "t", 0);
        Set<Long> threadIds = new LinkedHashSet<>();
        for (StoredMessage x : mailbox.messages(MessagesResource.filter(r, mailbox, clock))) {
            threadIds.add(x.threadId);
        }
        List<Long> all = new ArrayList<>(threadIds);
        ObjectNode node = Json.MAPPER.createObjectNode();
        // A token past the end (the list shrank since, or a forged one) is an empty last page; long arithmetic, so a
        // huge position cannot wrap around into a negative next token.
        int start = (int) Math.min(position, all.size());
        int end = (int) Math.min(all.size(), (long) start + max);
        if (start < end) {
            ArrayNode items = node.putArray("threads");
            for (long id : all.subList(start, end)) {
                List<StoredMessage> messages = mailbox.thread(id);
                if (messages.isEmpty()) {
                    continue;
                }
                ObjectNode t = items.addObject();
                t.put("id", StoredMessage.hex(id));
                t.put("snippet", messages.getLast().parsed.snippet());
                t.put("historyId", Long.toString(messages.stream().mapToLong(StoredMessage::historyId).max().orElse(0)));
            }
        }
        if (end < all.size()) {
            node.put("nextPageToken", Params.pageToken("t", Integer.toString(end)));
        }
        node.put("resultSizeEstimate", all.size());
        return ApiResponse.ok(node);
    }

    ApiResponse get(ApiRequest r, Matcher m) {
        MessageJson.Format format = MessageJson.Format.parse(r.param("format"), false);
        long id = StoredMessage.parseId(m.group(2));
        List<StoredMessage> messages = mailbox.thread(id);
        if (messages.isEmpty()) {
            throw ApiError.notFound();
        }
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("id", StoredMessage.hex(id));
        node.put("historyId", Long.toString(messages.stream().mapToLong(StoredMessage::historyId).max().orElse(0)));
        ArrayNode items = node.putArray("messages");
        messages.forEach(x -> items.add(MessageJson.render(x, format, r.params("metadataHeaders"))));
        return ApiResponse.ok(node);
    }
}
