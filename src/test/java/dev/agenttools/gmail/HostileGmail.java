package dev.agenttools.gmail;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

/**
 * A Gmail-shaped server that is wrong, not slow: messages.list, messages.get and the batch endpoint over HTTP/1.1 on a
 * raw socket (so that it can also break HTTP itself), each message answered as {@link #answers} says. Listed ids are
 * {@code f0, f1, ...} (hex, as Gmail's; thread ids {@code e0, e1, ...}); every answer closes its connection, and bodies are streamed
 * without a length (ended by the close) unless an answer says otherwise, so that a body the client stops reading costs
 * the server a failed write, which {@link #written} shows. Thread-safe; one virtual thread per connection.
 */
final class HostileGmail implements AutoCloseable {
    /** What the server answers for one message. */
    enum Answer {
        /** A well-formed message. */
        GOOD,
        /** JSON with bytes that are not UTF-8 in a string. */
        BAD_UTF8,
        /** Not JSON at all. */
        NOT_JSON,
        /** Parts nested 10,000 deep. */
        DEEP,
        /** 200,000 headers of a few bytes each (7 MB of JSON, far more as objects). */
        WIDE,
        /** A 2 MiB summary, its length not declared. */
        TOO_LARGE,
        /** A 2 MiB summary whose Content-Length says so at once. */
        TOO_LARGE_DECLARED,
        /** A status line that is not HTTP: a protocol error. */
        PROTOCOL_ERROR,
        /** The h2c upgrade accepted, then a SETTINGS frame of a size no SETTINGS frame has: an HTTP/2 protocol error. */
        H2_PROTOCOL_ERROR,
        /** 200 MB of JSON whitespace, streamed. */
        HUGE,
        /** 128 MB of gzip that inflates to 128 GiB of JSON whitespace. */
        GZIP_BOMB
    }

    /** Gmail's answer for an id not named in {@link #answers}, and the size of a message's hostile answers. */
    private static final int DEEP_LEVELS = 10_000;
    private static final long HUGE_BYTES = 200_000_000L;
    private static final int TOO_LARGE_BYTES = 2 << 20;
    /**
     * A gzip member of 16 MiB of spaces: ~16 KB; the bomb is {@link #BOMB_MEMBERS} of them (gzip members may be
     * concatenated): 128 MB as sent, far more than the socket buffers on both sides of a loopback connection can
     * hold (tcp_wmem's and tcp_rmem's largest: 4 MB + 6 MB by Linux's defaults, 32 MB on some machines here), so that
     * what the server got written tells whether the client stopped reading.
     */
    static final int BOMB_MEMBERS = 8192;
    private static final byte[] SPACES_MEMBER = gzip(" ".repeat(16 << 20).getBytes(StandardCharsets.US_ASCII));
    private static final Pattern GET = Pattern.compile("GET \\S*/gmail/v1/users/me/messages/([^?\\s]+)");

    /** What each message id is answered with (absent: {@link Answer#GOOD}). */
    final Map<String, Answer> answers = new ConcurrentHashMap<>();
    /** Gets (single or batch parts) per message id. */
    final Map<String, AtomicInteger> gets = new ConcurrentHashMap<>();
    final AtomicInteger lists = new AtomicInteger();
    final AtomicInteger batches = new AtomicInteger();
    /** Body bytes written of the last hostile message answer before the client stopped reading (or all of them). */
    final AtomicLong written = new AtomicLong();
    /** How many ids messages.list answers, whatever maxResults asked. */
    volatile int listed = 10;
    /** messages.list answers a gzip bomb: 4 MB that inflate to 4 GB of JSON whitespace inside the messages array. */
    volatile boolean listBomb;

    private final ServerSocket server;

    HostileGmail() throws IOException {
        server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    String root() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/";
    }

    int getsOf(String id) {
        AtomicInteger n = gets.get(id);
        return n == null ? 0 : n.get();
    }

    int allGets() {
        return gets.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** Forgets the counts (not the answers). */
    void reset() {
        gets.clear();
        lists.set(0);
        listBomb = false;
        batches.set(0);
        written.set(0);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket; InputStream in = new BufferedInputStream(socket.getInputStream());
             OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16)) {
            String requestLine = line(in);
            long length = 0;
            boolean h2c = false;
            for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {

                if (h.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                    length = Long.parseLong(h.substring(15).strip());
                }
                h2c |= h.regionMatches(true, 0, "Upgrade:", 0, 8) && h.toLowerCase(Locale.ROOT).contains("h2c");
            }
            byte[] body = in.readNBytes((int) length);
            if (requestLine == null) {
                return;
            }
            String target = requestLine.split(" ")[1];
            String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
            if (requestLine.startsWith("POST /batch")) { // the Gmail client's batch path
                batch(new String(body, StandardCharsets.UTF_8), out);
            } else if (path.equals("/gmail/v1/users/me/messages")) {
                list(out);
            } else if (path.startsWith("/gmail/v1/users/me/messages/")) {
                String id = path.substring(path.lastIndexOf('/') + 1);
                if (answers.get(id) == Answer.H2_PROTOCOL_ERROR && h2c) {
                    gets.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    brokenHttp2(socket, in, out);
                } else {
                    message(id, out);
                }
            } else {
                head(out, 404, "application/json", 2);
                out.write("{}".getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException clientWentAway) {
            // the client stopped reading: what a bounded reader does
        }
    }

    private void list(OutputStream out) throws IOException {
        lists.incrementAndGet();
        if (listBomb) {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Encoding: gzip\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(gzip("{\"messages\":[".getBytes(StandardCharsets.US_ASCII)));
            for (int i = 0; i < 256; i++) {
                out.write(SPACES_MEMBER);
            }
            out.write(gzip("]}".getBytes(StandardCharsets.US_ASCII)));
            return;
        }
        head(out, 200, "application/json; charset=UTF-8", -1);
        out.write("{\"messages\":[".getBytes(StandardCharsets.US_ASCII));
        int n = listed;
        for (int i = 0; i < n; i++) {
            out.write(((i == 0 ? "" : ",") + "{\"id\":\"f" + i + "\",\"threadId\":\"e" + i + "\"}").getBytes(StandardCharsets.US_ASCII));
        }
        out.write("],\"resultSizeEstimate\":10}".getBytes(StandardCharsets.US_ASCII));
    }

    private void message(String id, OutputStream out) throws IOException {
        gets.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        Answer answer = answers.getOrDefault(id, Answer.GOOD);
        switch (answer) {
            case PROTOCOL_ERROR -> out.write("HTTP/1.1 2OO OK\r\nConnection: close\r\n\r\n{}".getBytes(StandardCharsets.US_ASCII));
            case HUGE -> {
                head(out, 200, "application/json; charset=UTF-8", -1);
                out.write(("{\"id\":\"" + id + "\",").getBytes(StandardCharsets.US_ASCII));
                byte[] spaces = " ".repeat(1 << 16).getBytes(StandardCharsets.US_ASCII);
                written.set(0);
                for (long sent = 0; sent < HUGE_BYTES; sent += spaces.length) {
                    out.write(spaces);
                    written.addAndGet(spaces.length);
                }
                out.write("}".getBytes(StandardCharsets.US_ASCII));
            }
            case GZIP_BOMB -> {
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Encoding: gzip\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(gzip(("{\"id\":\"" + id + "\",").getBytes(StandardCharsets.US_ASCII)));
                written.set(0);
                for (int i = 0; i < BOMB_MEMBERS; i++) {
                    out.write(SPACES_MEMBER);
                    written.addAndGet(SPACES_MEMBER.length);
                }
                out.write(gzip("}".getBytes(StandardCharsets.US_ASCII)));
            }
            default -> {
                byte[] body = body(id, answer);
                head(out, 200, "application/json; charset=UTF-8", answer == Answer.TOO_LARGE_DECLARED ? body.length : -1);
                written.set(0);
                for (int at = 0; at < body.length; at += 1 << 16) {
                    int n = Math.min(1 << 16, body.length - at);
                    out.write(body, at, n);
                    written.addAndGet(n);
                }
            }
        }
    }

    /** Switches to HTTP/2 as asked, then sends a SETTINGS frame 5 bytes long (RFC 9113: a multiple of 6). */
    private static void brokenHttp2(Socket socket, InputStream in, OutputStream out) throws IOException {
        out.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.write(new byte[] {0, 0, 5, 0x4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        out.flush();
        socket.setSoTimeout(5_000);
        try {
            in.transferTo(OutputStream.nullOutputStream()); // until the client gives up on the connection
        } catch (SocketTimeoutException e) {
            // it kept it open: the close below ends it
        }
    }

    private void batch(String request, OutputStream out) throws IOException {
        batches.incrementAndGet();
        List<String> ids = new ArrayList<>();
        Matcher m = GET.matcher(request);
        while (m.find()) {
            ids.add(m.group(1));
        }
        String boundary = "batch_hostile";
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            gets.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            byte[] body = body(id, answers.getOrDefault(id, Answer.GOOD));
            answer.writeBytes(("--" + boundary + "\r\nContent-Type: application/http\r\nContent-ID: <response-" + (i + 1)
                    + ">\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            answer.writeBytes(body);
            answer.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        answer.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        head(out, 200, "multipart/mixed; boundary=" + boundary, answer.size());
        answer.writeTo(out);
    }

    /** A message's answer as bytes: the good one, or the hostile one that fits in memory. */
    static byte[] body(String id, Answer answer) {
        String n = id.substring(1);
        return switch (answer) {
            case GOOD -> good(id, n).getBytes(StandardCharsets.UTF_8);
            case BAD_UTF8 -> {
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                b.writeBytes(("{\"id\":\"" + id + "\",\"threadId\":\"e" + n + "\",\"snippet\":\"caf").getBytes(StandardCharsets.US_ASCII));
                b.writeBytes(new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xc3});
                b.writeBytes("\"}".getBytes(StandardCharsets.US_ASCII));
                yield b.toByteArray();
            }
            case NOT_JSON -> "<html><body>Service Unavailable</body></html>".getBytes(StandardCharsets.US_ASCII);
            case DEEP -> ("{\"id\":\"" + id + "\",\"threadId\":\"e" + n + "\",\"payload\":"
                    + "{\"mimeType\":\"multipart/mixed\",\"parts\":[".repeat(DEEP_LEVELS) + "{\"mimeType\":\"text/plain\"}"
                    + "]}".repeat(DEEP_LEVELS) + "}").getBytes(StandardCharsets.US_ASCII);
            case WIDE -> ("{\"id\":\"" + id + "\",\"threadId\":\"e" + n + "\",\"payload\":{\"headers\":["
                    + "{\"name\":\"X\",\"value\":\"y\"},".repeat(200_000) + "{\"name\":\"Subject\",\"value\":\"wide\"}]}}")
                    .getBytes(StandardCharsets.US_ASCII);
            case TOO_LARGE, TOO_LARGE_DECLARED -> ("{\"id\":\"" + id + "\",\"threadId\":\"e" + n + "\",\"snippet\":\""
                    + "a".repeat(TOO_LARGE_BYTES) + "\"}").getBytes(StandardCharsets.US_ASCII);
            default -> throw new IllegalArgumentException(answer + " is not sent as one piece");
        };
    }

    private static String good(String id, String n) {
        return "{\"id\":\"" + id + "\",\"threadId\":\"e" + n + "\",\"labelIds\":[\"INBOX\"],\"snippet\":\"hello " + id
                + "\",\"internalDate\":\"1700000000000\",\"payload\":{\"mimeType\":\"text/plain\",\"headers\":["
                + "{\"name\":\"Subject\",\"value\":\"Subject " + id + "\"},{\"name\":\"From\",\"value\":\"amy@example.com\"},"
                + "{\"name\":\"Date\",\"value\":\"Tue, 14 Nov 2023 22:13:20 +0000\"}],\"body\":{\"size\":5,\"data\":\"aGVsbG8\"}}}";
    }

    private static void head(OutputStream out, int status, String type, long length) throws IOException {
        out.write(("HTTP/1.1 " + status + " OK\r\nContent-Type: " + type + "\r\nConnection: close\r\n"
                + (length >= 0 ? "Content-Length: " + length + "\r\n" : "") + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != -1; c = in.read()) {
            if (c == '\n') {
                int end = b.length() > 0 && b.charAt(b.length() - 1) == '\r' ? b.length() - 1 : b.length();
                return b.substring(0, end);
            }
            b.append((char) c);
        }
        return b.isEmpty() ? null : b.toString();
    }

    private static byte[] gzip(byte[] data) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(b)) {
            z.write(data);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return b.toByteArray();
    }
}
