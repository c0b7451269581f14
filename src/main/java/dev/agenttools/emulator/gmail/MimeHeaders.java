package dev.agenttools.emulator.gmail;

import jakarta.mail.internet.ContentDisposition;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MimeUtility;
import jakarta.mail.internet.ParseException;

import java.io.UnsupportedEncodingException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Header values as real mail writes them, read the way Gmail shows them: raw 8-bit UTF-8 (RFC 6532) decoded,
 * and Content-Type / Content-Disposition parsed even when a sender left a parameter unquoted that needed quotes
 * ({@code boundary=----=_NextPart_000_...} from Outlook, {@code filename=This is a test.txt}). Angus Mail
 * parses every header it can; this only steps in where it refuses one. Stateless.
 */
final class MimeHeaders {
    private MimeHeaders() {
    }

    /**
     * A raw header value (read by Angus Mail as ISO-8859-1, byte for byte) with 8-bit UTF-8 decoded. Bytes that
     * are not valid UTF-8 stay as ISO-8859-1, which is what legacy 8-bit headers most often are.
     */
    static String utf8(String raw) {
        if (raw == null) {
            return null;
        }
        boolean eightBit = false;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c > 0xFF) {
                return raw; // already decoded
            }
            eightBit |= c >= 0x80;
        }
        if (!eightBit) {
            return raw;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw.getBytes(StandardCharsets.ISO_8859_1))).toString();
        } catch (CharacterCodingException notUtf8) {
            return raw;
        }
    }

    /** Encoded words (RFC 2047) decoded; the value as it is when they are broken. */
    static String decodeWords(String value) {
        if (value == null || !value.contains("=?")) {
            return value;
        }
        try {
            return MimeUtility.decodeText(value);
        } catch (UnsupportedEncodingException | RuntimeException e) {
            return value;
        }
    }

    /** The Content-Type, or null when it is missing or beyond repair (RFC 2045 then means text/plain). */
    static ContentType contentType(String raw) {
        return parsed(raw, ContentType::new);
    }

    /** The Content-Disposition, or null when it is missing or beyond repair. */
    static ContentDisposition disposition(String raw) {
        return parsed(raw, ContentDisposition::new);
    }

    /** One of Angus Mail's header parsers. */
    @FunctionalInterface
    private interface HeaderParser<T> {
        T parse(String value) throws ParseException;
    }

    /** The header as Angus Mail parses it, else as it parses the header with its parameters quoted, else null. */
    private static <T> T parsed(String raw, HeaderParser<T> parser) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        String value = utf8(MimeUtility.unfold(raw)).strip();
        try {
            return parser.parse(value);
        } catch (ParseException | RuntimeException e) {
            try {
                return parser.parse(requote(value));
            } catch (ParseException | RuntimeException stillBroken) {
                return null;
            }
        }
    }

    /**
     * The header with every parameter value quoted: each value runs to the next ';' unless it is already a quoted
     * string. Written by hand because it is the one case Angus Mail's lenient mode does not cover (a value with
     * spaces or specials such as '=' left unquoted); it runs only after Angus has refused the header.
     */
    static String requote(String value) {
        int semicolon = value.indexOf(';');
        if (semicolon < 0) {
            return value;
        }
        StringBuilder out = new StringBuilder(value.substring(0, semicolon).strip());
        int i = semicolon + 1;
        while (i < value.length()) {
            int eq = value.indexOf('=', i);
            int nextSemicolon = value.indexOf(';', i);
            if (eq < 0 || (nextSemicolon >= 0 && nextSemicolon < eq)) {
                i = nextSemicolon < 0 ? value.length() : nextSemicolon + 1; // a parameter without a value: drop it
                continue;
            }
            String name = value.substring(i, eq).strip();
            int start = eq + 1;
            while (start < value.length() && Character.isWhitespace(value.charAt(start))) {
                start++;
            }
            String parameter;
            int end;
            if (start < value.length() && value.charAt(start) == '"') {
                end = start + 1;
                while (end < value.length() && value.charAt(end) != '"') {
                    end += value.charAt(end) == '\\' ? 2 : 1;
                }
                parameter = value.substring(start + 1, Math.min(end, value.length())).replaceAll("\\\\(.)", "$1");
                int after = value.indexOf(';', Math.min(end, value.length()));
                end = after < 0 ? value.length() : after;
            } else {
                int after = value.indexOf(';', start);
                end = after < 0 ? value.length() : after;
                parameter = value.substring(start, end).strip();
            }
            if (!name.isEmpty() && name.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?=".indexOf(c) < 0)) {
                out.append("; ").append(name).append("=\"")
                        .append(parameter.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            }
            i = end + 1;
        }
        return out.toString();
    }
}
