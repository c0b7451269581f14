package dev.agenttools.google;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.api.client.util.ObjectParser;

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

    /** The whole document {@code json}, read by {@code reader}. */
    public static <T> T read(byte[] json, ValueReader<T> reader) throws IOException {
        try (JsonParser p = JSON.createParser(json)) {
            p.nextToken();
            return reader.read(p);
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
        expect(p.currentToken(), JsonToken.START_ARRAY);
        List<T> out = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            out.add(element.read(p));
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
     * parses add up on the call's critical path.
     */
    public static <M> ObjectParser preferring(Class<M> type, ValueReader<M> reader, ObjectParser fallback) {
        return new ObjectParser() {
            @Override
            public <T> T parseAndClose(InputStream in, Charset charset, Class<T> dataClass) throws IOException {
                if (dataClass != type) {
                    return fallback.parseAndClose(in, charset, dataClass);
                }
                try (in) {
                    return dataClass.cast(read(in.readAllBytes(), reader));
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
            throw new IOException("Google answered JSON of an unexpected shape: " + wanted + " expected, got " + actual);
        }
    }
}
