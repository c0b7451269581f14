package dev.agenttools.daemon;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One call as the launcher forwards it. On the wire every field ends with a NUL byte (no setting or path can hold
 * one, so nothing needs escaping, and bash's {@code printf '%s\0'} writes it): the protocol name
 * {@value #PROTOCOL}, the client secret, the launcher's start time ({@code $EPOCHREALTIME}), its working folder,
 * the number of settings, each setting as {@code NAME=value}, the request's length in bytes; then the request's
 * bytes as they came on the launcher's stdin, NULs included.
 *
 * @param settings         the caller's AGENT_TOOLS_*, XDG_* and AWS_* environment variables, and its TZ when set
 * @param workingDirectory the caller's working folder (relative paths in the settings are relative to it)
 * @param startEpochMicros when the launcher started, in microseconds since the epoch
 * @param body             the request as sent (at most {@link #MAX_BODY_BYTES} bytes)
 */
public record LauncherRequest(Map<String, String> settings, String workingDirectory, long startEpochMicros, byte[] body) {
    public static final String PROTOCOL = "agent-tools-call-2";
    /** One past the one-shot call's limit of 1 MiB, so that the answer to an oversized request is the same. */
    public static final int MAX_BODY_BYTES = (1 << 20) + 1;
    static final int MAX_FIELD_BYTES = 64 * 1024;
    static final int MAX_SETTINGS = 512;
    /**
     * The oldest launcher start believed: a call's longest timeout_ms is 5 minutes, and the launcher answers
     * {@code deadline} itself once that has passed, so anything older is a wrong clock, not a slow launcher.
     */
    public static final Duration MAX_START_AGE = Duration.ofMinutes(6);

    /** The bytes the launcher sends for this request (the training run and the tests speak as the launcher does). */
    public byte[] encode(String clientSecret) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 256);
        List<String> fields = new ArrayList<>(List.of(PROTOCOL, clientSecret,
                startEpochMicros / 1_000_000 + "." + String.format(Locale.ROOT, "%06d", startEpochMicros % 1_000_000),
                workingDirectory, Integer.toString(settings.size())));
        settings.forEach((k, v) -> fields.add(k + "=" + v));
        fields.add(Integer.toString(body.length));
        for (String f : fields) {
            out.writeBytes(f.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        out.writeBytes(body);
        return out.toByteArray();
    }

    /**
     * Reads one request, checking the secret before anything else is read.
     *
     * @throws IOException for a wrong secret, a malformed request or one over the limits (the connection is then dropped)
     */
    static LauncherRequest read(InputStream in, byte[] clientSecret) throws IOException {
        if (!field(in).equals(PROTOCOL)) {
            throw new IOException("not an agent-tools launcher (protocol field)");
        }
        if (!MessageDigest.isEqual(field(in).getBytes(StandardCharsets.US_ASCII), clientSecret)) {
            throw new IOException("wrong secret");
        }
        long start = epochMicros(field(in));
        String pwd = field(in);
        int count = count(field(in), MAX_SETTINGS, "settings count");
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String s = field(in);
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new IOException("a setting without a name");
            }
            settings.put(s.substring(0, eq), s.substring(eq + 1));
        }
        int length = count(field(in), MAX_BODY_BYTES, "request length");
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new EOFException("the request ended after " + body.length + " of " + length + " bytes");
        }
        return new LauncherRequest(settings, pwd, start, body);
    }

    private static String field(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        for (int b = in.read(); b != 0; b = in.read()) {
            if (b < 0) {
                throw new EOFException("the request ended inside a field");
            }
            if (out.size() == MAX_FIELD_BYTES) {
                throw new IOException("a field over " + MAX_FIELD_BYTES + " bytes");
            }
            out.write(b);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int count(String text, int max, String what) throws IOException {
        try {
            int n = Integer.parseInt(text);
            if (n >= 0 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IOException(what + " must be 0.." + max + ", got '" + text + "'");
    }

    /** bash's $EPOCHREALTIME: seconds, a decimal point (a comma in some locales) and six digits. */
    private static long epochMicros(String text) throws IOException {
        String[] parts = text.split("[.,]");
        try {
            if (parts.length == 2 && parts[1].length() == 6) {
                return Long.parseLong(parts[0]) * 1_000_000 + Long.parseLong(parts[1]);
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IOException("start time must be seconds.micros, got '" + text + "'");
    }

    /**
     * The launcher's start on this JVM's {@link System#nanoTime()} clock, so that the call's {@code timeout_ms}
     * counts from when the caller started the launcher, as the in-process call counts from its JVM's start. Now,
     * when the launcher's clock reading is in the future or over a minute old (the clock was set meanwhile).
     */
    public long startNanos() {
        return startNanos(startEpochMicros);
    }

    /**
     * A start time in microseconds since the epoch (bash's {@code $EPOCHREALTIME}) on this JVM's
     * {@link System#nanoTime()} clock; now when it is in the future or older than {@link #MAX_START_AGE} (the wall
     * clock was set meanwhile, or the value is not a launcher's). The in-process call reads the launcher's start
     * from {@code AGENT_TOOLS_CALL_STARTED_AT} through here too.
     */
    public static long startNanos(long startEpochMicros) {
        return startNanos(startEpochMicros, System::nanoTime);
    }

    /** {@link #startNanos(long)}, with {@code otherwise} for a start time not believed. */
    public static long startNanos(long startEpochMicros, LongSupplier otherwise) {
        long now = System.nanoTime();
        Instant wall = Instant.now();
        long ageMicros = wall.getEpochSecond() * 1_000_000 + wall.getNano() / 1_000 - startEpochMicros;
        return ageMicros >= 0 && ageMicros <= MAX_START_AGE.toNanos() / 1_000 ? now - ageMicros * 1_000 : otherwise.getAsLong();
    }

    /**
     * {@code $EPOCHREALTIME}'s text ({@code seconds.micros}, a comma in some locales) as microseconds since the epoch.
     *
     * @throws IllegalArgumentException naming the format, for anything else
     */
    public static long parseEpochMicros(String text) {
        try {
            return epochMicros(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
