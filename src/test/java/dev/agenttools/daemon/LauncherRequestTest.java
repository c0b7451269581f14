package dev.agenttools.daemon;

import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LauncherRequestTest {
    private static final byte[] SECRET = "s3cret".getBytes(StandardCharsets.US_ASCII);

    @Test
    void readsNothingPastAWrongSecret() {
        byte[] message = DaemonServerTest.launcherMessage("wrong", "1.000000", "/", List.of("AGENT_TOOLS_ACCESS_TOKEN=tok"), new byte[0]);
        AtomicInteger read = new AtomicInteger();
        InputStream counting = new ByteArrayInputStream(message) {
            @Override
            public synchronized int read() {
                read.incrementAndGet();
                return super.read();
            }
        };
        assertThatThrownBy(() -> LauncherRequest.read(counting, SECRET)).isInstanceOf(IOException.class).hasMessage("wrong secret");
        assertThat(read.get()).isEqualTo((LauncherRequest.PROTOCOL + "\0wrong\0").length());
    }

    @Test
    void refusesAFieldOverItsLimit() {
        String big = "A=" + "x".repeat(LauncherRequest.MAX_FIELD_BYTES);
        byte[] message = DaemonServerTest.launcherMessage("s3cret", "1.000000", "/", List.of(big), new byte[0]);
        assertThatThrownBy(() -> LauncherRequest.read(new ByteArrayInputStream(message), SECRET))
                .isInstanceOf(IOException.class).hasMessageContaining("a field over 65536 bytes");
    }

    @Test
    void keepsEqualsSignsInValuesAndRefusesNamelessSettings() throws IOException {
        byte[] ok = DaemonServerTest.launcherMessage("s3cret", "1.000000", "/", List.of("A==b=", "EMPTY="), new byte[] {1, 0, 2});
        LauncherRequest r = LauncherRequest.read(new ByteArrayInputStream(ok), SECRET);
        assertThat(r.settings()).containsExactly(Map.entry("A", "=b="), Map.entry("EMPTY", ""));
        assertThat(r.body()).containsExactly(1, 0, 2);

        byte[] bad = DaemonServerTest.launcherMessage("s3cret", "1.000000", "/", List.of("=x"), new byte[0]);
        assertThatThrownBy(() -> LauncherRequest.read(new ByteArrayInputStream(bad), SECRET)).hasMessage("a setting without a name");
    }

    @Test
    void refusesABodyShorterThanItsLength() {
        byte[] message = DaemonServerTest.launcherMessage("s3cret", "1.000000", "/", List.of(), "{}".getBytes(StandardCharsets.US_ASCII));
        byte[] cut = Arrays.copyOf(message, message.length - 1);
        assertThatThrownBy(() -> LauncherRequest.read(new ByteArrayInputStream(cut), SECRET)).hasMessageContaining("after 1 of 2 bytes");
    }

    @Test
    void aStartMinutesAgoStillCountsSinceALauncherMayHaveWaitedForABuild() {
        Instant fiveMinutesAgo = Instant.now().minusSeconds(300);
        long micros = fiveMinutesAgo.getEpochSecond() * 1_000_000 + fiveMinutesAgo.getNano() / 1_000;
        long ageMs = (System.nanoTime() - LauncherRequest.startNanos(micros, () -> -1)) / 1_000_000;
        assertThat(ageMs).isBetween(300_000L, 305_000L);
        assertThat(LauncherRequest.startNanos(micros - 120_000_000L, () -> -1)).as("seven minutes: a wrong clock").isEqualTo(-1);
        assertThat(LauncherRequest.parseEpochMicros("1700000000,000042")).isEqualTo(1_700_000_000_000_042L);
        Assertions.assertThatThrownBy(() -> LauncherRequest.parseEpochMicros("soon"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seconds.micros");
    }

    @Test
    void aStartTimeInTheFutureOrLongAgoCountsFromNow() {
        long now = System.currentTimeMillis() * 1000;
        for (long start : new long[] {now + 3_600_000_000L, now - 3_600_000_000L}) {
            long before = System.nanoTime();
            long startNanos = new LauncherRequest(Map.of(), "/", start, new byte[0]).startNanos();
            assertThat(startNanos).isBetween(before, System.nanoTime());
        }
    }
}
