package dev.agenttools.google;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * How much of an answer is read, and how: streamed from the connection (never buffered whole by the HTTP client),
 * gzip undone here when the answer says so (the JDK client never inflates), and cut off with an
 * {@link UnreadableAnswer} as soon as more bytes arrive than the reader allows, counted both as sent and once
 * inflated: a 4 MB gzip of zeros stops at the limit instead of growing to gigabytes, a 200 MB plain body after the
 * limit's worth. Closing the stream closes the response, which cancels the rest of it (an HTTP/2 stream reset, an
 * HTTP/1.1 connection closed).
 */
public final class BoundedBody {
    /**
     * The most any answer is read, as sent and once inflated: 64 MiB. Gmail's largest message is 50 MB as received
     * (25 MB as sent from Gmail), and {@code format=full} carries only the inline text parts as base64 (attachments
     * come as ids), so the largest real get stays well below; a batch answer holds at most 50 summaries of at most
     * {@code GmailService.MAX_SUMMARY_BYTES}; a Calendar page at most 2,500 events. Anything larger is not Google.
     */
    public static final long MAX_BYTES = 64L << 20;
    /** An error answer: Google's error JSON is a few hundred bytes; past this the status alone tells. */
    static final int MAX_ERROR_BYTES = 64 << 10;

    private BoundedBody() {
    }

    /**
     * The body of {@code r} as its reader should see it: at most {@code limit} bytes as sent, gzip undone when it is
     * so encoded, at most {@code limit} bytes once inflated. A read cut short by an interrupt fails with
     * {@link InterruptedIOException} ({@code cancelled} names the request). An answer that declares a
     * Content-Length over the limit fails at once.
     */
    static InputStream open(HttpResponse<InputStream> r, long limit, String cancelled) throws IOException {
        InputStream wire = new Limited(r.body(), limit, "", cancelled);
        try {
            long declared = r.headers().firstValueAsLong("Content-Length").orElse(-1);
            if (declared > limit) {
                throw tooLarge(limit, "");
            }
            String encoding = r.headers().firstValue("Content-Encoding").orElse("").strip().toLowerCase(Locale.ROOT);
            if (!encoding.equals("gzip") && !encoding.equals("x-gzip")) {
                return wire;
            }
            try {
                return new Limited(new GZIPInputStream(wire, 8192), limit, " once gzip is undone", cancelled);
            } catch (ZipException e) {
                throw new UnreadableAnswer("the answer says gzip but is not: " + e.getMessage(), e);
            }
        } catch (IOException | RuntimeException e) {
            wire.close();
            throw e;
        }
    }

    /**
     * An error answer's body, read whole when it is at most {@link #MAX_ERROR_BYTES} (as sent and inflated), else
     * empty: the status says what happened, and a partial error JSON would only be a parse failure more.
     */
    static byte[] errorBody(HttpResponse<InputStream> r, String cancelled) throws IOException {
        try (InputStream in = open(r, MAX_ERROR_BYTES, cancelled)) {
            return in.readAllBytes();
        } catch (UnreadableAnswer tooLargeOrNotGzip) {
            return new byte[0];
        }
    }

    /** {@code in} read to at most {@code limit} bytes, then {@link UnreadableAnswer}: for a batch answer's parts. */
    static InputStream limited(InputStream in, long limit) {
        return new Limited(in, limit, "", "reading");
    }

    private static UnreadableAnswer tooLarge(long limit, String stage) {
        return new UnreadableAnswer("the answer is larger than " + size(limit) + stage + ", the most read");
    }

    /** {@code 64 MiB}, {@code 1 MiB}, {@code 64 KiB}: a limit as a reader of the error would write it. */
    static String size(long bytes) {
        if (bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        return bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " bytes";
    }

    /** Counts what is read and fails past the limit; an interrupted read fails as cancelled. */
    private static final class Limited extends FilterInputStream {
        private final long limit;
        private final String stage;
        private final String cancelled;
        private long count;

        Limited(InputStream in, long limit, String stage, String cancelled) {
            super(in);
            this.limit = limit;
            this.stage = stage;
            this.cancelled = cancelled;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                // one byte past the limit at most: enough to know it was passed, never a buffer's worth more
                n = in.read(b, off, (int) Math.min(len, limit - count + 1));
            } catch (ZipException e) {
                throw new UnreadableAnswer("the answer's gzip is corrupt: " + e.getMessage(), e);
            } catch (InterruptedIOException e) {
                throw e;
            } catch (IOException e) {
                if (Thread.currentThread().isInterrupted()) {
                    // the JDK's body stream says IOException(InterruptedException): the call was cancelled
                    throw new InterruptedIOException(cancelled + " cancelled");
                }
                throw e;
            }
            if (n > 0) {
                count += n;
                if (count > limit) {
                    throw tooLarge(limit, stage);
                }
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] sink = new byte[(int) Math.min(n, 8192)];
            int r = read(sink, 0, sink.length);
            return Math.max(r, 0);
        }

        @Override
        public int available() {
            return 0; // never more than read() is allowed to give
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }
}
