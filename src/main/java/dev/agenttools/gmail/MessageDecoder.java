package dev.agenttools.gmail;

import com.google.api.services.gmail.model.Message;
import com.google.api.services.gmail.model.MessagePart;
import com.google.api.services.gmail.model.MessagePartHeader;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MailDateFormat;
import jakarta.mail.internet.MimeUtility;
import org.jsoup.parser.Parser;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * Turns Gmail's {@code Message} resource into the tools' output: headers decoded, dates in RFC 3339, text in the
 * right charset (Japanese included), HTML as text with links. Stateless; thread-safe.
 */
final class MessageDecoder {
    static final String NO_SUBJECT = "(no subject)";
    private static final DateTimeFormatter RFC_3339 = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

    private MessageDecoder() {
    }

    static EmailSummary summary(Message m) {
        MessagePart payload = m.getPayload();
        return new EmailSummary(m.getId(), m.getThreadId(), subject(payload), header(payload, "From"), header(payload, "To"),
                date(payload, m), rawDate(payload), snippet(m), labels(m), labels(m).contains("UNREAD"), hasAttachments(payload));
    }

    static EmailDetail detail(Message m, int maxBodyChars, boolean includeHtml) {
        MessagePart payload = m.getPayload();
        MessagePart plain = firstInline(payload, "text/plain");
        MessagePart html = firstInline(payload, "text/html");
        String htmlText = html == null ? null : text(html);
        String body = plain != null ? text(plain) : htmlText != null ? HtmlText.toText(htmlText) : "";
        boolean truncated = body.length() > maxBodyChars;
        if (truncated) {
            body = body.substring(0, maxBodyChars);
        }
        List<EmailDetail.Attachment> attachments = new ArrayList<>();
        collectAttachments(payload, attachments);
        return new EmailDetail(m.getId(), m.getThreadId(), subject(payload), header(payload, "From"), header(payload, "To"),
                header(payload, "Cc"), date(payload, m), rawDate(payload), snippet(m), labels(m), labels(m).contains("UNREAD"),
                !attachments.isEmpty(), body, includeHtml ? htmlText : null, attachments, truncated);
    }

    private static List<String> labels(Message m) {
        return m.getLabelIds() == null ? List.of() : m.getLabelIds();
    }

    private static String snippet(Message m) {
        return m.getSnippet() == null ? "" : Parser.unescapeEntities(m.getSnippet(), false);
    }

    private static String subject(MessagePart payload) {
        String s = header(payload, "Subject");
        return s == null || s.isBlank() ? NO_SUBJECT : s;
    }

    /** A header's value with any encoded words still in it decoded (Gmail decodes most; some senders double-encode). */
    static String header(MessagePart part, String name) {
        if (part == null || part.getHeaders() == null) {
            return null;
        }
        for (MessagePartHeader h : part.getHeaders()) {
            if (h.getName() != null && h.getName().equalsIgnoreCase(name)) {
                String v = h.getValue() == null ? "" : h.getValue();
                if (v.contains("=?")) {
                    try {
                        v = MimeUtility.decodeText(v);
                    } catch (java.io.UnsupportedEncodingException e) {
                        // keep it as sent
                    }
                }
                return v;
            }
        }
        return null;
    }

    private static String rawDate(MessagePart payload) {
        return header(payload, "Date");
    }

    /** The Date header in RFC 3339 with its own offset; the arrival time in UTC when there is no readable header. */
    private static String date(MessagePart payload, Message m) {
        String raw = rawDate(payload);
        if (raw != null) {
            try {
                MailDateFormat format = new MailDateFormat();
                Date parsed = format.parse(raw.strip());
                ZoneOffset offset = offsetOf(raw);
                return OffsetDateTime.ofInstant(parsed.toInstant(), offset).format(RFC_3339);
            } catch (java.text.ParseException | RuntimeException e) {
                // fall back to the arrival time
            }
        }
        long internal = m.getInternalDate() == null ? 0 : m.getInternalDate();
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(internal), ZoneOffset.UTC).format(RFC_3339);
    }

    private static ZoneOffset offsetOf(String raw) {
        java.util.regex.Matcher zone = java.util.regex.Pattern.compile("([+-])(\\d{2})(\\d{2})\\b").matcher(raw);
        if (zone.find()) {
            int sign = zone.group(1).equals("-") ? -1 : 1;
            return ZoneOffset.ofHoursMinutes(sign * Integer.parseInt(zone.group(2)), sign * Integer.parseInt(zone.group(3)));
        }
        return ZoneOffset.UTC;
    }

    private static boolean hasAttachments(MessagePart part) {
        if (part == null) {
            return false;
        }
        if (part.getFilename() != null && !part.getFilename().isEmpty()) {
            return true;
        }
        return part.getParts() != null && part.getParts().stream().anyMatch(MessageDecoder::hasAttachments);
    }

    private static void collectAttachments(MessagePart part, List<EmailDetail.Attachment> out) {
        if (part == null) {
            return;
        }
        if (part.getFilename() != null && !part.getFilename().isEmpty()) {
            long size = part.getBody() == null || part.getBody().getSize() == null ? 0 : part.getBody().getSize();
            out.add(new EmailDetail.Attachment(part.getFilename(), part.getMimeType(), size,
                    part.getBody() == null ? null : part.getBody().getAttachmentId()));
        }
        if (part.getParts() != null) {
            part.getParts().forEach(p -> collectAttachments(p, out));
        }
    }

    private static MessagePart firstInline(MessagePart part, String type) {
        if (part == null) {
            return null;
        }
        boolean isAttachment = part.getFilename() != null && !part.getFilename().isEmpty();
        if (!isAttachment && type.equalsIgnoreCase(part.getMimeType()) && part.getBody() != null
                && part.getBody().getData() != null) {
            return part;
        }
        if (part.getParts() != null) {
            for (MessagePart p : part.getParts()) {
                MessagePart found = firstInline(p, type);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /**
     * A text part's content. Gmail hands text out as UTF-8 in {@code full} format but keeps the part's original
     * charset in its header (ISO-2022-JP, say), so: valid UTF-8 is read as UTF-8; anything else with the declared
     * charset.
     */
    static String text(MessagePart part) {
        byte[] bytes = Base64.getUrlDecoder().decode(padless(part.getBody().getData()));
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException notUtf8) {
            return new String(bytes, declaredCharset(part));
        }
    }

    private static String padless(String data) {
        // Gmail pads some fields and not others; the JDK's URL decoder accepts both only without the '='.
        return data.replace("=", "").replace('+', '-').replace('/', '_');
    }

    private static Charset declaredCharset(MessagePart part) {
        String contentType = header(part, "Content-Type");
        try {
            String name = contentType == null ? null : new ContentType(contentType).getParameter("charset");
            return name == null ? StandardCharsets.ISO_8859_1 : Charset.forName(MimeUtility.javaCharset(name));
        } catch (jakarta.mail.internet.ParseException | IllegalArgumentException e) {
            return StandardCharsets.ISO_8859_1;
        }
    }

}
