package dev.agenttools.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;

/**
 * An HTTP request's body read whole, at most a limit: the one reader of {@code /mcp} ({@link McpRequestCheck}) and of
 * the HTTP service's {@code /v1/call} (here because the service imports this package, not the other way round).
 *
 * <p>A body over the limit is refused; but a server that answers and closes while the client is still sending makes
 * the client's kernel see a reset, and the client often loses the answer with it ("no bytes"), so the rest of a body up
 * to {@link #DISCARD_LIMIT} is read and thrown away first, as servers' lingering close does. A client that asked
 * {@code Expect: 100-continue} has sent nothing yet: it is answered at once. Beyond the discard limit the answer goes
 * out and the connection closes.
 */
public final class BoundedRequestBody {
    /** How much of a body over the limit is still read and dropped, so that its sender gets the 413. */
    public static final long DISCARD_LIMIT = 4L << 20;

    /** Opens the body's stream (after the checks that need none of it). */
    @FunctionalInterface
    public interface Source {
        InputStream open() throws IOException;
    }

    /** The body is over the limit: answer 413. */
    public static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;
    }

    private BoundedRequestBody() {
    }

    /**
     * The body's bytes.
     *
     * @param declared         its Content-Length, or -1 (chunked)
     * @param waitsForContinue whether the client sent {@code Expect: 100-continue}
     * @throws TooLarge   over {@code maxBodyBytes}
     * @throws IOException it could not be read whole (a timeout, a bad chunk, the connection ended)
     */
    public static byte[] read(long declared, boolean waitsForContinue, long maxBodyBytes, Source source) throws IOException {
        if (declared > maxBodyBytes && (waitsForContinue || declared > DISCARD_LIMIT)) {
            throw new TooLarge(); // refused before a byte is read
        }
        byte[] buffer = new byte[(int) Math.min(maxBodyBytes + 1L, declared >= 0 ? declared + 1 : 8192)];
        int length = 0;
        try (InputStream in = source.open()) {
            if (declared > maxBodyBytes) {
                discard(in, declared);
                throw new TooLarge();
            }
            int n;
            while ((n = in.read(buffer, length, buffer.length - length)) >= 0) {
                length += n;
                if (length > maxBodyBytes) {
                    discard(in, DISCARD_LIMIT - length);
                    throw new TooLarge();
                }
                if (length == buffer.length) {
                    buffer = Arrays.copyOf(buffer, (int) Math.min(maxBodyBytes + 1L, buffer.length * 2L));
                }
            }
        }
        return Arrays.copyOf(buffer, length);
    }

    /** {@code body} as UTF-8 text, strictly: a malformed sequence is an error, never a replacement character. */
    public static String utf8(byte[] body) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
    }

    /** Whether a read failed because the body did not arrive in time (Jetty's idle timeout, a socket's). */
    public static boolean timedOut(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** Reads and drops up to {@code bytes} more of the body (bounded in time by the connection's idle timeout). */
    private static void discard(InputStream in, long bytes) throws IOException {
        byte[] scratch = new byte[8192];
        long left = bytes;
        int n;
        while (left > 0 && (n = in.read(scratch, 0, (int) Math.min(scratch.length, left))) >= 0) {
            left -= n;
        }
    }
}
