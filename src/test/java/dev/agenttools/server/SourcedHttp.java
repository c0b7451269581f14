package dev.agenttools.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 written by hand, for what a well-behaved client never sends (two headers of one name, a path with dot
 * segments as it is) and from a chosen loopback source address (127.0.0.2 is another client to the server).
 */
final class SourcedHttp {
    static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    static final InetAddress OTHER = InetAddress.ofLiteral("127.0.0.2");

    /** An answer: its status, its header lines as sent, its body. */
    record Answer(int status, List<String> headers, String body) {
        /** The first value of the header {@code name} (case-insensitive), or null. */
        String header(String name) {
            String prefix = name.toLowerCase(Locale.ROOT) + ":";
            return headers.stream().filter(h -> h.toLowerCase(Locale.ROOT).startsWith(prefix))
                    .map(h -> h.substring(prefix.length()).strip()).findFirst().orElse(null);
        }
    }

    private SourcedHttp() {
    }

    /**
     * Sends one request from {@code from} and reads the answer to the end (the request asks the server to close).
     *
     * @param headerLines whole header lines ({@code "Authorization: Bearer x"}), repeated names as given; a
     *                    {@code Host} line replaces the one made from {@code base}
     */
    static Answer send(InetAddress from, URI base, String method, String path, String body, String... headerLines)
            throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
            socket.setSoTimeout(30_000);
            byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
            if (Arrays.stream(headerLines).noneMatch(h -> h.regionMatches(true, 0, "Host:", 0, 5))) {
                request.append("Host: ").append(base.getAuthority()).append("\r\n");
            }
            for (String line : headerLines) {
                request.append(line).append("\r\n");
            }
            if (body != null) {
                request.append("Content-Type: application/json\r\nContent-Length: ").append(content.length).append("\r\n");
            }
            request.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            InputStream in = socket.getInputStream();
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static Answer parse(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IllegalStateException("no whole answer: " + raw.substring(0, Math.min(raw.length(), 200)));
        }
        List<String> lines = new ArrayList<>(List.of(raw.substring(0, end).split("\r\n")));
        int status = Integer.parseInt(lines.removeFirst().split(" ")[1]);
        String body = raw.substring(end + 4);
        if (lines.stream().anyMatch(l -> l.toLowerCase(Locale.ROOT).startsWith("transfer-encoding: chunked"))) {
            body = unchunk(body);
        }
        return new Answer(status, lines, body);
    }

    private static String unchunk(String body) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int lineEnd = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, lineEnd).split(";")[0].strip(), 16);
            if (size == 0) {
                return out.toString();
            }
            // the sizes count bytes; the bodies here are ASCII JSON
            out.append(body, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
    }
}
