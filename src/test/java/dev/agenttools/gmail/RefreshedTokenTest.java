package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.google.GoogleSettings;
import dev.agenttools.google.Retry;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static dev.agenttools.gmail.GmailToolsTest.fastSettings;
import static dev.agenttools.gmail.GmailToolsTest.obj;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A refreshed token (Google's last an hour) is the same user: once the process knows the address of the new token,
 * its calls are paced with what was learned with the old one, and its lists use the old one's mail index. The
 * emulator takes any token as its one user, me@example.com.
 */
class RefreshedTokenTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final Duration WAIT = Duration.ofSeconds(10);

    private record Setup(GmailService service, ToolRegistry tools) {
    }

    private static Setup setup(Emulator emulator, CacheSettings cache) {
        GoogleConnection connection = new GoogleConnection(GoogleSettings.DEFAULT, null, "not signed in");
        GmailService service = new GmailService(fastSettings(emulator), Retry.DEFAULT, connection, cache);
        return new Setup(service, GmailTools.register(ToolRegistry.builder().resource(connection).resource(service), service).build());
    }

    /** Opens sessions of {@code token} until one acts as its address (the second asks; later ones find the answer). */
    private static GmailService.Session known(GmailService service, String token) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            GmailService.Session s = service.sessionFor(token);
            if (s.address().isPresent()) {
                return s;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the token's address was not learned within " + WAIT);
    }

    @Test
    void aRefreshedTokenKeepsTheConcurrencyLimitLearnedWithTheOldOne() throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().latency(Duration.ofMillis(50)).maxConcurrent(2).build())) {
            Setup s = setup(emulator, CacheSettings.OFF);
            JsonNode data = s.tools().call(ToolCall.of(GmailTools.LIST,
                    obj("{\"max_results\": 20, \"strategy\": \"concurrent\", \"access_token\": \"ya29.first\"}"))).data();
            assertThat(data.get("emails")).hasSize(20);
            assertThat(emulator.counters().concurrencyRejections()).as("the limit of 2 was met").isPositive();

            GmailService.Session first = known(s.service(), "ya29.first");
            int learned = s.service().maxInFlight(first);
            // cut to 1 or 2 by the refusals, won back a little by the successes since: far below the 50 configured
            assertThat(learned).as("learned with the first token, kept once its address is known").isLessThanOrEqualTo(10);

            GmailService.Session refreshedAlone = s.service().sessionFor("ya29.refreshed");
            assertThat(s.service().maxInFlight(refreshedAlone)).as("a token not known yet starts from the settings").isEqualTo(50);

            GmailService.Session refreshed = known(s.service(), "ya29.refreshed");
            assertThat(refreshed.account()).isEqualTo(first.account());
            assertThat(s.service().maxInFlight(refreshed)).isEqualTo(s.service().maxInFlight(first)).isLessThanOrEqualTo(10);
        }
    }

    @Test
    void aCallWithATokenSeenOnceSendsOnlyItsOwnRequests() throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Setup s = setup(emulator, CacheSettings.OFF);
            String id = s.tools().call(ToolCall.of(GmailTools.LIST, obj("{\"max_results\": 1, \"access_token\": \"ya29.once\"}")))
                    .data().get("emails").get(0).get("id").asText();
            long before = emulator.counters().apiCalls();
            s.tools().call(ToolCall.of(GmailTools.GET, obj("{\"message_id\": \"" + id + "\", \"access_token\": \"ya29.other\"}")));
            Thread.sleep(300); // a lookup started by the call would have been answered by now
            assertThat(emulator.counters().apiCalls() - before).as("get_email's messages.get alone").isEqualTo(1);
        }
    }

    @Test
    void aRefreshedTokensFirstListUsesTheMailIndexOfItsAddress(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Setup s = setup(emulator, new CacheSettings(CacheSettings.Mode.AUTO, dir.resolve("mail-index.db"), 20_000));
            String params = "{\"max_results\": 5, \"strategy\": \"concurrent\", \"access_token\": \"%s\"}";
            JsonNode first = s.tools().call(ToolCall.of(GmailTools.LIST, obj(params.formatted("ya29.first")))).data();

            known(s.service(), "ya29.refreshed"); // e.g. learned in its get_email calls
            long before = emulator.counters().apiCalls();
            JsonNode refreshed = s.tools().call(ToolCall.of(GmailTools.LIST, obj(params.formatted("ya29.refreshed")))).data();
            assertThat(emulator.counters().apiCalls() - before).as("messages.list and history.list: no getProfile, no gets")
                    .isEqualTo(2);
            assertThat(refreshed).isEqualTo(first);
        }
    }
}
