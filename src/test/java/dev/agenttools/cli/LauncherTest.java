package dev.agenttools.cli;

import dev.agenttools.daemon.DaemonDirectory;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ./agent-tools} launcher's one-shot call through the resident server, end to end: the real bash script
 * in a checkout of its own (the script, the JDK finder and a jar whose manifest points at this build's classes), a
 * private runtime folder per test, an emulator over real HTTP.
 */
class LauncherTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    @TempDir
    static Path checkout;
    @TempDir
    Path runtime;
    @TempDir
    Path callerFolder;
    private Path jar;

    @BeforeAll
    static void start() throws IOException {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(5)).jitter(Duration.ZERO)
                .quotaPerMinute(60_000_000).maxConcurrent(1_000).build());
        Path launcher = checkout.resolve("agent-tools");
        Files.copy(Path.of("agent-tools"), launcher);
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(checkout.resolve(".mvn"));
        Files.copy(Path.of(".mvn/find-jdk.sh"), checkout.resolve(".mvn/find-jdk.sh"));
        Path target = Files.createDirectories(checkout.resolve("target"));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Main.class.getName());
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath();
            classPath.add(target.relativize(p).toString().replace(File.separatorChar, '/') + (Files.isDirectory(p) ? "/" : ""));
        }
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", classPath));
        try (OutputStream out = Files.newOutputStream(target.resolve("agent-tools.jar")); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
    }

    @BeforeEach
    void jar() {
        jar = checkout.resolve("target/agent-tools.jar");
    }

    @AfterEach
    void stopServers() throws IOException {
        // a server whose address file is gone stops within half a second
        try (Stream<Path> files = Files.walk(runtime)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private record Run(int exit, byte[] stdout, String stderr) {
        String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        /** The answer without its duration, which differs from run to run. */
        String timeless() {
            return out().replaceAll("\"duration_ms\":[0-9.E-]+", "\"duration_ms\":0").replaceAll("[0-9]+ ms", "N ms");
        }
    }

    private Run call(byte[] request, Map<String, String> settings) throws Exception {
        ProcessBuilder b = new ProcessBuilder(checkout.resolve("agent-tools").toString(), "call").directory(callerFolder.toFile());
        Map<String, String> env = AgentToolsProcess.isolate(b.environment());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("XDG_RUNTIME_DIR", runtime.toString());
        env.put("AGENT_TOOLS_AOT", "off"); // no 15 s training run in this checkout
        env.put("AGENT_TOOLS_DAEMON_IDLE", "60s");
        env.put("AGENT_TOOLS_GMAIL_ROOT_URL", emulator.rootUri().toString());
        env.put("AGENT_TOOLS_ACCESS_TOKEN", "launcher-token-3f9a");
        env.put("AGENT_TOOLS_GMAIL_QUOTA", "60000000");
        env.put("AGENT_TOOLS_TRACKING_DB", AgentToolsProcess.TRACKING_DB.toString());
        env.putAll(settings);
        env.values().removeIf(String::isEmpty);
        Process p = b.start();
        Thread.ofVirtual().start(() -> {
            try (OutputStream in = p.getOutputStream()) {
                in.write(request);
            } catch (IOException e) {
                // the launcher stopped reading: its answer says why
            }
        });
        byte[] stdout;
        String stderr;
        try (InputStream out = p.getInputStream(); InputStream err = p.getErrorStream()) {
            var errText = Thread.ofVirtual().start(() -> { });
            String[] errHolder = new String[1];
            errText = Thread.ofVirtual().start(() -> {
                try {
                    errHolder[0] = new String(err.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    errHolder[0] = e.toString();
                }
            });
            stdout = out.readAllBytes();
            errText.join(180_000);
            stderr = errHolder[0];
        }
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
        return new Run(p.exitValue(), stdout, stderr);
    }

    private Run call(String request, Map<String, String> settings) throws Exception {
        return call(request.getBytes(StandardCharsets.UTF_8), settings);
    }

    private Run call(String request) throws Exception {
        return call(request, Map.of());
    }

    private Path serverFolder() throws IOException {
        try (Stream<Path> files = Files.walk(runtime)) {
            return files.filter(p -> p.getFileName().toString().equals(DaemonDirectory.ADDRESS_FILE)).findFirst()
                    .map(Path::getParent).orElse(null);
        }
    }

    private String address() throws IOException {
        Path folder = serverFolder();
        return folder == null ? null : Files.readString(folder.resolve(DaemonDirectory.ADDRESS_FILE));
    }

    @Test
    void answersByteForByteAsTheInProcessCall() throws Exception {
        String id = Main.class.getName().isEmpty() ? "" : firstId();
        List<byte[]> requests = List.of(
                ("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 3}}").getBytes(StandardCharsets.UTF_8),
                ("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}").getBytes(StandardCharsets.UTF_8),
                ("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}").getBytes(StandardCharsets.UTF_8),
                "{\"command\": \"tools.list\"}\n\n".getBytes(StandardCharsets.UTF_8),
                "not json".getBytes(StandardCharsets.UTF_8),
                "  \n".getBytes(StandardCharsets.UTF_8),
                new byte[0],
                "{\"command\": \"a\0b\"}".getBytes(StandardCharsets.UTF_8),
                "{\"command\": \"\u00e9t\u00e9 \u2603\"}".getBytes(StandardCharsets.UTF_8),
                new byte[] {'{', '"', (byte) 0xff, (byte) 0xfe, '"', '}'},
                ("{\"command\": \"tools.list\", \"params\": {\"x\": \"" + "y".repeat(1 << 20) + "\"}}").getBytes(StandardCharsets.UTF_8));
        for (byte[] request : requests) {
            // without the mail index: with it the second of two equal lists answers from it, the same data with
            // another meta.backend ("index"), which is not what this compares
            Run resident = call(request, Map.of("AGENT_TOOLS_CACHE", "off"));
            Run inProcess = call(request, Map.of(CallCommand.DAEMON, "off", "AGENT_TOOLS_CACHE", "off"));
            String shown = new String(request, 0, Math.min(request.length, 80), StandardCharsets.UTF_8);
            assertThat(resident.timeless()).as("answer to %s", shown).isEqualTo(inProcess.timeless());
            assertThat(resident.exit()).as("exit status for %s", shown).isEqualTo(inProcess.exit());
            assertThat(resident.stderr()).as("stderr for %s", shown).isEmpty();
        }
        assertThat(serverFolder()).as("the resident server answered them").isNotNull();
    }

    @Test
    void answersInUtf8WhateverTheLocale() throws Exception {
        byte[] request = "{\"command\": \"\u00e9t\u00e9\"}".getBytes(StandardCharsets.UTF_8);
        for (String daemon : List.of("on", "off")) {
            Run r = call(request, Map.of(CallCommand.DAEMON, daemon, "LC_ALL", "C", "LANG", "C"));
            assertThat(r.out()).as("daemon %s", daemon).contains("unknown command '\u00e9t\u00e9'");
        }
    }

    private String firstId() throws Exception {
        Run list = call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 1}}");
        return list.out().replaceAll("(?s).*?\"id\":\"([0-9a-f]+)\".*", "$1");
    }

    @Test
    void laterCallsGoToTheSameServer() throws Exception {
        assertThat(call("{\"command\": \"tools.list\"}").exit()).isZero();
        String first = address();
        assertThat(first).isNotNull();
        for (int i = 0; i < 3; i++) {
            assertThat(call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}").exit()).isZero();
        }
        assertThat(address()).isEqualTo(first);
        assertThat(Files.readString(serverFolder().resolve("daemon.log"))).containsOnlyOnce("serving on");
    }

    @Test
    void callsThatArriveTogetherStartOneServer() throws Exception {
        List<Thread> callers = new ArrayList<>();
        List<Run> runs = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            callers.add(Thread.ofVirtual().start(() -> {
                try {
                    runs.add(call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}"));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }));
        }
        for (Thread t : callers) {
            t.join(120_000);
        }
        assertThat(runs).hasSize(5).allSatisfy(r -> {
            assertThat(r.exit()).isZero();
            assertThat(r.stderr()).isEmpty();
        });
        assertThat(Files.readString(serverFolder().resolve("daemon.log"))).containsOnlyOnce("serving on");
    }

    @Test
    void keepsItsSecretsInOwnerOnlyFilesAndTheTokenOffTheDisk() throws Exception {
        assertThat(call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}").exit()).isZero();
        Path folder = serverFolder();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder.getParent()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder.resolve(DaemonDirectory.ADDRESS_FILE))))
                .isEqualTo("rw-------");
        try (Stream<Path> files = Files.walk(runtime)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(f, StandardCharsets.ISO_8859_1)).as("%s", f).doesNotContain("launcher-token-3f9a");
            }
        }
    }

    @Test
    void startsANewServerWhenTheAddressNamesADeadOne() throws Exception {
        assertThat(call("{\"command\": \"tools.list\"}").exit()).isZero();
        Path folder = serverFolder();
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort();
        }
        stopServerAt(folder);
        Files.writeString(folder.resolve(DaemonDirectory.ADDRESS_FILE), deadPort + " a b\n");

        Run r = call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}");
        assertThat(r.exit()).isZero();
        assertThat(r.stderr()).isEmpty();
        assertThat(address()).doesNotStartWith(deadPort + " ");
    }

    @Test
    void sendsNothingToAProgramThatTookTheServersPort() throws Exception {
        assertThat(call("{\"command\": \"tools.list\"}").exit()).isZero();
        Path folder = serverFolder();
        stopServerAt(folder);
        AtomicInteger bytesReceived = new AtomicInteger();
        try (ServerSocket impostor = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                while (!impostor.isClosed()) {
                    try (Socket s = impostor.accept()) {
                        s.getOutputStream().write("not-the-server-secret\n".getBytes(StandardCharsets.US_ASCII));
                        s.setSoTimeout(2_000);
                        InputStream in = s.getInputStream();
                        while (in.read() >= 0) {
                            bytesReceived.incrementAndGet();
                        }
                    } catch (IOException e) {
                        // next
                    }
                }
            });
            Files.writeString(folder.resolve(DaemonDirectory.ADDRESS_FILE), impostor.getLocalPort() + " server-secret client-secret\n");

            Run r = call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}");
            assertThat(r.exit()).isZero();
            assertThat(r.out()).contains("\"status\":\"ok\"");
            Thread.sleep(300);
            assertThat(bytesReceived.get()).as("bytes the impostor got (the token among them, were it sent)").isZero();
        }
    }

    /** Removes the address file, which stops its server, and waits until the server let go of the folder. */
    private static void stopServerAt(Path folder) throws Exception {
        Files.delete(folder.resolve(DaemonDirectory.ADDRESS_FILE));
        awaitStopped(folder);
    }

    private static void awaitStopped(Path folder) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < until) {
            try (DaemonDirectory d = DaemonDirectory.lock(folder, Duration.ZERO)) {
                if (d != null) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the server at " + folder + " did not stop");
    }

    @Test
    void restartsWhenTheJarChanges() throws Exception {
        assertThat(call("{\"command\": \"tools.list\"}").exit()).isZero();
        String before = address();
        Files.setLastModifiedTime(jar, FileTime.from(java.time.Instant.now())); // newer than the address file

        Run r = call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}");
        assertThat(r.exit()).isZero();
        assertThat(r.stderr()).isEmpty();
        assertThat(address()).isNotNull().isNotEqualTo(before);
    }

    @Test
    void stopsAfterItsIdleTime() throws Exception {
        assertThat(call("{\"command\": \"tools.list\"}", Map.of("AGENT_TOOLS_DAEMON_IDLE", "1s")).exit()).isZero();
        Path folder = serverFolder();
        int port = Integer.parseInt(address().split(" ")[0]);
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (Files.exists(folder.resolve(DaemonDirectory.ADDRESS_FILE)) && System.nanoTime() < until) {
            Thread.sleep(100);
        }
        assertThat(folder.resolve(DaemonDirectory.ADDRESS_FILE)).doesNotExist();
        awaitStopped(folder);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                .isInstanceOf(java.net.ConnectException.class);
    }

    @Test
    void offAnswersInProcessAndStartsNoServer() throws Exception {
        Run r = call("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 2}}", Map.of(CallCommand.DAEMON, "off"));
        assertThat(r.exit()).isZero();
        try (Stream<Path> files = Files.list(runtime)) {
            assertThat(files.toList()).isEmpty();
        }
    }

    @Test
    void aBadDaemonSettingIsAConfigurationError() throws Exception {
        Run r = call("{\"command\": \"tools.list\"}", Map.of(CallCommand.DAEMON, "maybe"));
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).contains("configuration: AGENT_TOOLS_DAEMON must be on or off, got \\\"maybe\\\"");
        Run idle = call("{\"command\": \"tools.list\"}", Map.of("AGENT_TOOLS_DAEMON_IDLE", "soon"));
        assertThat(idle.exit()).isEqualTo(2);
        assertThat(idle.out()).contains("AGENT_TOOLS_DAEMON_IDLE");
    }

    @Test
    void relativePathsInTheSettingsAreTheCallersOwn() throws Exception {
        Files.writeString(callerFolder.resolve("mine.properties"), "AGENT_TOOLS_GMAIL_BATCH_SIZE=0\n");
        Run r = call("{\"command\": \"tools.list\"}", Map.of("AGENT_TOOLS_CONFIG", "mine.properties"));
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).contains("configuration: AGENT_TOOLS_GMAIL_BATCH_SIZE");
        assertThat(serverFolder()).as("answered by the resident server").isNotNull();
    }
}
