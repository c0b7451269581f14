package dev.agenttools.emulator;

import jakarta.mail.BodyPart;
import jakarta.mail.Header;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;
import org.jsoup.Jsoup;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Parses raw RFC 5322 mail with Angus Mail into the tree Gmail's {@code format=full} shows.
 * Thread-safe: it keeps no state between calls.
 */
final class MimeParser {
    private static final int SNIPPET_CHARS = 200;
    /**
     * Multipart nesting the tree follows; a multipart deeper than this is served whole as one opaque part. Real mail
     * nests a handful of levels; the cap keeps a hostile message (thousands of levels) from overflowing the stack.
     */
    static final int MAX_DEPTH = 100;
    private static final Session SESSION = Session.getInstance(lenientProperties());

    static {
        // Angus Mail looks its StreamProvider up through ServiceLoader for every header block, and the activation
        // framework finds its content handlers lazily; the first time also loads and initialises their classes, the
        // deepest work on the stack. Do that first time here, on a shallow stack (a class whose initialiser overflowed
        // would stay broken for every later message); MAX_DEPTH bounds the stack of every later lookup.
        parse("""
                Content-Type: multipart/mixed; boundary=b\r
                \r
                --b\r
                Content-Type: text/plain; charset=UTF-8\r
                Content-Transfer-Encoding: base64\r
                \r
                d2FybS11cA==\r
                --b--\r
                """.getBytes(StandardCharsets.US_ASCII));
    }

    private MimeParser() {
    }

    private static Properties lenientProperties() {
        // Real mail is messy: accept what Gmail accepts rather than failing a whole mailbox on one header.
        Properties p = new Properties();
        p.setProperty("mail.mime.address.strict", "false");
        p.setProperty("mail.mime.decodetext.strict", "false");
        p.setProperty("mail.mime.parameters.strict", "false");
        p.setProperty("mail.mime.decodefilename", "true");
        p.setProperty("mail.mime.decodeparameters", "true");
        p.setProperty("mail.mime.multipart.ignoremissingendboundary", "true");
        p.setProperty("mail.mime.multipart.allowempty", "true");
        return p;
    }

    static Session session() {
        return SESSION;
    }

    static ParsedMessage parse(byte[] raw) {
        try {
            MimeMessage message = new MimeMessage(SESSION, new ByteArrayInputStream(raw));
            MessagePart root = part(message, "", 0);
            List<String> names = new ArrayList<>();
            root.forEach(p -> {
                if (p.attachment() && !p.filename().isEmpty()) {
                    names.add(p.filename());
                }
            });
            String text = bodyText(root);
            Date sent = safeSentDate(message);
            String subject = header(root, "Subject");
            String from = header(root, "From");
            String to = header(root, "To");
            String cc = header(root, "Cc");
            return new ParsedMessage(root, subject, from, to, cc,
                    header(root, "Bcc"), header(root, "Delivered-To"), header(root, "List-Id"),
                    header(root, "Message-ID"), header(root, "In-Reply-To"), header(root, "References"),
                    text, snippet(text), names, sent == null ? -1 : sent.getTime(),
                    ParsedMessage.searchText(subject, from, to, cc, text, names));
        } catch (MessagingException | IOException e) {
            throw new IllegalArgumentException("unreadable message: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // Angus Mail's decoders throw unchecked exceptions on some broken input (a short uuencode "begin" line)
            throw new IllegalArgumentException("unreadable message: " + e, e);
        }
    }

    private static Date safeSentDate(MimeMessage message) {
        try {
            return message.getSentDate();
        } catch (MessagingException e) {
            return null;
        }
    }

    static String header(MessagePart part, String name) {
        for (MessagePart.Header h : part.headers()) {
            if (h.name().equalsIgnoreCase(name)) {
                return h.value();
            }
        }
        return "";
    }

    /** The part and those below it; {@code depth} is how many multiparts enclose it (0 for the message). */
    private static MessagePart part(Part part, String partId, int depth) throws MessagingException, IOException {
        List<MessagePart.Header> headers = headers(part);
        String mimeType = baseType(part);
        String filename = fileName(part);
        if (mimeType.startsWith("multipart/") && depth >= MAX_DEPTH) {
            // too deep to be real mail: keep its headers, serve the rest undivided through attachments.get
            return new MessagePart(partId, mimeType, filename, headers, readAll(part), true, List.of());
        }
        if (mimeType.startsWith("multipart/")) {
            List<MessagePart> children = new ArrayList<>();
            Object content = safeContent(part);
            if (content instanceof Multipart multipart) {
                for (int i = 0; i < multipart.getCount(); i++) {
                    BodyPart child = multipart.getBodyPart(i);
                    children.add(part(child, partId.isEmpty() ? Integer.toString(i) : partId + "." + i, depth + 1));
                }
            }
            return new MessagePart(partId, mimeType, filename, headers, new byte[0], false, children);
        }
        boolean inlineText = mimeType.startsWith("text/") && filename.isEmpty()
                && !Part.ATTACHMENT.equalsIgnoreCase(disposition(part));
        byte[] data = inlineText ? textAsUtf8(part) : readAll(part);
        return new MessagePart(partId, mimeType, filename, headers, data, !inlineText, List.of());
    }

    private static Object safeContent(Part part) throws IOException {
        try {
            return part.getContent();
        } catch (MessagingException e) {
            return null;
        }
    }

    private static String disposition(Part part) {
        try {
            return part.getDisposition();
        } catch (MessagingException e) {
            return null;
        }
    }

    /** Gmail's {@code full} format hands text parts out as UTF-8 whatever their declared charset. */
    private static byte[] textAsUtf8(Part part) throws MessagingException {
        try {
            Object content = part.getContent();
            if (content instanceof String s) {
                return s.getBytes(StandardCharsets.UTF_8);
            }
        } catch (IOException | MessagingException e) {
            // unknown charset or broken encoding: fall through to the bytes, read as UTF-8 with replacement
        }
        return new String(readAll(part), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] readAll(Part part) throws MessagingException {
        try (var in = part.getInputStream()) {
            return in.readAllBytes();
        } catch (IOException | MessagingException e) {
            // A broken transfer encoding: Gmail still shows the part, so serve its undecoded bytes.
            try (var in = rawStream(part)) {
                return in == null ? new byte[0] : in.readAllBytes();
            } catch (IOException io) {
                return new byte[0];
            }
        }
    }

    private static java.io.InputStream rawStream(Part part) throws MessagingException {
        return switch (part) {
            case jakarta.mail.internet.MimeBodyPart b -> b.getRawInputStream();
            case MimeMessage m -> m.getRawInputStream();
            default -> null;
        };
    }

    private static List<MessagePart.Header> headers(Part part) throws MessagingException {
        List<MessagePart.Header> out = new ArrayList<>();
        for (Header h : Collections.list(part.getAllHeaders())) {
            String value = MimeUtility.unfold(h.getValue() == null ? "" : h.getValue()).strip();
            String name = h.getName();
            if (!name.regionMatches(true, 0, "Content-", 0, 8)) {
                value = decodeWords(value);
            }
            out.add(new MessagePart.Header(name, value));
        }
        return out;
    }

    private static String decodeWords(String value) {
        if (!value.contains("=?")) {
            return value;
        }
        try {
            return MimeUtility.decodeText(value);
        } catch (UnsupportedEncodingException e) {
            return value;
        }
    }

    private static String baseType(Part part) {
        try {
            String ct = part.getContentType();
            return ct == null ? "text/plain" : new ContentType(ct).getBaseType().toLowerCase(Locale.ROOT);
        } catch (MessagingException e) {
            return "text/plain"; // RFC 2045: a broken Content-Type means text/plain
        }
    }

    private static String fileName(Part part) {
        try {
            String name = part.getFileName();
            return name == null ? "" : decodeWords(name);
        } catch (MessagingException e) {
            return "";
        }
    }

    /** Readable text of the message: the first inline text/plain part, else the first HTML part as text. */
    static String bodyText(MessagePart root) {
        MessagePart plain = firstInline(root, "text/plain");
        if (plain != null) {
            return new String(plain.data(), StandardCharsets.UTF_8);
        }
        MessagePart html = firstInline(root, "text/html");
        if (html != null) {
            return Jsoup.parse(new String(html.data(), StandardCharsets.UTF_8)).text();
        }
        return "";
    }

    private static MessagePart firstInline(MessagePart part, String type) {
        if (!part.attachment() && part.mimeType().equals(type)) {
            return part;
        }
        for (MessagePart child : part.parts()) {
            MessagePart found = firstInline(child, type);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** Gmail's snippet: the start of the text, whitespace collapsed, HTML-escaped (Gmail sends {@code &#39;}). */
    static String snippet(String text) {
        String collapsed = text.replaceAll("\\s+", " ").strip();
        if (collapsed.length() > SNIPPET_CHARS) {
            collapsed = collapsed.substring(0, SNIPPET_CHARS).stripTrailing();
        }
        StringBuilder out = new StringBuilder(collapsed.length() + 16);
        for (int i = 0; i < collapsed.length(); i++) {
            char c = collapsed.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
