package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.home=" + HOME, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        command.addAll(List.of(args));
        return command;
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
