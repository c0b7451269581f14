package dev.agenttools.gmail;

import java.util.List;

/**
 * One email in a list or search answer (snake_case on the wire).
 *
 * @param subject  the subject, or {@value MessageDecoder#NO_SUBJECT} when empty
 * @param date     the Date header as RFC 3339 (the arrival time when the header is missing or unreadable)
 * @param dateSource null when {@code date} is the Date header's; {@code "arrival"} when the header was missing or
 *                 impossible (an hour 59, a 31 February) and {@code date} is the time Gmail received the message
 * @param dateRaw  the Date header as sent, or null
 * @param snippet  Gmail's snippet as plain text (entities decoded)
 */
public record EmailSummary(String id, String threadId, String subject, String from, String to, String date,
                           String dateSource, String dateRaw, String snippet, List<String> labelIds, boolean unread,
                           boolean hasAttachments) {
}
