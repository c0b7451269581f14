package dev.agenttools.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code agent-tools emulator} as a user runs it: one line on stdout with the root URL, clear errors for bad flags. */
@Tag("process")
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
    void startsOnRealMailAndNamesTheOneMessageItSkips(@TempDir Path dir) throws Exception {
        Path mail = Files.createDirectory(dir.resolve("mail"));
        // the oldest message, so a fresh JVM meets Angus Mail's lazy provider loading 3,000 parts deep: that once
        // kept the emulator from starting at all
        Files.writeString(mail.resolve("deep.eml"), nested(3_000, "Date: Mon, 01 Jan 1990 09:00:00 +0000"));
        Files.writeString(mail.resolve("fine.eml"), "From: a@example.org\r\nSubject: Fine\r\n"
                + "Date: Mon, 05 Jan 2026 10:00:00 +0000\r\n\r\nFine.\r\n");
        try (InputStream unreadable = getClass().getResourceAsStream("/dev/agenttools/emulator/mailbox/unreadable.eml")) {
            Files.write(mail.resolve("unreadable.eml"), unreadable.readAllBytes());
        }
        Path err = dir.resolve("stderr.txt");
        ProcessBuilder builder = new ProcessBuilder(AgentToolsProcess.javaCommand("emulator", "--port", "0", "--latency", "0ms",
                "--mailbox", mail.toString())).redirectError(err.toFile());
        AgentToolsProcess.isolate(builder.environment());
        Process process = builder.start();
        try {
            String line = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertThat(line).as("stderr: %s", Files.readString(err)).startsWith("emulator listening on ");
            URI root = URI.create(line.substring("emulator listening on ".length()));
            HttpClient http = HttpClient.newHttpClient();
            List<String> ids = new ObjectMapper().readTree(get(http, root, "gmail/v1/users/me/messages").body())
                    .path("messages").findValuesAsText("id");
            assertThat(ids).hasSize(2).allMatch(id -> id.matches("[1-7][0-9a-f]{15}"));
            for (String id : ids) {
                assertThat(get(http, root, "gmail/v1/users/me/messages/" + id).statusCode()).isEqualTo(200);
            }
            assertThat(Files.readAllLines(err)).filteredOn(l -> l.startsWith("emulator: skipped")).singleElement().asString()
                    .startsWith("emulator: skipped unreadable.eml: unreadable message: ");
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
        assertThat(run("emulator", "--max-body", "lots")).startsWith("2:").contains("'lots' is not a size");
        assertThat(run("emulator", "--max-header-size", "100")).startsWith("2:").contains("max-header-size must be 1024..1048576 bytes, got 100");
        assertThat(run("emulator", "--max-inflated-body", "99999999999999GiB")).startsWith("2:").contains("too large a size");
        assertThat(run("emulator", "--mailbox", "/no/such.mbox", "--port", "0")).startsWith("1:").contains("/no/such.mbox");
    }

    @Test
    void anUnreadableCalendarIsOneLineNamingTheFileWithoutAStackTrace(@TempDir Path dir) throws Exception {
        Map<String, byte[]> unreadable = Map.of(
                "binary.ics", new byte[]{'B', 'E', 'G', 'I', 'N', ':', 'V', 'C', 'A', 'L', (byte) 0xff, 0, 0x13, '\n', 'x', '\n'},
                "truncated.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART;TZID=/mozilla.org/x/Nowhere:20260101T1"
                        .getBytes(StandardCharsets.UTF_8),
                "stray-alarm.ics", ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n"
                        + "END:VCALENDAR\r\n").getBytes(StandardCharsets.UTF_8));
        for (Map.Entry<String, byte[]> file : unreadable.entrySet()) {
            Path ics = dir.resolve(file.getKey());
            Files.write(ics, file.getValue());
            Path err = dir.resolve(file.getKey() + ".err");
            ProcessBuilder builder = new ProcessBuilder(AgentToolsProcess.javaCommand("emulator", "--port", "0", "--latency", "0ms",
                    "--calendars", ics.toString())).redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            AgentToolsProcess.isolate(builder.environment());
            Process process = builder.start();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s: exits", file.getKey()).isTrue();
            String stderr = Files.readString(err);
            assertThat(process.exitValue()).as("%s: %s", file.getKey(), stderr).isEqualTo(1);
            assertThat(stderr.strip()).as(file.getKey()).doesNotContain("\tat ", "Exception").hasLineCount(1)
                    .contains(ics.toString(), "cannot read");
        }
    }

    /** A message whose multiparts nest {@code levels} deep, a text part at the bottom. */
    private static String nested(int levels, String dateHeader) {
        StringBuilder mail = new StringBuilder("From: deep@example.org\r\nSubject: Deep\r\n" + dateHeader + "\r\n");
        for (int i = 0; i < levels; i++) {
            mail.append("Content-Type: multipart/mixed; boundary=\"b").append(i).append("\"\r\n\r\n--b").append(i).append("\r\n");
        }
        mail.append("Content-Type: text/plain\r\n\r\nBottom.\r\n");
        for (int i = levels - 1; i >= 0; i--) {
            mail.append("--b").append(i).append("--\r\n");
        }
        return mail.toString();
    }

    private static HttpResponse<String> get(HttpClient http, URI root, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(root.resolve(path)).header("Authorization", "Bearer t").build(),
                HttpResponse.BodyHandlers.ofString());
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
