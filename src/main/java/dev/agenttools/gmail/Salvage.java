package dev.agenttools.gmail;

import com.google.api.services.gmail.model.Message;
import com.google.api.services.gmail.model.MessagePart;
import com.google.api.services.gmail.model.MessagePartHeader;
import dev.agenttools.tool.ToolException;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Decodes a fetched message with {@link MessageDecoder} and, when the decoder throws on it (real-world mail is
 * stranger than any decoder), keeps what can still be read instead of failing the answer: the message is decoded
 * again with less of it, first its headers alone (those the decoder can read one by one), then only what Gmail
 * gives beside the MIME tree (labels, snippet, arrival time), and at worst just its ids. What was left out is left
 * out of the answer too, never filled with a default. Stateless; thread-safe.
 */
final class Salvage {
    private Salvage() {
    }

    /** A decoded email and, when it could be decoded only in part, why. */
    record Read<T>(T email, MessageError error) {
    }

    /** An email that could not be fetched: its ids, from the list, and the subject every summary has. */
    static EmailSummary unfetched(String id, String threadId) {
        return new EmailSummary(id, threadId, MessageDecoder.NO_SUBJECT, null, null, null, null, null, null, null, null, null);
    }

    /** A list's email; {@code id} and {@code threadId} are the list's, for a message that came back without them. */
    static Read<EmailSummary> summary(Message m, String id, String threadId) {
        return summary(m, id, threadId, MessageDecoder::summary);
    }

    /** {@link #summary(Message, String, String)} with another decoder (tests give one that trips on what they choose). */
    static Read<EmailSummary> summary(Message m, String id, String threadId, Function<Message, EmailSummary> decoder) {
        try {
            return new Read<>(decoder.apply(m), null);
        } catch (RuntimeException | StackOverflowError e) {
            MessageError error = undecodable(id, e);
            EmailSummary partial = decodeLess(m, decoder);
            if (partial == null) {
                return new Read<>(unfetched(id, threadId), error);
            }
            // the MIME tree was left out, so whether it holds files is unknown
            return new Read<>(new EmailSummary(or(partial.id(), id), or(partial.threadId(), threadId), partial.subject(),
                    partial.from(), partial.to(), partial.date(), partial.dateSource(), partial.dateRaw(), partial.snippet(), partial.labelIds(),
                    partial.unread(), null), error);
        }
    }

    /** get_email's email: wholly decoded, or what could be with {@code errors} saying what could not. */
    static EmailDetail detail(Message m, String id, int maxBodyChars, boolean includeHtml) {
        return detail(m, id, less -> MessageDecoder.detail(less, maxBodyChars, includeHtml));
    }

    /** {@link #detail(Message, String, int, boolean)} with another decoder (for tests). */
    static EmailDetail detail(Message m, String id, Function<Message, EmailDetail> decoder) {
        try {
            return decoder.apply(m);
        } catch (RuntimeException | StackOverflowError e) {
            List<MessageError> errors = List.of(undecodable(id, e));
            EmailDetail p = decodeLess(m, decoder);
            if (p == null) {
                return new EmailDetail(id, m.getThreadId(), MessageDecoder.NO_SUBJECT, null, null, null, null, null,
                        null, null, null, null, null, null, null, null, null, errors);
            }
            // without the MIME tree there is no body and no attachment list to tell
            return new EmailDetail(or(p.id(), id), p.threadId(), p.subject(), p.from(), p.to(), p.cc(), p.date(),
                    p.dateSource(), p.dateRaw(), p.snippet(), p.labelIds(), p.unread(), null, null, null, null, null, errors);
        }
    }

    /**
     * The message decoded with less of it, or null when even its bare fields defeat the decoder. Failures here are
     * not reported again: the first one, on the whole message, is the error the answer carries.
     */
    private static <T> T decodeLess(Message m, Function<Message, T> decode) {
        List<Message> smaller = new ArrayList<>(2);
        if (m.getPayload() != null && m.getPayload().getHeaders() != null) {
            smaller.add(withHeaders(m, readableHeaders(m, decode)));
        }
        smaller.add(bare(m));
        for (Message less : smaller) {
            try {
                return decode.apply(less);
            } catch (RuntimeException | StackOverflowError tooMuch) {
                // try with less still
            }
        }
        return null;
    }

    /** The headers the decoder reads without failing, each tried alone. */
    private static <T> List<MessagePartHeader> readableHeaders(Message m, Function<Message, T> decode) {
        List<MessagePartHeader> readable = new ArrayList<>();
        for (MessagePartHeader h : m.getPayload().getHeaders()) {
            if (h == null) {
                continue;
            }
            try {
                decode.apply(withHeaders(m, List.of(h)));
                readable.add(h);
            } catch (RuntimeException | StackOverflowError unreadable) {
                // left out: this header is what the decoder cannot read
            }
        }
        return readable;
    }

    /** What Gmail gives beside the MIME tree: ids, labels, snippet, arrival time. */
    private static Message bare(Message m) {
        return new Message().setId(m.getId()).setThreadId(m.getThreadId()).setLabelIds(m.getLabelIds())
                .setSnippet(m.getSnippet()).setInternalDate(m.getInternalDate());
    }

    private static Message withHeaders(Message m, List<MessagePartHeader> headers) {
        return bare(m).setPayload(new MessagePart().setMimeType(m.getPayload().getMimeType()).setHeaders(headers));
    }

    private static MessageError undecodable(String id, Throwable e) {
        return new MessageError(id, ToolException.Kind.INTERNAL.code(),
                "the message was fetched but could not be decoded (" + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); only what could be read is shown");
    }

    private static String or(String value, String fallback) {
        return value != null ? value : fallback;
    }
}
