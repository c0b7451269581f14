package dev.agenttools.emulator.gmail;

import java.util.List;
import java.util.Locale;

/**
 * What the emulator knows about one message's content, parsed once from its raw bytes: the MIME tree as
 * Gmail renders it, the addressing headers, and lower-cased text for search.
 */
record ParsedMessage(MessagePart root, String subject, String from, String to, String cc, String bcc,
                     String deliveredTo, String listId, String rfc822MessageId, String inReplyTo, String references,
                     String bodyText, String snippet, List<String> attachmentNames,
                     String searchText) {

    ParsedMessage {
        attachmentNames = List.copyOf(attachmentNames);
    }

    /** Everything a free-text search looks in, lower case, computed once per message. */
    static String searchText(String subject, String from, String to, String cc, String body, List<String> names) {
        return String.join("\n", subject, from, to, cc, body, String.join(" ", names)).toLowerCase(Locale.ROOT);
    }

    boolean hasAttachment() {
        return !attachmentNames.isEmpty();
    }

    String searchableText() {
        return searchText;
    }
}
