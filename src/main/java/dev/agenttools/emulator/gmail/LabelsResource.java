package dev.agenttools.emulator.gmail;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Json;

import java.util.List;
import java.util.regex.Matcher;

/** users.getProfile, users.labels.list and users.labels.get. */
final class LabelsResource {
    private final Mailbox mailbox;

    LabelsResource(Mailbox mailbox) {
        this.mailbox = mailbox;
    }

    ApiResponse profile(ApiRequest r, Matcher m) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("emailAddress", mailbox.email);
        node.put("messagesTotal", mailbox.size());
        node.put("threadsTotal", mailbox.threadCount());
        node.put("historyId", Long.toString(mailbox.historyId()));
        return ApiResponse.ok(node);
    }

    ApiResponse list(ApiRequest r, Matcher m) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        ArrayNode labels = node.putArray("labels");
        mailbox.labels().forEach(l -> labels.add(summary(l)));
        return ApiResponse.ok(node);
    }

    ApiResponse get(ApiRequest r, Matcher m) {
        Label label = mailbox.label(m.group(2)).orElseThrow(ApiError::notFound);
        ObjectNode node = summary(label);
        List<StoredMessage> messages = mailbox.messages(x -> x.labels().contains(label.id()));
        long unread = messages.stream().filter(x -> x.labels().contains(LabelCatalog.UNREAD)).count();
        long threads = messages.stream().mapToLong(x -> x.threadId).distinct().count();
        long unreadThreads = messages.stream().filter(x -> x.labels().contains(LabelCatalog.UNREAD))
                .mapToLong(x -> x.threadId).distinct().count();
        node.put("messagesTotal", messages.size());
        node.put("messagesUnread", (int) unread);
        node.put("threadsTotal", (int) threads);
        node.put("threadsUnread", (int) unreadThreads);
        return ApiResponse.ok(node);
    }

    private static ObjectNode summary(Label l) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("id", l.id());
        node.put("name", l.name());
        if (l.messageListVisibility() != null) {
            node.put("messageListVisibility", l.messageListVisibility());
        }
        if (l.labelListVisibility() != null) {
            node.put("labelListVisibility", l.labelListVisibility());
        }
        node.put("type", l.system() ? "system" : "user");
        return node;
    }
}
