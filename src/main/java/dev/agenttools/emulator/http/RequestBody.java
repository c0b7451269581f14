package dev.agenttools.emulator.http;

import dev.agenttools.emulator.api.ApiError;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads a request body within the configured limits: at most {@code maxBody} bytes as sent (a larger
 * {@code Content-Length} is refused before a byte is read) and, for {@code Content-Encoding: gzip}, at most
 * {@code maxInflated} bytes once inflated. Both are counted while streaming, so neither a large upload nor a small
 * gzip bomb ever sits whole in memory; past a limit the call is answered 413. Gzip is undone here rather than by
 * Jetty's {@code CompressionHandler} because only here can both sizes be counted. Thread-safe (stateless).
 */
public final class RequestBody {
    private static final int BUFFER = 8 * 1024;
    private final long maxBody;
    private final long maxInflated;

    public RequestBody(long maxBody, long maxInflated) {
        this.maxBody = maxBody;
        this.maxInflated = maxInflated;
    }

    /** The body, inflated if it came gzipped; throws {@link ApiError} 413 past a limit, 400 for broken gzip. */
    byte[] read(Request request) throws IOException {
        long declared = request.getLength();
        if (declared > maxBody) {
            throw tooLarge(declared);
        }
        if (declared == 0) {
            return new byte[0];
        }
        InputStream raw = new Counted(Content.Source.asInputStream(request), maxBody, this::tooLarge);
        if (!gzipped(request.getHeaders().get(HttpHeader.CONTENT_ENCODING))) {
            return readAll(raw, maxBody, this::tooLarge);
        }
        PushbackInputStream peek = new PushbackInputStream(raw, 1);
        int first = peek.read();
        if (first < 0) {
            return new byte[0];
        }
        peek.unread(first);
        try (InputStream inflated = new GZIPInputStream(peek, BUFFER)) {
            return readAll(inflated, maxInflated, this::inflatedTooLarge);
        } catch (ZipException | EOFException e) {
            throw ApiError.badRequest(null, "The request body is not valid gzip (it was sent with Content-Encoding: gzip): "
                    + e.getMessage());
        }
    }

    private static boolean gzipped(String encoding) {
        if (encoding == null) {
            return false;
        }
        String e = encoding.strip().toLowerCase(Locale.ROOT);
        return e.equals("gzip") || e.equals("x-gzip");
    }

    private ApiError tooLarge(long size) {
        return ApiError.tooLarge("Request body too large: " + (size > maxBody ? size + " bytes" : "over " + maxBody + " bytes")
                + "; the limit is " + maxBody + " bytes (emulator --max-body)");
    }

    private ApiError inflatedTooLarge(long size) {
        return ApiError.tooLarge("Request body too large once gzip is undone: over " + maxInflated
                + " bytes; the limit is " + maxInflated + " bytes (emulator --max-inflated-body)");
    }

    private interface Refusal {
        ApiError over(long size);
    }

    /** Reads to the end, refusing past {@code limit} bytes without holding more than the limit plus one buffer. */
    private static byte[] readAll(InputStream in, long limit, Refusal refusal) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[BUFFER];
        long total = 0;
        int n;
        while ((n = in.read(buffer)) >= 0) {
            total += n;
            if (total > limit) {
                throw refusal.over(total);
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    /** Counts the bytes that pass and refuses once more than {@code limit} have (the wire size of a gzip body). */
    private static final class Counted extends FilterInputStream {
        private final long limit;
        private final Refusal refusal;
        private long count;

        Counted(InputStream in, long limit, Refusal refusal) {
            super(in);
            this.limit = limit;
            this.refusal = refusal;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                counted(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                counted(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            counted(skipped);
            return skipped;
        }

        private void counted(long n) {
            count += n;
            if (count > limit) {
                throw refusal.over(count);
            }
        }
    }
}
