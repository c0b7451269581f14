package dev.agenttools.serve;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.BooleanSupplier;

/**
 * Newline-delimited input with a cap on each line, for the stdio servers (serve's JSON lines and mcp's JSON-RPC):
 * a line over the cap is skipped without being held in memory, and the reader goes on with the next one. Written
 * by hand because a BufferedReader would hold a line of any length before the cap could be checked.
 */
public final class BoundedLines {
    private BoundedLines() {
    }

    /** Takes one whole line (without its newline). */
    @FunctionalInterface
    public interface LineHandler {
        void line(byte[] bytes) throws IOException, InterruptedException;
    }

    /** Hears of a newline-terminated line that was over the cap and skipped. */
    @FunctionalInterface
    public interface SkipHandler {
        void skipped() throws IOException, InterruptedException;
    }

    /**
     * Reads lines until end of input or until {@code stop} says so; a last line without its newline is a line too.
     *
     * @return true when the input ended inside a line over the cap (skipped, and not reported to {@code onSkipped})
     */
    public static boolean read(InputStream in, int maxBytes, BooleanSupplier stop, LineHandler onLine,
                               SkipHandler onSkipped) throws IOException, InterruptedException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
        boolean tooLong = false;
        int b;
        while (!stop.getAsBoolean() && (b = in.read()) != -1) {
            if (b == '\n') {
                if (tooLong) {
                    onSkipped.skipped();
                } else {
                    onLine.line(line.toByteArray());
                }
                line.reset();
                tooLong = false;
            } else if (!tooLong) {
                if (line.size() >= maxBytes) {
                    tooLong = true;
                    line.reset();
                } else {
                    line.write(b);
                }
            }
        }
        if (!tooLong && line.size() > 0) {
            onLine.line(line.toByteArray()); // a last line without its newline
        }
        return tooLong;
    }
}
