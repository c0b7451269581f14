package dev.agenttools.gmail;

import com.google.api.services.gmail.model.Message;
import com.google.api.services.gmail.model.MessagePart;
import com.google.api.services.gmail.model.MessagePartHeader;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MimeUtility;
import org.jsoup.parser.Parser;

import java.io.UnsupportedEncodingException;
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
import java.util.List;

/**
 * Turns Gmail's {@code Message} resource into the tools' output: headers decoded, dates in RFC 3339, text in the
 * right charset (Japanese included), HTML as text with links. Stateless; thread-safe.
 */
final class MessageDecoder {
    static final String NO_SUBJECT = "(no subject)";
    /** Heads each forwarded message appended to a body, as Gmail's own forward does. */
    static final String FORWARDED = "---------- Forwarded message ----------";
    private static final List<String> FORWARDED_HEADERS = List.of("From", "Date", "Subject", "To", "Cc");
    private static final DateTimeFormatter RFC_3339 = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

    private MessageDecoder() {
    }

    static EmailSummary summary(Message m) {
        MessagePart payload = m.getPayload();
        HeaderOrArrival date = date(payload, m);
        return new EmailSummary(m.getId(), m.getThreadId(), subject(payload), header(payload, "From"), header(payload, "To"),
                date.text(), date.source(), rawDate(payload), snippet(m), labels(m), labels(m).contains("UNREAD"), hasAttachments(payload));
    }

    static EmailDetail detail(Message m, int maxBodyChars, boolean includeHtml) {
        MessagePart payload = m.getPayload();
        MessagePart html = firstInline(payload, "text/html");
        String htmlText = html == null ? null : text(html);
        String body = withForwarded(payload, ownBody(payload));
        boolean truncated = body.length() > maxBodyChars;
        if (truncated) {
            body = body.substring(0, maxBodyChars);
        }
        List<EmailDetail.Attachment> attachments = new ArrayList<>();
        collectAttachments(payload, attachments);
        HeaderOrArrival date = date(payload, m);
        return new EmailDetail(m.getId(), m.getThreadId(), subject(payload), header(payload, "From"), header(payload, "To"),
                header(payload, "Cc"), date.text(), date.source(), rawDate(payload), snippet(m), labels(m), labels(m).contains("UNREAD"),
                !attachments.isEmpty(), body, includeHtml ? htmlText : null, attachments, truncated);
    }

    /** A part tree's readable text: its first inline text/plain, else its first HTML as text; never a forwarded one's. */
    private static String ownBody(MessagePart root) {
        MessagePart plain = firstInline(root, "text/plain");
        if (plain != null) {
            return text(plain);
        }
        MessagePart html = firstInline(root, "text/html");
        return html == null ? "" : HtmlText.toText(text(html));
    }

    /**
     * The body with every forwarded message (message/rfc822 part, Gmail shows its tree below it) appended under a
     * separator with its headers, so an agent reads what was forwarded, not only the note above it.
     */
    private static String withForwarded(MessagePart payload, String body) {
        List<MessagePart> forwarded = new ArrayList<>();
        collectForwarded(payload, forwarded);
        if (forwarded.isEmpty()) {
            return body;
        }
        StringBuilder out = new StringBuilder(body.strip());
        for (MessagePart inner : forwarded) {
            if (!out.isEmpty()) {
                out.append("\n\n");
            }
            out.append(FORWARDED);
            for (String name : FORWARDED_HEADERS) {
                String value = header(inner, name);
                if (value != null && !value.isBlank()) {
                    out.append('\n').append(name).append(": ").append(value.strip().replaceAll("\\s+", " "));
                }
            }
            out.append("\n\n").append(ownBody(inner).strip());
        }
        return out.toString();
    }

    /** The root part of each forwarded message, in tree order; forwards inside forwards stay inside theirs. */
    private static void collectForwarded(MessagePart part, List<MessagePart> out) {
        if (part.getParts() == null) {
            return;
        }
        for (MessagePart child : part.getParts()) {
            if ("message/rfc822".equalsIgnoreCase(child.getMimeType())) {
                if (child.getParts() != null && !child.getParts().isEmpty()) {
                    out.add(child.getParts().getFirst());
                }
            } else {
                collectForwarded(child, out);
            }
        }
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
                    } catch (UnsupportedEncodingException e) {
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

    /** A date in RFC 3339 and where it came from (null: the Date header; "arrival": Gmail's internalDate). */
    private record HeaderOrArrival(String text, String source) {
    }

    /** The Date header in RFC 3339 with its own offset; the arrival time in UTC when it is missing or impossible. */
    private static HeaderOrArrival date(MessagePart payload, Message m) {
        return HeaderDate.parse(rawDate(payload)).map(d -> new HeaderOrArrival(d.format(RFC_3339), null))
                .orElseGet(() -> {
                    long internal = m.getInternalDate() == null ? 0 : m.getInternalDate();
                    return new HeaderOrArrival(OffsetDateTime.ofInstant(Instant.ofEpochMilli(internal), ZoneOffset.UTC)
                            .format(RFC_3339), "arrival");
                });
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
        // Gmail serves a part inline (body.data) unless it is an attachment; an inline text part with a file name
        // is still the text the sender meant to be read.
        if (type.equalsIgnoreCase(part.getMimeType()) && part.getBody() != null && part.getBody().getData() != null) {
            return part;
        }
        if (part.getParts() != null && !"message/rfc822".equalsIgnoreCase(part.getMimeType())) {
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
