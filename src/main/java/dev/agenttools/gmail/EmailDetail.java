package dev.agenttools.gmail;

import java.util.List;

/**
 * One whole email (get_email's answer). When part of it could not be decoded, {@code errors} says so and the
 * fields that could not be read are left out (null), never guessed.
 *
 * @param dateSource as in {@link EmailSummary}
 * @param body      readable text: the text/plain part, else the HTML part as text with links kept; then each
 *                  forwarded message (a message/rfc822 part) under {@value MessageDecoder#FORWARDED}, with its From,
 *                  Date, Subject, To and Cc and its own body
 * @param bodyHtml  the HTML part, only when asked for ({@code include_html})
 * @param truncated true when body was cut at {@code max_body_chars}
 * @param errors    what could not be decoded; null (left out) when everything was
 */
record EmailDetail(String id, String threadId, String subject, String from, String to, String cc, String date,
                          String dateSource, String dateRaw, String snippet, List<String> labelIds, Boolean unread,
                          Boolean hasAttachments, String body, String bodyHtml, List<Attachment> attachments,
                          Boolean truncated, List<MessageError> errors) {

    /** A wholly decoded email (the decoder's constructor: it knows nothing of errors). */
    public EmailDetail(String id, String threadId, String subject, String from, String to, String cc, String date,
                       String dateSource, String dateRaw, String snippet, List<String> labelIds, Boolean unread,
                       Boolean hasAttachments, String body, String bodyHtml, List<Attachment> attachments,
                       Boolean truncated) {
        this(id, threadId, subject, from, to, cc, date, dateSource, dateRaw, snippet, labelIds, unread, hasAttachments,
                body, bodyHtml, attachments, truncated, null);
    }

    /** An attachment's description; fetch its bytes with users.messages.attachments.get. */
    public record Attachment(String filename, String mimeType, long size, String attachmentId) {
    }
}
