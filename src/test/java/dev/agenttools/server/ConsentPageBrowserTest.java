package dev.agenttools.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The consent page in a real browser: Debian's Chromium, headless, driven by playwright-core
 * ({@code src/test/node/consent-browser.mjs}; the build installs Chromium with {@code scripts/build/ensure-chromium} when it
 * is missing). The victim of issue 43's confused deputy sees our page naming the attacker's client as unverified and
 * its host, and no code reaches the attacker without an approval; the MCP TypeScript SDK's client signs a user in
 * through the page, as a person clicking Approve, and lists the user's emails through {@code /mcp}. The screenshots
 * are kept in {@code target/consent-browser/}.
 */
@Tag("process")
class ConsentPageBrowserTest {
    private static final String USER = "user2@example.com";
    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("AGENT_TOOLS_CHROMIUM", "/usr/bin/chromium"));

    @RegisterExtension
    static final Emulators emulators = new Emulators();
    @TempDir
    Path dir;

    @Test
    void theVictimSeesOurPageNamingTheUnverifiedClientAndTheSdkClientSignsInThroughItInChromium() throws Exception {
        Path node = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        assertThat(node.resolve("node_modules/playwright-core")).as("npm packages of the Node tests (the build runs 'npm install' in %s)", node)
                .exists();
        assertThat(CHROMIUM).as("Debian's chromium (the build installs it with scripts/build/ensure-chromium)").isExecutable();
        Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).users(2).seedMessages(5).build());
        Path out = Path.of("target", "consent-browser").toAbsolutePath();
        Files.createDirectories(out);
        Files.deleteIfExists(out.resolve("consent-page.png"));
        Files.deleteIfExists(out.resolve("consent-sign-in.png"));
        JsonNode result;
        try (OAuthServer server = new OAuthServer(emulator, OAuthServer.settings(emulator, URI.create("http://127.0.0.1:0"), dir.resolve("oauth.db")))) {
            Process process = new ProcessBuilder("node", "consent-browser.mjs", server.base.toString(), USER, out.toString())
                    .directory(node.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            byte[] printed = process.getInputStream().readAllBytes();
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("node finished").isTrue();
            String shown = new String(printed, StandardCharsets.UTF_8);
            assertThat(process.exitValue()).as("node's exit status; output: %s", shown).isZero();
            result = Json.MAPPER.readTree(shown.lines().reduce((a, b) -> b).orElseThrow());
        }

        JsonNode attack = result.get("attack");
        assertThat(attack.get("status").asInt()).isEqualTo(200);
        assertThat(attack.get("url").asText()).as("the browser stopped at our page").contains("/oauth/authorize?");
        assertThat(attack.get("text").asText()).contains("“Totally Legit Assistant” (unverified)")
                .contains("has not checked it").contains("attacker.example")
                .contains("Read your Gmail messages (gmail.readonly)").contains("Read your Google Calendar events (calendar.readonly)")
                .contains("Read and change your habits in agent-tools' habit tracker (habits)")
                .doesNotContain("habits.readonly").as("every scope in words").doesNotContain("Use the scope");
        assertThat(attack.get("buttons").toString()).contains("Approve").contains("Deny");
        assertThat(attack.get("headers").get("content-security-policy").asText()).contains("frame-ancestors 'none'");
        assertThat(attack.get("headers").get("x-frame-options").asText()).isEqualTo("DENY");
        // Chromium shows its own error page in the frame ("127.0.0.1 refused to connect") instead of ours
        assertThat(attack.get("framedUrl").asText()).as("framed by another page").startsWith("chrome-error:");
        assertThat(attack.get("framedText").asText()).doesNotContain("Totally Legit").doesNotContain("Approve");
        assertThat(attack.get("reachedBeforeAnswer")).as("nothing reached the attacker before an answer").isEmpty();
        assertThat(attack.get("afterDeny").asText()).startsWith("https://attacker.example/steal?error=access_denied")
                .doesNotContain("code=");
        assertThat(Files.size(out.resolve("consent-page.png"))).as("a screenshot").isGreaterThan(5_000);

        JsonNode signIn = result.get("signIn");
        assertThat(signIn.get("consentText").asText()).contains("“Browser Test Client” (unverified)")
                .contains("127.0.0.1:").contains("(a program on this computer)");
        assertThat(signIn.get("tools").toString()).contains("list_emails");
        List<String> emails = new ArrayList<>();
        signIn.get("emails").forEach(e -> emails.add(e.asText()));
        assertThat(emails).as("the user's own mailbox, through /mcp").isEqualTo(gmailIds(emulator, USER));
        assertThat(Files.size(out.resolve("consent-sign-in.png"))).isGreaterThan(5_000);
    }

    private static List<String> gmailIds(Emulator emulator, String user) throws Exception {
        try (ToolRegistry own = Tools.builder().rootUrl(emulator.rootUri().toString()).defaultAccessToken(emulator.tokenFor(user)).build()) {
            JsonNode answer = new ToolProtocol(own)
                    .answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 5}}").json();
            List<String> ids = new ArrayList<>();
            answer.get("data").get("emails").forEach(e -> ids.add(e.get("id").asText()));
            return ids;
        }
    }
}
