package dev.agenttools.gmail;

import java.util.List;

/**
 * One whole email (get_email's answer).
 *
 * @param dateSource as in {@link EmailSummary}
 * @param body      readable text: the text/plain part, else the HTML part as text with links kept; then each
 *                  forwarded message (a message/rfc822 part) under {@value MessageDecoder#FORWARDED}, with its From,
 *                  Date, Subject, To and Cc and its own body
 * @param bodyHtml  the HTML part, only when asked for ({@code include_html})
 * @param truncated true when body was cut at {@code max_body_chars}
 */
public record EmailDetail(String id, String threadId, String subject, String from, String to, String cc, String date,
                          String dateSource, String dateRaw, String snippet, List<String> labelIds, boolean unread, boolean hasAttachments,
                          String body, String bodyHtml, List<Attachment> attachments, boolean truncated) {

    /** An attachment's description; fetch its bytes with users.messages.attachments.get. */
    public record Attachment(String filename, String mimeType, long size, String attachmentId) {
    }
}
