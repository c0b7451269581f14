package dev.agenttools.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A hostile HTTP/1.1 client on a raw socket: sends exactly the bytes given (forms {@code java.net.http} refuses to send:
 * a bad request line, an ambiguous or badly escaped URI, a body that stalls), then reads one answer. Not thread-safe;
 * one connection per exchange.
 */
final class RawHttp {
    /** One answer as received: its status, headers (names in lower case, the last of a repeated one) and body. */
    record Answer(int status, Map<String, String> headers, String body, String raw) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /** A request of these lines (CRLF added), then {@code body}; {@code Connection: close} is the caller's to add. */
    static byte[] request(String body, String... lines) {
        return request(body.getBytes(StandardCharsets.UTF_8), lines);
    }

    /** A request of these lines (CRLF added), then the bytes of {@code body} as they are. */
    static byte[] request(byte[] body, String... lines) {
        StringBuilder b = new StringBuilder();
        for (String line : lines) {
            b.append(line).append("\r\n");
        }
        b.append("\r\n");
        byte[] head = b.toString().getBytes(StandardCharsets.UTF_8);
        byte[] all = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /**
     * Sends {@code bytes} (on a thread of its own: a server may answer before the whole is sent), and when
     * {@code stall} is set keeps the connection open without sending more, then reads the answer within {@code wait}.
     */
    static Answer exchange(int port, byte[] bytes, boolean stall, Duration wait) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout((int) wait.toMillis());
            OutputStream out = socket.getOutputStream();
            Thread sender = Thread.ofVirtual().start(() -> {
                try {
                    out.write(bytes);
                    out.flush();
                    if (!stall) {
                        socket.shutdownOutput();
                    }
                } catch (IOException e) {
                    // the server answered and closed before taking it all: its answer is what the test reads
                }
            });
            try {
                return read(socket.getInputStream());
            } finally {
                sender.interrupt();
            }
        }
    }

    private static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int window = 0; // the last four bytes read
        while (window != 0x0D0A0D0A) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("the connection closed before an answer's headers; got: " + head);
            }
            head.write(c);
            window = window << 8 | c;
        }
        String headText = head.toString(StandardCharsets.ISO_8859_1);
        String[] lines = headText.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
            }
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = chunked(in);
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else {
            body = in.readAllBytes();
        }
        String text = new String(body, StandardCharsets.UTF_8);
        return new Answer(status, headers, text, headText + text);
    }

    private static byte[] chunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line(in);
            int n = Integer.parseInt(size.split(";")[0].strip(), 16);
            if (n == 0) {
                while (!line(in).isEmpty()) {
                    // trailers
                }
                return body.toByteArray();
            }
            body.write(in.readNBytes(n));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
