package dev.agenttools.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** What tests that start {@code agent-tools server} as a process of its own share. */
final class ServerProcesses {
    private static final Pattern SERVING = Pattern.compile("serving on http://127\\.0\\.0\\.1:(\\d+)/");

    private ServerProcesses() {
    }

    /** What {@code AGENT_TOOLS_SERVICE_KEY_HASHES} holds for a service key. */
    static String keyHash(String key) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Reads the server's stderr until it says where it serves, and returns that port; the rest of its stderr goes to
     * {@code rest}, line by line, so that the process never blocks on a full pipe.
     */
    static int port(Process server, Consumer<String> rest) throws Exception {
        BufferedReader err = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
        int port = -1;
        for (String line; port < 0 && (line = err.readLine()) != null; ) {
            Matcher m = SERVING.matcher(line);
            if (m.find()) {
                port = Integer.parseInt(m.group(1));
            }
        }
        assertThat(port).as("the server says where it serves").isPositive();
        Thread.ofVirtual().start(() -> err.lines().forEach(rest));
        return port;
    }
}
