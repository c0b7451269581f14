package dev.agenttools.bench;

import dev.agenttools.calendar.CalendarTools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.gmail.GmailTools;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Go peer (scripts/bench/go-peer builds it from Debian's packages, installing them when missing, as CI runs as root)
 * against the emulator over real HTTP, with TLS (h2 by ALPN, the emulator's self-signed certificate trusted with
 * --ca-cert) and in cleartext. When the peer cannot be built here the tests fail, saying why: they never pass by
 * skipping.
 */
@Tag("process")
class GoPeerTest {
    private static final String TOKEN = "go-peer-test-token-7d1f";
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);
    private static GoPeer peer;
    private static Emulator tls;
    private static Emulator cleartext;

    @BeforeAll
    static void buildThePeerAndStartTheEmulators() throws Exception {
        Path built = build();
        peer = GoPeer.find(built.toString(), Path.of("")).orElseThrow();
        EmulatorConfig.Builder fast = EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).token(TOKEN);
        tls = Emulator.start(fast.tls(true).build());
        cleartext = Emulator.start(fast.tls(false).build());
    }

    /** Runs scripts/bench/go-peer as the README says the tests do; its last stdout line is the binary's path. */
    private static Path build() throws IOException, InterruptedException {
        Path log = Files.createTempFile("go-peer", ".log");
        Process p = new ProcessBuilder("bash", "scripts/bench/go-peer").redirectError(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(BUILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("scripts/bench/go-peer did not finish within " + BUILD_TIMEOUT.toMinutes() + " min; see " + log);
        }
        String err = Files.readString(log).strip();
        Files.delete(log);
        if (p.exitValue() != 0 || out.isEmpty()) {
            throw new AssertionError("scripts/bench/go-peer could not build the Go peer (status " + p.exitValue() + "): " + err);
        }
        return Path.of(out.substring(out.lastIndexOf('\n') + 1));
    }

    @AfterAll
    static void stopTheEmulators() {
        if (tls != null) {
            tls.close();
        }
        if (cleartext != null) {
            cleartext.close();
        }
    }

    @Test
    void listsTenMessagesOverTlsWithNoError() throws Exception {
        GoPeer.Samples s = peer.list(tls.rootUri().toString(), TOKEN, tls.certificate(), 10, 1, 3);

        assertThat(s.errors()).as("errors (first: %s)", s.firstError()).isZero();
        assertThat(s.mode()).isEqualTo("list");
        assertThat(s.messages()).isEqualTo(10);
        assertThat(s.runsMs()).hasSize(3).allSatisfy(ms -> assertThat(ms).isPositive());
        assertThat(tls.counters().apiCalls()).as("a list and ten gets a run, 4 runs").isGreaterThanOrEqualTo(44);
    }

    @Test
    void listsTenMessagesInCleartextWithNoError() throws Exception {
        GoPeer.Samples s = peer.list(cleartext.rootUri().toString(), TOKEN, null, 10, 0, 2);

        assertThat(s.errors()).as("errors (first: %s)", s.firstError()).isZero();
        assertThat(s.messages()).isEqualTo(10);
        assertThat(s.runsMs()).hasSize(2);
    }

    @Test
    void getsOneMessageInOneProcessAndInAFreshOne() throws Exception {
        String id;
        try (BareClient bare = new BareClient(cleartext.rootUri().toString(), TOKEN, masks(), null)) {
            id = bare.list(1).getFirst();
        }

        GoPeer.Samples s = peer.get(tls.rootUri().toString(), TOKEN, tls.certificate(), List.of(id), 1, 2);
        assertThat(s.errors()).as("errors (first: %s)", s.firstError()).isZero();
        assertThat(s.runsMs()).hasSize(2);

        long first = peer.firstCallNanos(tls.rootUri().toString(), TOKEN, tls.certificate(), id);
        assertThat(first).as("spawn to exit, a call included").isGreaterThan(s.runsMs().getFirst().longValue());
    }

    @Test
    void aBadTokenFailsEveryRunWithGmailsAnswerAndNoToken() throws Exception {
        String bad = "not-the-emulators-token-0000";
        GoPeer.Samples s = peer.list(tls.rootUri().toString(), bad, tls.certificate(), 10, 0, 2);

        assertThat(s.errors()).isEqualTo(2);
        assertThat(s.runsMs()).isEmpty();
        assertThat(s.firstError()).contains("401").doesNotContain(bad);

        assertThatThrownBy(() -> peer.firstCallNanos(tls.rootUri().toString(), bad, tls.certificate(), "18a0000000000001"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("gmail-peer exited with status 1")
                .hasMessageContaining("401")
                .message().doesNotContain(bad);
    }

    @Test
    void anUntrustedCertificateIsRefusedSayingSo() throws Exception {
        GoPeer.Samples s = peer.list(tls.rootUri().toString(), TOKEN, null, 10, 0, 1);

        assertThat(s.errors()).isEqualTo(1);
        assertThat(s.firstError()).contains("certificate");
    }

    @Test
    void aPeerThatHangsIsKilledAtItsBoundWithWhatItSaid(@TempDir Path dir) throws Exception {
        // a stand-in that says something and never answers, holding both pipes open
        Path hanging = Files.writeString(dir.resolve("gmail-peer"), "#!/bin/sh\necho 'connecting...' >&2\nexec sleep 30\n");
        Files.setPosixFilePermissions(hanging, PosixFilePermissions.fromString("rwx------"));
        GoPeer slow = new GoPeer(hanging, Duration.ofMillis(500), Duration.ofMillis(500));

        long start = System.nanoTime();
        assertThatThrownBy(() -> slow.list(cleartext.rootUri().toString(), TOKEN, null, 10, 0, 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("did not finish within 1000 ms; killed")
                .hasMessageContaining("connecting...");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("killed at its bound, not when it ended").isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void aConfiguredPathThatIsNoBinaryIsRefusedNamingTheVariable(@TempDir Path dir) throws Exception {
        Path notABinary = Files.writeString(dir.resolve("gmail-peer"), "");

        assertThatThrownBy(() -> GoPeer.find(notABinary.toString(), dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(GoPeer.PATH_ENV)
                .hasMessageContaining("not an executable file");
        assertThat(GoPeer.find(null, dir)).as("nothing built under " + dir).isEmpty();
    }

    @Test
    void findsTheBuiltPeerInTheProjectThisClassCameFrom() throws Exception {
        Path classes = Path.of(GoPeer.class.getProtectionDomain().getCodeSource().getLocation().toURI());

        assertThat(GoPeer.find(null, classes)).map(GoPeer::binary).contains(Path.of("").toAbsolutePath().resolve(GoPeer.BUILT));
    }

    private static List<String> masks() {
        List<String> masks = new ArrayList<>(GmailTools.LIST_FIELD_MASKS);
        masks.addAll(CalendarTools.LIST_FIELD_MASKS);
        return masks;
    }
}
