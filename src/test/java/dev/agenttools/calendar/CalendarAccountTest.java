package dev.agenttools.calendar;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.google.GoogleSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A registry without Gmail learns who a token is from Calendar: its primary calendar's id is the owner's address. */
class CalendarAccountTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @Test
    void aTokenSeenAgainActsAsTheAddressOfItsPrimaryCalendar() throws Exception {
        try (Emulator emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).userEmail("Someone@Example.org").build());
             GoogleConnection connection = new GoogleConnection(GoogleSettings.DEFAULT, null, "not signed in")) {
            CalendarService calendar = new CalendarService(CalendarSettings.forRoot(emulator.rootUri().toString()), connection);
            CalendarService.Session first = calendar.sessionFor("ya29.secret-1");
            assertThat(first.account().id()).startsWith("token-");
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            CalendarService.Session s = calendar.sessionFor("ya29.secret-1");
            while (s.google().address().isEmpty() && System.nanoTime() < end) {
                Thread.sleep(10);
                s = calendar.sessionFor("ya29.secret-1");
            }
            assertThat(s.google().address()).contains("Someone@Example.org");
            assertThat(s.account().id()).isEqualTo("someone@example.org");
        }
    }
}
