package dev.agenttools.google;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.google.api.client.util.ObjectParser;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Type;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;

/**
 * Reading Google's answers into the Google clients' own model classes with Jackson's streaming parser, field by
 * field, for the few answers on every list's critical path (Gmail's messages.list and messages.get, Calendar's
 * calendarList.list and events.list).
 *
 * <p>Why not the clients' parser: its {@code JsonObjectParser} fills the model by reflection ({@code ClassInfo},
 * {@code FieldInfo}, {@code GenericData} per object) and costs 1-4 ms per answer until the JIT has compiled it, and
 * ~1.5 ms more per exchange than a plain GET read here even then (measured on calendarList.list against the
 * emulator at 150 ms: 154.8 against 153.1 ms p50, warm); answers arriving at once serialise on two cores. Fields a
 * reader does not know are skipped, as the tools never read them. Stateless; thread-safe.
 */
public final class StreamingJson {
    private static final JsonFactory JSON = new JsonFactory();

    private StreamingJson() {
    }

    /** Reads one value, the parser on its first token. */
    public interface ValueReader<T> {
        T read(JsonParser p) throws IOException;
    }

    /** Reads one field's value, the parser on it (or skips it: {@link JsonParser#skipChildren()}). */
    public interface Field {
        void read(String name, JsonParser value) throws IOException;
    }

    /** The whole document {@code json}, read by {@code reader}; what cannot be read is an {@link UnreadableAnswer}. */
    public static <T> T read(byte[] json, ValueReader<T> reader) throws IOException {
        return read(new ByteArrayInputStream(json), reader);
    }

    /**
     * The document {@code json} streams, read by {@code reader} as it arrives (nothing is buffered whole). What cannot
     * be read is an {@link UnreadableAnswer}: malformed JSON, JSON of another shape, past Jackson's default
     * {@code StreamReadConstraints} (nesting over 1,000 levels, a string over 20,000,000 characters), a value the model
     * cannot hold (a historyId that is not a number). A failure of the stream itself (a lost connection, a
     * cancellation, a body over its limit) is thrown as it is.
     */
    public static <T> T read(InputStream json, ValueReader<T> reader) throws IOException {
        try (JsonParser p = JSON.createParser(json)) {
            p.nextToken();
            return reader.read(p);
        } catch (JsonProcessingException e) {
            throw new UnreadableAnswer("the answer is not the JSON expected: " + e.getOriginalMessage(), e);
        } catch (RuntimeException e) {
            throw new UnreadableAnswer("the answer holds a value that cannot be read: " + e, e);
        }
    }

    /** Walks an object's fields, the parser on its START_OBJECT; null values are left unset, as the client leaves them. */
    public static void fields(JsonParser p, Field field) throws IOException {
        expect(p.currentToken(), JsonToken.START_OBJECT);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            if (p.nextToken() != JsonToken.VALUE_NULL) {
                field.read(name, p);
            }
        }
    }

    /** An array's elements, the parser on its START_ARRAY. */
    public static <T> List<T> array(JsonParser p, ValueReader<T> element) throws IOException {
        return array(p, element, Integer.MAX_VALUE);
    }

    /**
     * An array's first {@code max} elements, the parser on its START_ARRAY; the rest are read past without being
     * kept (an answer with more items than asked for costs the time to read it, not the memory).
     */
    public static <T> List<T> array(JsonParser p, ValueReader<T> element, int max) throws IOException {
        expect(p.currentToken(), JsonToken.START_ARRAY);
        List<T> out = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (out.size() < max) {
                out.add(element.read(p));
            } else {
                p.skipChildren();
            }
        }
        return out;
    }

    /** Google sends 64-bit numbers as JSON strings ({@code "internalDate": "1795996709000"}); a bare number is read too. */
    public static Long asLong(JsonParser p) throws IOException {
        return p.currentToken() == JsonToken.VALUE_STRING ? Long.valueOf(p.getText().strip()) : p.getValueAsLong();
    }

    /** A boolean, as JSON true/false or Google's occasional string form. */
    public static Boolean asBoolean(JsonParser p) throws IOException {
        return p.currentToken() == JsonToken.VALUE_STRING ? Boolean.valueOf(p.getText().strip()) : p.getValueAsBoolean();
    }

    /**
     * A parser for a Google client's requests that reads {@code type}'s answers with {@code reader} and leaves
     * anything else (error containers) to {@code fallback}, the client's own: for batch parts, which the client's
     * {@code BatchRequest} hands one by one to the queued request's parser on one thread, so that reflective
     * parses add up on the call's critical path. A part that cannot be read fails the whole batch.
     */
    public static <M> ObjectParser preferring(Class<M> type, ValueReader<M> reader, ObjectParser fallback) {
        return preferring(type, reader, fallback, BoundedBody.MAX_BYTES, e -> {
            throw e;
        });
    }

    /** What a batch part that cannot be read stands for. */
    @FunctionalInterface
    public interface Unreadable<M> {
        M stand(UnreadableAnswer e) throws IOException;
    }

    /**
     * {@link #preferring(Class, ValueReader, ObjectParser)}, reading at most {@code limit} bytes of a part, and a
     * part that cannot be read is given to {@code unreadable}: the batch's other parts are still read (the client
     * stops the whole batch at a parser's exception), and the caller says that part failed.
     */
    public static <M> ObjectParser preferring(Class<M> type, ValueReader<M> reader, ObjectParser fallback, long limit,
                                              Unreadable<M> unreadable) {
        return new ObjectParser() {
            @Override
            public <T> T parseAndClose(InputStream in, Charset charset, Class<T> dataClass) throws IOException {
                if (dataClass != type) {
                    return fallback.parseAndClose(in, charset, dataClass);
                }
                try (in) {
                    return dataClass.cast(read(BoundedBody.limited(in, limit), reader));
                } catch (UnreadableAnswer e) {
                    return dataClass.cast(unreadable.stand(e));
                }
            }

            @Override
            public Object parseAndClose(InputStream in, Charset charset, Type dataType) throws IOException {
                return dataType == type ? parseAndClose(in, charset, type) : fallback.parseAndClose(in, charset, dataType);
            }

            @Override
            public <T> T parseAndClose(Reader reader, Class<T> dataClass) throws IOException {
                return fallback.parseAndClose(reader, dataClass); // not used by the client for answers read as bytes
            }

            @Override
            public Object parseAndClose(Reader reader, Type dataType) throws IOException {
                return fallback.parseAndClose(reader, dataType);
            }
        };
    }

    private static void expect(JsonToken actual, JsonToken wanted) throws IOException {
        if (actual != wanted) {
            throw new UnreadableAnswer("the answer is JSON of an unexpected shape: " + wanted + " expected, got " + actual);
        }
    }
}
