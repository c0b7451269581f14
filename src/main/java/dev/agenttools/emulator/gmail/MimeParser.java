package dev.agenttools.emulator.gmail;

import jakarta.mail.BodyPart;
import jakarta.mail.Header;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentDisposition;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.internet.MimeUtility;
import jakarta.mail.util.ByteArrayDataSource;
import org.jsoup.Jsoup;
import org.mozilla.universalchardet.UniversalDetector;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
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
    private static final ContentType MESSAGE_RFC822 = new ContentType("message", "rfc822", null);

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
            MimeMessage message = new MimeMessage(SESSION, new ByteArrayInputStream(headersEnded(raw)));
            MessagePart root = part(message, "", 0, false);
            List<String> names = new ArrayList<>();
            root.forEach(p -> {
                if (!p.filename().isEmpty()) {
                    names.add(p.filename());
                }
            });
            String text = bodyText(root);
            String subject = header(root, "Subject");
            String from = header(root, "From");
            String to = header(root, "To");
            String cc = header(root, "Cc");
            return new ParsedMessage(root, subject, from, to, cc,
                    header(root, "Bcc"), header(root, "Delivered-To"), header(root, "List-Id"),
                    header(root, "Message-ID"), header(root, "In-Reply-To"), header(root, "References"),
                    text, snippet(text), names,
                    ParsedMessage.searchText(subject, from, to, cc, text, names));
        } catch (MessagingException | IOException e) {
            throw new IllegalArgumentException("unreadable message: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // Angus Mail's decoders throw unchecked exceptions on some broken input (a short uuencode "begin" line)
            throw new IllegalArgumentException("unreadable message: " + e, e);
        }
    }

    /**
     * The message with its header section ended where the first line that is no header starts (no colon, not a
     * continuation). RFC 5322 wants a blank line there; mail without one is common, and Angus Mail would read the
     * body's first line as a header. Python's email package reads it as this does.
     */
    static byte[] headersEnded(byte[] raw) {
        int pos = 0;
        while (pos < raw.length) {
            int end = pos;
            while (end < raw.length && raw[end] != '\n') {
                end++;
            }
            int contentEnd = end > pos && raw[end - 1] == '\r' ? end - 1 : end;
            if (contentEnd == pos) {
                return raw; // the blank line: headers ended properly
            }
            if (!isHeaderLine(raw, pos, contentEnd)) {
                byte[] newline = end > pos && end < raw.length && raw[end - 1] == '\r' ? new byte[] {'\r', '\n'} : new byte[] {'\n'};
                byte[] out = new byte[raw.length + newline.length];
                System.arraycopy(raw, 0, out, 0, pos);
                System.arraycopy(newline, 0, out, pos, newline.length);
                System.arraycopy(raw, pos, out, pos + newline.length, raw.length - pos);
                return out;
            }
            pos = end + 1;
        }
        return raw;
    }

    /** A header line, a continuation, or an mbox "From " line: field-name chars (RFC 5322 ftext) then ':'. */
    private static boolean isHeaderLine(byte[] raw, int from, int to) {
        if (raw[from] == ' ' || raw[from] == '\t') {
            return true;
        }
        if (to - from >= 5 && new String(raw, from, 5, StandardCharsets.ISO_8859_1).equals("From ")) {
            return true;
        }
        for (int i = from; i < to; i++) {
            byte b = raw[i];
            if (b == ':') {
                return i > from;
            }
            if (b < 33 || b > 126) {
                return false;
            }
        }
        return false;
    }

    static String header(MessagePart part, String name) {
        for (MessagePart.Header h : part.headers()) {
            if (h.name().equalsIgnoreCase(name)) {
                return h.value();
            }
        }
        return "";
    }

    /**
     * The part and those below it; {@code depth} is how many multiparts and forwarded messages enclose it (0 for
     * the message), {@code inDigest} whether its parent is a multipart/digest.
     */
    private static MessagePart part(Part part, String partId, int depth, boolean inDigest)
            throws MessagingException, IOException {
        List<MessagePart.Header> headers = headers(part);
        String rawType = rawHeader(part, "Content-Type");
        // RFC 2046 5.1.5: in a digest, a part without a Content-Type is a message, not text
        ContentType type = rawType == null && inDigest ? MESSAGE_RFC822 : MimeHeaders.contentType(rawType);
        String mimeType = type == null ? "text/plain" : type.getBaseType().toLowerCase(Locale.ROOT);
        ContentDisposition disposition = MimeHeaders.disposition(rawHeader(part, "Content-Disposition"));
        String filename = fileName(type, disposition);
        if ((mimeType.startsWith("multipart/") || mimeType.equals("message/rfc822")) && depth >= MAX_DEPTH) {
            // too deep to be real mail: keep its headers, serve the rest undivided through attachments.get
            return new MessagePart(partId, mimeType, filename, headers, readAll(part), true, List.of());
        }
        if (mimeType.startsWith("multipart/")) {
            List<MessagePart> children = new ArrayList<>();
            Multipart multipart = multipart(part, type);
            if (multipart != null) {
                boolean digest = mimeType.equals("multipart/digest");
                for (int i = 0; i < multipart.getCount(); i++) {
                    BodyPart child = multipart.getBodyPart(i);
                    children.add(part(child, partId.isEmpty() ? Integer.toString(i) : partId + "." + i, depth + 1, digest));
                }
            }
            return new MessagePart(partId, mimeType, filename, headers, new byte[0], false, children);
        }
        if (mimeType.equals("message/rfc822")) {
            // Gmail shows a forwarded message as its own part tree under the message/rfc822 part, and serves the
            // message itself (the .eml) through attachments.get.
            byte[] inner = readAll(part);
            MimeMessage message = new MimeMessage(SESSION, new ByteArrayInputStream(headersEnded(inner)));
            MessagePart root = part(message, partId.isEmpty() ? "0" : partId + ".0", depth + 1, false);
            return new MessagePart(partId, mimeType, filename, headers, inner, true, List.of(root));
        }
        boolean inlineText = mimeType.startsWith("text/")
                && (disposition == null || !Part.ATTACHMENT.equalsIgnoreCase(disposition.getDisposition()));
        byte[] data = inlineText ? textAsUtf8(readAll(part), type) : readAll(part);
        return new MessagePart(partId, mimeType, filename, headers, data, !inlineText, List.of());
    }

    private static String rawHeader(Part part, String name) throws MessagingException {
        String[] values = part.getHeader(name);
        return values == null || values.length == 0 ? null : values[0];
    }

    /**
     * The parts of a multipart, with the boundary as our lenient Content-Type read it (Angus Mail alone refuses
     * Outlook's unquoted {@code boundary=----=_NextPart...}); null when it has no boundary at all.
     */
    private static Multipart multipart(Part part, ContentType type) throws MessagingException {
        if (type == null || type.getParameter("boundary") == null) {
            return null;
        }
        try {
            MimeMultipart multipart = new MimeMultipart(new ByteArrayDataSource(readAll(part), type.toString()));
            multipart.getCount(); // parses now, inside this try
            return multipart;
        } catch (MessagingException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Gmail's {@code full} format hands text parts out as UTF-8 whatever their declared charset. The declared
     * charset decodes the text; undeclared (or declared US-ASCII, or unknown) 8-bit text is read as UTF-8 when it is
     * valid UTF-8, else in the charset a detector finds (Big5, windows-1252...), else as ISO-8859-1.
     */
    private static byte[] textAsUtf8(byte[] bytes, ContentType type) {
        String name = type == null ? null : type.getParameter("charset");
        Charset declared = null;
        try {
            declared = name == null || name.isBlank() ? null : Charset.forName(MimeUtility.javaCharset(name.strip()));
        } catch (IllegalArgumentException unknown) {
            // an unknown or misspelled charset: guessed below
        }
        // (Angus Mail maps "us-ascii" to ISO-8859-1, so ASCII is recognised by its name.)
        boolean ascii = name != null && name.strip().matches("(?i)(us-?)?ascii|ansi_x3\\.4-1968|us");
        if (declared != null && !ascii && !declared.equals(StandardCharsets.US_ASCII)) {
            return new String(bytes, declared).getBytes(StandardCharsets.UTF_8);
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return bytes;
        } catch (CharacterCodingException notUtf8) {
            return new String(bytes, guessedCharset(bytes)).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The charset Mozilla's detector finds in undeclared 8-bit text; ISO-8859-1 (every byte kept) when it finds none. */
    private static Charset guessedCharset(byte[] bytes) {
        UniversalDetector detector = new UniversalDetector();
        detector.handleData(bytes, 0, bytes.length);
        detector.dataEnd();
        String name = detector.getDetectedCharset();
        try {
            return name == null ? StandardCharsets.ISO_8859_1 : Charset.forName(name);
        } catch (IllegalArgumentException unsupported) {
            return StandardCharsets.ISO_8859_1;
        }
    }

    /** The content with its transfer encoding undone; its raw bytes when that encoding is broken, as Gmail shows it. */
    private static byte[] readAll(Part part) throws MessagingException {
        try (var in = part.getInputStream()) {
            return in.readAllBytes();
        } catch (IOException | MessagingException e) {
            try (var in = rawStream(part)) {
                return in == null ? new byte[0] : in.readAllBytes();
            } catch (IOException io) {
                return new byte[0];
            }
        }
    }

    private static InputStream rawStream(Part part) throws MessagingException {
        return switch (part) {
            case jakarta.mail.internet.MimeBodyPart b -> b.getRawInputStream();
            case MimeMessage m -> m.getRawInputStream();
            default -> null;
        };
    }

    private static List<MessagePart.Header> headers(Part part) throws MessagingException {
        List<MessagePart.Header> out = new ArrayList<>();
        for (Header h : Collections.list(part.getAllHeaders())) {
            String value = MimeHeaders.utf8(MimeUtility.unfold(h.getValue() == null ? "" : h.getValue()).strip());
            String name = h.getName();
            if (!name.regionMatches(true, 0, "Content-", 0, 8)) {
                value = MimeHeaders.decodeWords(value);
            }
            out.add(new MessagePart.Header(name, value));
        }
        return out;
    }

    /** The file name from Content-Disposition, else Content-Type's name (RFC 2231 and encoded words decoded). */
    private static String fileName(ContentType type, ContentDisposition disposition) {
        String name = disposition == null ? null : disposition.getParameter("filename");
        if (name == null && type != null) {
            name = type.getParameter("name");
        }
        return name == null ? "" : MimeHeaders.decodeWords(name).strip();
    }

    /**
     * Readable text of the message, for search and the snippet: the first inline text/plain part, else the first
     * HTML part as text; then the same of every forwarded message (message/rfc822 part), which Gmail searches too.
     */
    static String bodyText(MessagePart root) {
        StringBuilder text = new StringBuilder(ownText(root));
        root.forEach(p -> {
            if (p.mimeType().equals("message/rfc822") && !p.parts().isEmpty()) {
                text.append("\n\n").append(ownText(p.parts().getFirst()));
            }
        });
        return text.toString();
    }

    private static String ownText(MessagePart root) {
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

    /** The first inline part of the type, not looking inside forwarded messages. */
    private static MessagePart firstInline(MessagePart part, String type) {
        if (!part.attachment() && part.mimeType().equals(type)) {
            return part;
        }
        if (part.mimeType().equals("message/rfc822")) {
            return null;
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
