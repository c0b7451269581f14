package dev.agenttools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code agent-tools server} with MCP authorization, as an operator runs it: processes of their own configured by the
 * environment, with the emulator as Google, and the official MCP TypeScript SDK client as the MCP client.
 */
@Tag("process")
class ServerAuthorizationProcessTest {
    private static final String USER_1 = "me@example.com";
    private static final String USER_2 = "user2@example.com";
    private static final String CLIENT_SECRET = "GOCSPX-process-test-secret";
    private static final String KEY = key();
    /** Google's access tokens and the server's live this long here, so that days pass in seconds. */
    private static final Duration LIFETIME = Duration.ofSeconds(2);

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator google;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        google = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .users(2).seedMessages(20).tokenLifetime(LIFETIME).build());
    }

    /**
     * The target: a signed-in MCP client keeps working for 7 simulated days without user action, across an
     * instance restart. Scale: one simulated day is two lifetimes of the server's access tokens and of Google's (2 s
     * each here; 1 h by default), so each client lives through 14 of each; the server's refresh tokens live 12 s here
     * (30 days by default), and the run outlives that about three times, which only a sliding lifetime (renewed at
     * each rotation) allows. Half-way, the server process is killed (SIGKILL) and a new one started on the same store
     * and port: it has no Google token in memory, and takes the users' encrypted Google refresh tokens from the store.
     */
    @Test
    void aSignedInMcpClientKeepsWorkingForSevenSimulatedDaysAcrossARestartWithoutItsUser() throws Exception {
        int days = 7;
        int cyclesPerDay = 2;
        int cycles = days * cyclesPerDay;
        int port = freePort();
        Path store = dir.resolve("seven-days.db");
        Map<String, String> env = oauthEnv(port, store);
        env.put("AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME", LIFETIME.toSeconds() + "s");
        env.put("AGENT_TOOLS_SERVER_REFRESH_TOKEN_LIFETIME", "12s");
        ConcurrentLinkedQueue<String> stderr = new ConcurrentLinkedQueue<>();
        Process server = startServer(env, port, stderr);
        Process restarted = null;
        Path node = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        // every call comes 300 ms after both access tokens of the previous cycle have ended
        Process client = new ProcessBuilder("node", "mcp-oauth-days.mjs", "http://127.0.0.1:" + port, String.valueOf(cycles),
                String.valueOf(LIFETIME.toMillis() + 300), USER_1, USER_2)
                .directory(node.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            JsonNode results = null;
            long refreshesBeforeRestart = -1;
            for (String line; (line = out.readLine()) != null; ) {
                JsonNode message = Json.MAPPER.readTree(line);
                if (message.has("restart")) {
                    refreshesBeforeRestart = google.tokenRefreshes();
                    server.destroyForcibly();
                    assertThat(server.waitFor(30, TimeUnit.SECONDS)).isTrue();
                    restarted = startServer(env, port, stderr);
                    client.getOutputStream().write("restarted\n".getBytes(StandardCharsets.UTF_8));
                    client.getOutputStream().flush();
                } else {
                    results = message;
                }
            }
            assertThat(client.waitFor(120, TimeUnit.SECONDS)).as("node finished").isTrue();
            assertThat(client.exitValue()).as("node's exit status; results: %s", results).isZero();
            assertThat(restarted).as("the server was restarted half-way").isNotNull();
            for (String user : List.of(USER_1, USER_2)) {
                JsonNode r = results.get(user);
                assertThat(r.get("calls").asInt()).as(user).isEqualTo(2 * cycles);
                // every list_emails of all 14 cycles answered the user's own five newest emails
                assertThat(r.get("idLists")).as(user).hasSize(1);
                List<String> ids = new ArrayList<>();
                r.get("idLists").get(0).forEach(id -> ids.add(id.asText()));
                assertThat(ids).as(user).isEqualTo(gmailIds(user));
                assertThat(r.get("signIns").asInt()).as(user + ": sent to sign in once, at the start").isEqualTo(1);
                // each cycle finds the server's access token expired: the SDK refreshes once, on the 401 (at most
                // once more when a slow machine lets the token expire between a cycle's two calls)
                assertThat(r.get("refreshes").asInt()).as(user + ": the SDK's refreshes").isBetween(cycles, 2 * cycles);
            }
            assertThat(google.signIns()).as("one sign-in at Google per user").isEqualTo(2);
            // each cycle finds the user's Google token past half its life: one refresh per user per cycle (the first
            // cycle after the restart too, from the stored refresh token), at most one per call
            assertThat(google.tokenRefreshes()).isBetween(2L * cycles, 4L * cycles);
            assertThat(refreshesBeforeRestart).isGreaterThanOrEqualTo(2L * (cycles / 2));
            assertThat(String.join("\n", stderr)).doesNotContain(CLIENT_SECRET).doesNotContain(KEY).doesNotContain("agt_")
                    .doesNotContain("ya29.").doesNotContain("1//");
        } finally {
            client.destroyForcibly();
            server.destroyForcibly();
            if (restarted != null) {
                restarted.destroyForcibly();
            }
        }
    }

    @Test
    void refusesToStartOnABadAuthorizationSettingNamingItAndShowingNoSecret() throws Exception {
        String shortKey = Base64.getEncoder().encodeToString("sixteen byte key".getBytes(StandardCharsets.US_ASCII));
        Path openKeyFile = dir.resolve("keys-others-read");
        Files.writeString(openKeyFile, "k1 " + KEY + "\n");
        Files.setPosixFilePermissions(openKeyFile, PosixFilePermissions.fromString("rw-r--r--"));
        Path sharedFolder = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(sharedFolder, PosixFilePermissions.fromString("rwxrwxrwx"));
        // each case: the variables changed (null: removed), and what the refusal must name
        record Case(Map<String, String> changes, String... named) {
        }
        List<Case> cases = List.of(
                new Case(with("AGENT_TOOLS_SERVER_TOKEN_KEY", null), "AGENT_TOOLS_SERVER_TOKEN_KEY", "AGENT_TOOLS_SERVER_TOKEN_KEY_FILE"),
                new Case(with("AGENT_TOOLS_SERVER_TOKEN_KEY", "k1:not*base64"), "AGENT_TOOLS_SERVER_TOKEN_KEY", "not base64"),
                new Case(with("AGENT_TOOLS_SERVER_TOKEN_KEY", "k1:" + shortKey), "AGENT_TOOLS_SERVER_TOKEN_KEY", "32 bytes", "got 16"),
                new Case(with("AGENT_TOOLS_SERVER_TOKEN_KEY", "k1:" + KEY + ",k1:" + KEY), "AGENT_TOOLS_SERVER_TOKEN_KEY", "ids must differ"),
                new Case(with("AGENT_TOOLS_SERVER_TOKEN_KEY", null, "AGENT_TOOLS_SERVER_TOKEN_KEY_FILE", openKeyFile.toString()),
                        "AGENT_TOOLS_SERVER_TOKEN_KEY_FILE", "chmod 600"),
                new Case(with("AGENT_TOOLS_SERVER_PUBLIC_URL", "http://tools.example.com"), "AGENT_TOOLS_SERVER_PUBLIC_URL", "https"),
                new Case(with("AGENT_TOOLS_SERVER_PUBLIC_URL", "https://tools.example.com/agent-tools/../admin"), "AGENT_TOOLS_SERVER_PUBLIC_URL", "path", ".."),
                new Case(with("AGENT_TOOLS_SERVER_PUBLIC_URL", "tools.example.com"), "AGENT_TOOLS_SERVER_PUBLIC_URL", "absolute https URL"),
                new Case(with("AGENT_TOOLS_SERVER_GOOGLE_CLIENT_SECRET", null), "AGENT_TOOLS_SERVER_GOOGLE_CLIENT_SECRET", "AGENT_TOOLS_CLIENT_SECRETS"),
                new Case(with("AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME", "2d"), "AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME", "at most 1 day"),
                new Case(with("AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME", "1h", "AGENT_TOOLS_SERVER_REFRESH_TOKEN_LIFETIME", "30m"),
                        "AGENT_TOOLS_SERVER_REFRESH_TOKEN_LIFETIME", "AGENT_TOOLS_SERVER_ACCESS_TOKEN_LIFETIME"),
                new Case(with("AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE", "10m"), "AGENT_TOOLS_SERVER_REFRESH_TOKEN_REUSE_GRACE", "300s"),
                new Case(with("AGENT_TOOLS_SERVER_TRUSTED_PROXIES", "127.0.0.1,lb.internal"), "AGENT_TOOLS_SERVER_TRUSTED_PROXIES", "\"lb.internal\""),
                new Case(with("AGENT_TOOLS_SERVER_TRUSTED_PROXIES", "10.0.0.0/40"), "AGENT_TOOLS_SERVER_TRUSTED_PROXIES", "\"10.0.0.0/40\"", "0..32"),
                new Case(with("AGENT_TOOLS_SERVER_OAUTH_STORE", sharedFolder.resolve("oauth.db").toString()), "AGENT_TOOLS_SERVER_OAUTH_STORE"),
                // signed-in end users must not name another user's habits
                new Case(with("AGENT_TOOLS_HABIT_USER_PARAM", "on"), "AGENT_TOOLS_HABIT_USER_PARAM", "AGENT_TOOLS_SERVER_PUBLIC_URL"));
        for (Case c : cases) {
            Map<String, String> env = oauthEnv(freePort(), dir.resolve("refused.db"));
            c.changes().forEach((k, v) -> {
                if (v == null) {
                    env.remove(k);
                } else {
                    env.put(k, v);
                }
            });
            Process p = serverBuilder(env, 0).start(); // (the builder starts from no AGENT_TOOLS_* variable)
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("%s: %s", c.changes(), err).isEqualTo(Main.CONFIGURATION);
            assertThat(err).as("%s", c.changes()).contains(c.named()).doesNotContain("Exception").doesNotContain("\tat ")
                    .doesNotContain(CLIENT_SECRET).doesNotContain(KEY).doesNotContain(shortKey);
        }
    }

    /** The variables to change: name, value (null: removed), name, value... */
    private static Map<String, String> with(String... nameValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            m.put(nameValues[i], nameValues[i + 1]);
        }
        return m;
    }

    private static Map<String, String> oauthEnv(int port, Path store) {
        Map<String, String> env = new HashMap<>();
        env.put("AGENT_TOOLS_SERVER_PUBLIC_URL", "http://127.0.0.1:" + port);
        env.put("AGENT_TOOLS_SERVER_GOOGLE_CLIENT_ID", "agent-tools-server");
        env.put("AGENT_TOOLS_SERVER_GOOGLE_CLIENT_SECRET", CLIENT_SECRET);
        env.put("AGENT_TOOLS_SERVER_TOKEN_KEY", "k1:" + KEY);
        env.put("AGENT_TOOLS_SERVER_OAUTH_STORE", store.toString());
        env.put("AGENT_TOOLS_OAUTH_ROOT_URL", google.rootUri().toString());
        env.put("AGENT_TOOLS_CALENDAR_ROOT_URL", google.rootUri().toString());
        return env;
    }

    private static ProcessBuilder serverBuilder(Map<String, String> env, int port) {
        ProcessBuilder b = AgentToolsProcess.builder(google, "server", "--port", String.valueOf(port), "--drain", "1s");
        b.environment().remove("AGENT_TOOLS_ACCESS_TOKEN"); // the process's own Google token has no part here
        b.environment().putAll(env);
        return b.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    }

    private static Process startServer(Map<String, String> env, int port, ConcurrentLinkedQueue<String> stderr) throws Exception {
        Process p = serverBuilder(env, port).start();
        assertThat(ServerProcesses.port(p, stderr::add)).isEqualTo(port);
        return p;
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String key() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return Base64.getEncoder().encodeToString(k);
    }

    /** The user's five newest emails as the tools list them in-process with the user's own Google token. */
    private static List<String> gmailIds(String user) throws Exception {
        try (ToolRegistry own = Tools.builder().rootUrl(google.rootUri().toString()).defaultAccessToken(google.tokenFor(user)).build()) {
            JsonNode answer = new ToolProtocol(own).answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5}}").json();
            List<String> ids = new ArrayList<>();
            answer.get("data").get("emails").forEach(e -> ids.add(e.get("id").asText()));
            return ids;
        }
    }
}
