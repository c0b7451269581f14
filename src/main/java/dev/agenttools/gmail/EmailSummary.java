package dev.agenttools.gmail;

import java.util.List;

/**
 * One email in a list or search answer (snake_case on the wire). An email that could not be read whole (named in
 * the answer's {@code errors}) keeps its place with what could be read: its ids always, and a field left out is one
 * that could not be read, never a guess.
 *
 * @param subject        the subject, or {@value MessageDecoder#NO_SUBJECT} when empty or unread
 * @param date           the Date header as RFC 3339 (the arrival time when the header is missing or unreadable)
 * @param dateSource     null when {@code date} is the Date header's; {@code "arrival"} when the header was missing or
 *                       impossible (an hour 59, a 31 February) and {@code date} is the time Gmail received the message
 * @param dateRaw        the Date header as sent, or null
 * @param snippet        Gmail's snippet as plain text (entities decoded)
 * @param unread         whether it carries the UNREAD label; null when its labels could not be read
 * @param hasAttachments whether any part is a file; null when its parts could not be read
 */
record EmailSummary(String id, String threadId, String subject, String from, String to, String date,
                           String dateSource, String dateRaw, String snippet, List<String> labelIds, Boolean unread,
                           Boolean hasAttachments) {
}
