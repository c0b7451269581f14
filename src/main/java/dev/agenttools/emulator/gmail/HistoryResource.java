package dev.agenttools.emulator.gmail;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Json;
import dev.agenttools.emulator.api.Params;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;

/** users.history.list: changes after a history id, 404 when that id is older than the history kept. */
final class HistoryResource {
    private static final Set<String> TYPES = Set.of("messageAdded", "messageDeleted", "labelAdded", "labelRemoved");
    private final Mailbox mailbox;

    HistoryResource(Mailbox mailbox) {
        this.mailbox = mailbox;
    }

    ApiResponse list(ApiRequest r, Matcher m) {
        long start = Params.uint64(r, "startHistoryId", true);
        int max = Params.maxResults(r);
        List<String> types = new ArrayList<>();
        for (String t : r.params("historyTypes")) {
            if (!TYPES.contains(t)) {
                throw ApiError.badRequest("historyTypes", "Invalid value at 'historyTypes', \"" + t
                        + "\": allowed values are messageAdded, messageDeleted, labelAdded, labelRemoved");
            }
            types.add(t);
        }
        String labelId = r.param("labelId");
        long after = Params.pageOffset(r, "h", start);
        long currentHistoryId = mailbox.historyId();
        // Group records by history id: one modify that adds and removes labels is one History entry.
        Map<Long, List<HistoryRecord>> byId = new LinkedHashMap<>();
        for (HistoryRecord h : mailbox.historySince(start)) {
            if (h.id() <= after || (!types.isEmpty() && !types.contains(h.type()))
                    || (labelId != null && !h.labelsAfter().contains(labelId) && !h.labelIds().contains(labelId))) {
                continue;
            }
            byId.computeIfAbsent(h.id(), k -> new ArrayList<>()).add(h);
        }
        ObjectNode node = Json.MAPPER.createObjectNode();
        List<Long> ids = new ArrayList<>(byId.keySet());
        List<Long> page = ids.subList(0, Math.min(ids.size(), max));
        if (!page.isEmpty()) {
            ArrayNode history = node.putArray("history");
            for (long id : page) {
                history.add(entry(id, byId.get(id)));
            }
        }
        if (page.size() < ids.size()) {
            node.put("nextPageToken", Params.pageToken("h", Long.toString(page.getLast())));
        }
        node.put("historyId", Long.toString(currentHistoryId));
        return ApiResponse.ok(node);
    }

    private static ObjectNode entry(long id, List<HistoryRecord> records) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("id", Long.toString(id));
        ArrayNode messages = node.putArray("messages");
        for (HistoryRecord h : records) {
            ObjectNode ref = messages.addObject();
            ref.put("id", StoredMessage.hex(h.messageId()));
            ref.put("threadId", StoredMessage.hex(h.threadId()));
            String field = switch (h.type()) {
                case "messageAdded" -> "messagesAdded";
                case "messageDeleted" -> "messagesDeleted";
                case "labelAdded" -> "labelsAdded";
                default -> "labelsRemoved";
            };
            ArrayNode list = node.has(field) ? (ArrayNode) node.get(field) : node.putArray(field);
            ObjectNode item = list.addObject();
            ObjectNode message = item.putObject("message");
            message.put("id", StoredMessage.hex(h.messageId()));
            message.put("threadId", StoredMessage.hex(h.threadId()));
            if (!h.labelsAfter().isEmpty()) {
                ArrayNode labels = message.putArray("labelIds");
                h.labelsAfter().forEach(labels::add);
            }
            if (!h.labelIds().isEmpty()) {
                ArrayNode changed = item.putArray("labelIds");
                h.labelIds().forEach(changed::add);
            }
        }
        return node;
    }
}
