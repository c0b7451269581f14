package dev.agenttools.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code agent-tools emulator} as a user runs it: one line on stdout with the root URL, clear errors for bad flags. */
class EmulatorCommandTest {

    @Test
    void printsTheRootUrlOnStdoutThenServesUntilStopped() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(AgentToolsProcess.javaCommand("emulator", "--port", "0", "--latency", "5ms",
                "--token", "cli-token")).redirectError(ProcessBuilder.Redirect.DISCARD);
        AgentToolsProcess.isolate(builder.environment());
        Process process = builder.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).matches("emulator listening on http://127\\.0\\.0\\.1:\\d+/");
            URI root = URI.create(line.substring("emulator listening on ".length()));
            HttpResponse<String> profile = HttpClient.newHttpClient().send(HttpRequest.newBuilder(root.resolve("gmail/v1/users/me/profile"))
                    .header("Authorization", "Bearer cli-token").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(profile.statusCode()).isEqualTo(200);
            assertThat(profile.body()).contains("\"messagesTotal\"");
        } finally {
            process.destroy();
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
        }
    }

    @Test
    void rejectsOutOfRangeSettingsNamingTheFlag() {
        assertThat(run("emulator", "--fail-rate", "2")).startsWith("2:").contains("fail-rate must be 0..1, got 2.0");
        assertThat(run("emulator", "--max-concurrent", "0")).startsWith("2:").contains("max-concurrent must be at least 1");
        assertThat(run("emulator", "--latency", "fast")).startsWith("2:").contains("'fast' is not a duration");
        assertThat(run("emulator", "--latency", "150")).startsWith("2:").contains("has no unit");
        assertThat(run("emulator", "--fail-status", "404=1")).startsWith("2:").contains("must be 5xx");
        assertThat(run("emulator", "--mailbox", "/no/such.mbox", "--port", "0")).startsWith("1:").contains("/no/such.mbox");
    }

    private static String run(String... args) {
        StringWriter err = new StringWriter();
        var cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(new StringWriter()));
        int code = cli.execute(args);
        return code + ":" + err;
    }
}
