package dev.agenttools.emulator.gmail;

import java.util.List;
import java.util.function.Consumer;

/**
 * One node of a message's MIME tree, already decoded as Gmail presents it: header values with encoded
 * words decoded, transfer encoding removed, text parts transcoded to UTF-8.
 *
 * @param partId   {@code ""} for the top level, then {@code 0}, {@code 1}, {@code 0.1}...
 * @param mimeType the base type, lower case ({@code text/plain})
 * @param filename the attachment's file name, or {@code ""}
 * @param data     leaf content bytes (UTF-8 for inline text parts); empty for containers
 * @param attachment true when Gmail serves the content through attachments.get instead of inline data
 */
record MessagePart(String partId, String mimeType, String filename, List<Header> headers, byte[] data,
                   boolean attachment, List<MessagePart> parts) {

    record Header(String name, String value) {
    }

    MessagePart {
        headers = List.copyOf(headers);
        parts = List.copyOf(parts);
    }

    boolean isContainer() {
        return mimeType.startsWith("multipart/");
    }

    /** Depth-first walk over this part and all below it. */
    void forEach(Consumer<MessagePart> action) {
        action.accept(this);
        parts.forEach(p -> p.forEach(action));
    }

    MessagePart find(String id) {
        if (partId.equals(id)) {
            return this;
        }
        for (MessagePart p : parts) {
            MessagePart found = p.find(id);
            if (found != null) {
                return found;
            }
        }
        return null;
    }
}
