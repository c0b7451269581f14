package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts the real command line in its own JVM, pointed at an emulator, as an agent would run it. Every such JVM is
 * isolated from the developer's own set-up: no inherited {@code AGENT_TOOLS_*} variable, a private home (Java's
 * {@code user.home}, {@code $HOME}, the XDG folders) and {@code AGENT_TOOLS_CONFIG} naming an empty file, so a
 * {@code ~/.config/agent-tools/config.properties} with, say, {@code AGENT_TOOLS_TRACKING=dynamodb} never reaches a test.
 */
final class AgentToolsProcess {
    /** The spawned JVMs' home: holds an empty config file and nothing else. */
    static final Path HOME = privateHome();
    /**
     * The call store the test processes write to: in their private home, since a store is kept only in a folder
     * others cannot write (not straight in /tmp).
     */
    static final Path TRACKING_DB = HOME.resolve("calls.db");

    private AgentToolsProcess() {
    }

    private static Path privateHome() {
        try {
            Path home = Files.createTempDirectory("agent-tools-test-home-");
            Files.createFile(home.resolve("config.properties"));
            return home;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the test processes' home: " + e.getMessage(), e);
        }
    }

    /** The command line of an isolated agent-tools JVM running {@code args}. */
    static List<String> javaCommand(String... args) {
        List<String> command = new ArrayList<>(List.of(JAVA, "-Duser.home=" + HOME));
        command.addAll(JVM_OPTIONS);
        command.addAll(LAUNCH.options());
        command.addAll(List.of("-cp", LAUNCH.classPath(), Main.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    /**
     * C1 only and the serial collector: these JVMs live seconds, and C2's compiles would be seconds of CPU each that
     * a test's few calls never earn back (the suite shares two cores). JVM warnings go to stderr, never into an answer
     * (stdout's default output off; what a test logs to a file of its own, through JAVA_TOOL_OPTIONS, is left alone).
     */
    private static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xlog:all=off",
            "-Xlog:all=warning:stderr");

    /** How the spawned JVMs load agent-tools: a class path, and the options that go with it. */
    private record Launch(String classPath, List<String> options) {
    }

    private static final Launch LAUNCH = launch();

    /**
     * The build's jar and its lib/ (Maven makes them at process-classes, before any test) with a class-data sharing
     * archive of what a call loads, made once per test JVM: about 0.15 s of CPU less at each of the suite's ~200 JVM
     * starts. CDS reads classes from jars only, not from target/classes. When the jar is missing or older than a class
     * (a test run from an IDE after an edit), this JVM's own class path, without an archive: never stale code.
     */
    private static Launch launch() {
        Launch plain = new Launch(System.getProperty("java.class.path"), List.of());
        Path target = Path.of("target");
        Path jar = target.resolve("agent-tools.jar");
        Path classes = target.resolve("classes");
        try {
            if (!Files.isRegularFile(jar) || !Files.isDirectory(target.resolve("lib")) || !Files.isDirectory(classes)) {
                return plain;
            }
            long built = Files.getLastModifiedTime(jar).toMillis();
            try (Stream<Path> files = Files.walk(classes)) {
                if (files.anyMatch(f -> lastModified(f) > built)) {
                    return plain;
                }
            }
            String classPath = jar.toAbsolutePath() + File.pathSeparator + target.toAbsolutePath().resolve("lib") + File.separator + "*";
            Path archive = HOME.resolve("agent-tools.jsa");
            List<String> dump = new ArrayList<>(List.of(JAVA, "-Duser.home=" + HOME));
            dump.addAll(JVM_OPTIONS);
            dump.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-cp", classPath, Main.class.getName(), "call"));
            ProcessBuilder b = new ProcessBuilder(dump).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            isolate(b.environment()).put("AGENT_TOOLS_TRACKING", "none");
            Process p = b.start();
            try (var in = p.getOutputStream()) {
                in.write("{\"command\":\"tools.list\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Launch(classPath, List.of());
            }
            return p.exitValue() == 0 && Files.isRegularFile(archive)
                    ? new Launch(classPath, List.of("-Xshare:auto", "-XX:SharedArchiveFile=" + archive))
                    : new Launch(classPath, List.of());
        } catch (IOException e) {
            return plain;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return plain;
        }
    }

    private static long lastModified(Path f) {
        try {
            return Files.getLastModifiedTime(f).toMillis();
        } catch (IOException e) {
            return Long.MAX_VALUE; // unreadable: treated as newer than the jar, so the class path is used
        }
    }

    /** Takes the developer's settings out of a child's environment and gives it the private home. */
    static Map<String, String> isolate(Map<String, String> env) {
        env.keySet().removeIf(k -> k.startsWith("AGENT_TOOLS_") || k.startsWith("XDG_"));
        env.put("HOME", HOME.toString());
        env.put("XDG_CONFIG_HOME", HOME.resolve(".config").toString());
        env.put("XDG_DATA_HOME", HOME.resolve(".local/share").toString());
        env.put("AGENT_TOOLS_CONFIG", HOME.resolve("config.properties").toString());
        env.put("AGENT_TOOLS_WARMUP", "off"); // seconds of CPU per process that would only slow the suite (JitWarmUpTest runs it)
        return env;
    }

    static ProcessBuilder builder(Emulator emulator, String... args) {
        ProcessBuilder b = new ProcessBuilder(javaCommand(args));
        Map<String, String> env = isolate(b.environment());
        env.put("AGENT_TOOLS_GMAIL_ROOT_URL", emulator.rootUri().toString());
        env.put("AGENT_TOOLS_ACCESS_TOKEN", "process-token");
        env.put("AGENT_TOOLS_GMAIL_QUOTA", "60000000");
        env.put("AGENT_TOOLS_TRACKING_DB", TRACKING_DB.toString()); // never the user's own store
        return b;
    }

    static Process start(Emulator emulator, String... args) throws IOException {
        return builder(emulator, args).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }
}
