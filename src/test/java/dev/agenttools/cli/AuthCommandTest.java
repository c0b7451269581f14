package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `agent-tools auth` as a user runs it, headless: `login --no-browser` prints the consent address, which the test
 * "opens" as a browser would; then status, a tool call on the stored sign-in, logout.
 */
@Tag("process")
class AuthCommandTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    @TempDir
    static Path home;

    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(2)).jitter(Duration.ZERO).build());
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    private static ProcessBuilder agentTools(String... args) {
        ProcessBuilder b = AgentToolsProcess.builder(emulator, args);
        Map<String, String> env = b.environment();
        env.remove("AGENT_TOOLS_ACCESS_TOKEN"); // the stored sign-in is the only token
        env.put("XDG_CONFIG_HOME", home.toString());
        env.put("AGENT_TOOLS_OAUTH_ROOT_URL", emulator.rootUri().toString());
        return b;
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String input, String... args) throws Exception {
        Process p = agentTools(args).start();
        p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out, err);
    }

    @Test
    void signsInOnceThenTheToolsUseTheStoredSignIn() throws Exception {
        Run before = run("", "auth", "status");
        assertThat(before.exit()).isEqualTo(4);
        assertThat(before.out()).contains("not signed in: run 'agent-tools auth login");

        Run noSecrets = run("", "auth", "login", "--client-secrets", home.resolve("missing.json").toString(), "--no-browser");
        assertThat(noSecrets.exit()).isEqualTo(4);
        assertThat(noSecrets.err()).contains("does not exist").contains("--client-secrets");

        Path secrets = home.resolve("client_secret.json");
        Files.writeString(secrets, "{\"installed\": {\"client_id\": \"cli-test.apps.googleusercontent.com\", \"client_secret\": \"s\"}}");
        Process login = agentTools("auth", "login", "--client-secrets", secrets.toString(), "--no-browser").start();
        var err = new BufferedReader(new InputStreamReader(login.getErrorStream(), StandardCharsets.UTF_8));
        String url = null;
        for (String line; (line = err.readLine()) != null; ) {
            if (line.strip().startsWith("http")) {
                url = line.strip();
                break;
            }
        }
        assertThat(url).as("the consent address on stderr").startsWith(emulator.rootUri() + "o/oauth2/auth?");
        // what a person's browser does: load the consent page, which redirects to agent-tools' loopback address
        HttpClient.newBuilder().followRedirects(HttpClient.Redirect.ALWAYS).build()
                .send(HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.discarding());
        String out = new String(login.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(login.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(login.exitValue()).isZero();
        assertThat(out).contains("signed in as me@example.com").doesNotContain("ya29").doesNotContain("1//");

        Run status = run("", "auth", "status");
        assertThat(status.exit()).isZero();
        assertThat(status.out()).contains("signed in as me@example.com").contains("cli-test.apps.googleusercontent.com").contains("gmail.readonly")
                .contains("refresh token: stored").doesNotContain("ya29").doesNotContain("1//");

        Run call = run("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}", "call");
        assertThat(call.exit()).as(call.out()).isZero();
        assertThat(call.out()).contains("\"emails\"");

        Run logout = run("", "auth", "logout");
        assertThat(logout.out()).contains("revoked at Google and deleted here");
        Run after = run("{\"command\": \"gmail.list-emails\", \"params\": {}}", "call");
        assertThat(after.exit()).isEqualTo(4);
        assertThat(after.out()).contains("unauthenticated").contains("agent-tools auth login");
    }
}
