package dev.agenttools.emulator.gmail;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.ApiError;
import dev.agenttools.emulator.api.Json;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Renders messages as the Gmail v1 {@code Message} resource: int64 values as JSON strings, int32 as numbers,
 * empty repeated fields left out; {@code partId} and {@code filename} always present, as Gmail sends them.
 */
final class MessageJson {
    /** The four values of messages.get's {@code format}. */
    enum Format {
        MINIMAL, METADATA, FULL, RAW;

        static Format parse(String value, boolean rawAllowed) {
            if (value == null) {
                return FULL;
            }
            try {
                Format f = valueOf(value.toUpperCase(Locale.ROOT));
                if (f != RAW || rawAllowed) {
                    return f;
                }
            } catch (IllegalArgumentException e) {
                // fall through to the error below
            }
            throw ApiError.badRequest("format", "Invalid value at 'format', \"" + value + "\": allowed values are "
                    + (rawAllowed ? "minimal, metadata, full, raw" : "minimal, metadata, full"));
        }
    }

    private static final Base64.Encoder PADDED = Base64.getUrlEncoder();
    private static final Base64.Encoder UNPADDED = Base64.getUrlEncoder().withoutPadding();
    private static final String ATTACHMENT_ID_PREFIX = "ANGjdJ";

    private MessageJson() {
    }

    static ObjectNode idOnly(StoredMessage m) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("id", m.hexId());
        node.put("threadId", m.hexThreadId());
        return node;
    }

    /**
     * A message as messages.get answers it, fields in Gmail's order (id, threadId, labelIds, snippet, payload,
     * sizeEstimate, historyId, internalDate: captured responses). {@code minimal} has no snippet and a payload of
     * only {@code {"partId": ""}}, as captured; where {@code raw} goes among the fields is not captured (kept last).
     */
    static ObjectNode render(StoredMessage m, Format format, List<String> metadataHeaders) {
        ObjectNode node = idOnly(m);
        putLabels(node, m);
        if (format != Format.MINIMAL && !m.parsed.snippet().isEmpty()) {
            node.put("snippet", m.parsed.snippet());
        }
        switch (format) {
            case METADATA -> node.set("payload", metadataPayload(m.parsed.root(), metadataHeaders));
            case FULL -> node.set("payload", part(m, m.parsed.root()));
            case MINIMAL -> node.putObject("payload").put("partId", "");
            case RAW -> { }
        }
        putSizeAndStamps(node, m);
        if (format == Format.RAW) {
            node.put("raw", PADDED.encodeToString(m.raw)); // Gmail pads raw (observed)
        }
        return node;
    }

    /**
     * What messages.modify and untrash answer: the message without a payload (id, threadId, labelIds, snippet,
     * sizeEstimate, historyId, internalDate: a captured modify response).
     */
    static ObjectNode modified(StoredMessage m) {
        ObjectNode node = idOnly(m);
        putLabels(node, m);
        if (!m.parsed.snippet().isEmpty()) {
            node.put("snippet", m.parsed.snippet());
        }
        putSizeAndStamps(node, m);
        return node;
    }

    /** What messages.trash answers: id, threadId, labelIds (a captured response). */
    static ObjectNode labelsOnly(StoredMessage m) {
        ObjectNode node = idOnly(m);
        putLabels(node, m);
        return node;
    }

    private static void putLabels(ObjectNode node, StoredMessage m) {
        if (!m.labels().isEmpty()) {
            ArrayNode labels = node.putArray("labelIds");
            m.labels().forEach(labels::add);
        }
    }

    private static void putSizeAndStamps(ObjectNode node, StoredMessage m) {
        node.put("sizeEstimate", m.raw.length);
        node.put("historyId", Long.toString(m.historyId()));
        node.put("internalDate", Long.toString(m.internalDate));
    }

    /** A metadata payload: the top part's type and the asked headers, nothing else (captured responses). */
    private static ObjectNode metadataPayload(MessagePart root, List<String> wanted) {
        ObjectNode payload = Json.MAPPER.createObjectNode();
        payload.put("mimeType", root.mimeType());
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        names.addAll(wanted);
        ArrayNode headers = payload.putArray("headers");
        for (MessagePart.Header h : root.headers()) {
            if (names.isEmpty() || names.contains(h.name())) {
                headers.addObject().put("name", h.name()).put("value", h.value());
            }
        }
        if (headers.isEmpty()) {
            payload.remove("headers");
        }
        return payload;
    }

    private static ObjectNode part(StoredMessage m, MessagePart p) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("partId", p.partId());
        node.put("mimeType", p.mimeType());
        node.put("filename", p.filename());
        if (!p.headers().isEmpty()) {
            ArrayNode headers = node.putArray("headers");
            p.headers().forEach(h -> headers.addObject().put("name", h.name()).put("value", h.value()));
        }
        ObjectNode body = node.putObject("body");
        if (p.attachment()) {
            body.put("attachmentId", attachmentId(m, p));
            body.put("size", p.data().length);
        } else if (p.isContainer()) {
            body.put("size", 0);
        } else {
            body.put("size", p.data().length);
            if (p.data().length > 0) {
                body.put("data", PADDED.encodeToString(p.data()));
            }
        }
        if (!p.parts().isEmpty()) {
            ArrayNode parts = node.putArray("parts");
            p.parts().forEach(child -> parts.add(part(m, child)));
        }
        return node;
    }

    /** A stable, opaque attachment id naming the message and part (Gmail's look like ANGjdJ...). */
    static String attachmentId(StoredMessage m, MessagePart p) {
        return ATTACHMENT_ID_PREFIX + UNPADDED.encodeToString((m.hexId() + ":" + p.partId()).getBytes(StandardCharsets.UTF_8));
    }

    /** The part an attachment id names, or 400 "Invalid attachment token" when it names none of this message's. */
    static MessagePart attachment(StoredMessage m, String attachmentId) {
        if (attachmentId.startsWith(ATTACHMENT_ID_PREFIX)) {
            try {
                String decoded = new String(Base64.getUrlDecoder().decode(attachmentId.substring(ATTACHMENT_ID_PREFIX.length())),
                        StandardCharsets.UTF_8);
                int colon = decoded.indexOf(':');
                if (colon > 0 && decoded.substring(0, colon).equals(m.hexId())) {
                    MessagePart p = m.parsed.root().find(decoded.substring(colon + 1));
                    if (p != null && p.attachment()) {
                        return p;
                    }
                }
            } catch (IllegalArgumentException e) {
                // not base64: fall through
            }
        }
        throw ApiError.badRequest("id", "Invalid attachment token");
    }

    /** attachments.get's answer: size and data, no attachmentId (a captured response). */
    static ObjectNode attachmentBody(StoredMessage m, MessagePart p) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("size", p.data().length);
        node.put("data", UNPADDED.encodeToString(p.data())); // attachment data comes unpadded (observed)
        return node;
    }
}
