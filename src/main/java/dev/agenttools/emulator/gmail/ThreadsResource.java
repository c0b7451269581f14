package dev.agenttools.emulator.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Json;
import dev.agenttools.emulator.api.Params;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
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
                // id and historyId only: 100 of 100 threads in a captured threads.list (NangoHQ/integration-templates,
                // list-threads, 2026-04-29) had no snippet, though the Thread resource documents one
                ObjectNode t = items.addObject();
                t.put("id", StoredMessage.hex(id));
                t.put("historyId", Long.toString(messages.stream().mapToLong(StoredMessage::historyId).max().orElse(0)));
            }
        }
        if (end < all.size()) {
            node.put("nextPageToken", Params.pageToken("t", Integer.toString(end)));
        }
        node.put("resultSizeEstimate", Params.sizeEstimate(all.size(), start));
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

    /** threads.modify: the labels change on every message of the thread; answers the thread as messages.modify does. */
    ApiResponse modify(ApiRequest r, Matcher m) {
        JsonNode body = Json.parse(r.body(), "threads.modify body");
        List<String> add = MessagesResource.strings(body, "addLabelIds");
        List<String> remove = MessagesResource.strings(body, "removeLabelIds");
        return changeAll(m, x -> add, remove, true);
    }

    /** threads.trash: answers {id, messages: [{id, threadId, labelIds}]}, no historyId (a captured response). */
    ApiResponse trash(ApiRequest r, Matcher m) {
        return changeAll(m, x -> List.of(LabelCatalog.TRASH), List.of(LabelCatalog.INBOX), false);
    }

    /** threads.untrash: each message back in the inbox unless it was sent; answers as threads.modify (captured). */
    ApiResponse untrash(ApiRequest r, Matcher m) {
        return changeAll(m, x -> x.labels().contains(LabelCatalog.SENT) ? List.of() : List.of(LabelCatalog.INBOX),
                List.of(LabelCatalog.TRASH), true);
    }

    /** Changes every message of the thread: {@code add} says what each gets, {@code remove} what all lose. */
    private ApiResponse changeAll(Matcher m, Function<StoredMessage, List<String>> add, List<String> remove,
                                  boolean full) {
        long id = StoredMessage.parseId(m.group(2));
        List<StoredMessage> messages = mailbox.thread(id);
        if (messages.isEmpty()) {
            throw ApiError.notFound();
        }
        List<StoredMessage> changed = new ArrayList<>();
        for (StoredMessage x : messages) {
            changed.add(mailbox.modify(x.id, add.apply(x), remove));
        }
        return ApiResponse.ok(threadOf(id, changed, full));
    }

    private static ObjectNode threadOf(long id, List<StoredMessage> messages, boolean full) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("id", StoredMessage.hex(id));
        if (full) {
            node.put("historyId", Long.toString(messages.stream().mapToLong(StoredMessage::historyId).max().orElse(0)));
        }
        ArrayNode items = node.putArray("messages");
        messages.forEach(x -> items.add(full ? MessageJson.modified(x) : MessageJson.labelsOnly(x)));
        return node;
    }
}
