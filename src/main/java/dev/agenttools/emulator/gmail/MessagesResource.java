package dev.agenttools.emulator.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.ApiRequest;
import dev.agenttools.emulator.api.ApiResponse;
import dev.agenttools.emulator.api.Counters;
import dev.agenttools.emulator.api.Faults;
import dev.agenttools.emulator.api.Json;
import dev.agenttools.emulator.api.Params;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;

/** users.messages.list/get/modify/trash/untrash and users.messages.attachments.get. */
final class MessagesResource {
    private final Mailbox mailbox;
    private final Faults faults;
    private final Counters counters;
    private final Clock clock;

    MessagesResource(Mailbox mailbox, Faults faults, Counters counters, Clock clock) {
        this.mailbox = mailbox;
        this.faults = faults;
        this.counters = counters;
        this.clock = clock;
    }

    ApiResponse list(ApiRequest r, Matcher m) {
        int max = Params.maxResults(r);
        Predicate<StoredMessage> filter = filter(r, mailbox, clock);
        String after = Params.pagePosition(r, "m");
        List<StoredMessage> all = mailbox.messages(filter);
        int start = after == null ? 0 : startAfter(all, after);
        List<StoredMessage> page = all.subList(start, Math.min(all.size(), start + max));
        ObjectNode node = Json.MAPPER.createObjectNode();
        if (!page.isEmpty()) {
            ArrayNode items = node.putArray("messages");
            page.forEach(x -> items.add(MessageJson.idOnly(x)));
        }
        if (start + page.size() < all.size()) {
            StoredMessage last = page.getLast();
            node.put("nextPageToken", Params.pageToken("m", last.internalDate + ":" + last.id));
        }
        node.put("resultSizeEstimate", Params.sizeEstimate(all.size(), start));
        // Fault model: some listed messages are deleted before the client gets to fetch them.
        for (StoredMessage x : page) {
            if (faults.vanishes() && mailbox.delete(x.id)) {
                counters.messagesVanished.increment();
            }
        }
        return ApiResponse.ok(node);
    }

    /** The filter shared by messages.list and threads.list: labelIds (all must match), q, includeSpamTrash. */
    static Predicate<StoredMessage> filter(ApiRequest r, Mailbox mailbox, Clock clock) {
        List<String> labelIds = new ArrayList<>();
        for (String v : r.params("labelIds")) {
            for (String id : v.split(",")) {
                if (!id.isBlank()) {
                    labelIds.add(id.strip());
                }
            }
        }
        for (String id : labelIds) {
            if (mailbox.label(id).isEmpty()) {
                throw ApiError.badRequest("labelIds", "Invalid label: " + id + " (labelIds takes label ids such as "
                        + "INBOX or Label_1; users.labels.list gives them)");
            }
        }
        boolean includeSpamTrash = Params.bool(r, "includeSpamTrash");
        SearchQuery query = SearchQuery.parse(r.param("q"), mailbox, clock);
        boolean spamTrashAllowed = includeSpamTrash || query.reachesSpamOrTrash()
                || labelIds.contains(LabelCatalog.SPAM) || labelIds.contains(LabelCatalog.TRASH);
        return x -> (spamTrashAllowed || (!x.labels().contains(LabelCatalog.SPAM) && !x.labels().contains(LabelCatalog.TRASH)))
                && x.labels().containsAll(labelIds)
                && query.test(x);
    }

    private static int startAfter(List<StoredMessage> all, String position) {
        String[] parts = position.split(":", -1);
        try {
            long date = Long.parseLong(parts[0]);
            long id = Long.parseLong(parts[1]);
            if (parts.length != 2 || id < 0) {
                throw Params.invalidPageToken();
            }
            for (int i = 0; i < all.size(); i++) {
                StoredMessage x = all.get(i);
                if (x.internalDate < date || (x.internalDate == date && x.id < id)) {
                    return i;
                }
            }
            return all.size();
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw Params.invalidPageToken();
        }
    }

    ApiResponse get(ApiRequest r, Matcher m) {
        faults.checkGet(m.group(2));
        MessageJson.Format format = MessageJson.Format.parse(r.param("format"), true);
        StoredMessage message = find(m.group(2));
        return ApiResponse.ok(MessageJson.render(message, format, r.params("metadataHeaders")));
    }

    ApiResponse attachment(ApiRequest r, Matcher m) {
        StoredMessage message = find(m.group(2));
        MessagePart part = MessageJson.attachment(message, m.group(3));
        return ApiResponse.ok(MessageJson.attachmentBody(message, part));
    }

    /** messages.insert with the message in the JSON body ({@code raw}, base64url, and {@code labelIds}); no upload form. */
    ApiResponse insert(ApiRequest r, Matcher m) {
        JsonNode body = Json.parse(r.body(), "messages.insert body");
        JsonNode raw = body.get("raw");
        if (raw == null || !raw.isTextual() || raw.asText().isBlank()) {
            throw ApiError.badRequest("raw", "'raw' RFC822 payload message string or uploading message via /upload/* URL required");
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(raw.asText().strip().replace('+', '-').replace('/', '_'));
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("raw", "Invalid value for ByteString: " + e.getMessage());
        }
        StoredMessage stored = mailbox.deliver(bytes, strings(body, "labelIds"), clock.millis());
        return ApiResponse.ok(MessageJson.labelsOnly(stored));
    }

    ApiResponse modify(ApiRequest r, Matcher m) {
        long id = StoredMessage.parseId(m.group(2));
        JsonNode body = Json.parse(r.body(), "messages.modify body");
        List<String> add = strings(body, "addLabelIds");
        List<String> remove = strings(body, "removeLabelIds");
        return ApiResponse.ok(MessageJson.modified(mailbox.modify(id, add, remove)));
    }

    ApiResponse trash(ApiRequest r, Matcher m) {
        long id = StoredMessage.parseId(m.group(2));
        // trash answers id, threadId and labelIds only, where modify and untrash answer more (captured, all three)
        return ApiResponse.ok(MessageJson.labelsOnly(mailbox.modify(id, List.of(LabelCatalog.TRASH), List.of(LabelCatalog.INBOX))));
    }

    ApiResponse untrash(ApiRequest r, Matcher m) {
        long id = StoredMessage.parseId(m.group(2));
        StoredMessage message = mailbox.message(id).orElseThrow(ApiError::notFound);
        List<String> add = message.labels().contains(LabelCatalog.SENT) ? List.of() : List.of(LabelCatalog.INBOX);
        return ApiResponse.ok(MessageJson.modified(mailbox.modify(id, add, List.of(LabelCatalog.TRASH))));
    }

    private StoredMessage find(String id) {
        return mailbox.message(StoredMessage.parseId(id)).orElseThrow(ApiError::notFound);
    }

    static List<String> strings(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(field, "Invalid value at '" + field + "': must be a list of label ids");
        }
        List<String> out = new ArrayList<>();
        node.forEach(n -> {
            if (!n.isTextual()) {
                throw ApiError.badRequest(field, "Invalid value at '" + field + "': must be a list of label ids");
            }
            out.add(n.asText());
        });
        return out;
    }
}
