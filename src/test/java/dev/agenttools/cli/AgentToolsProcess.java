package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Starts the real command line in its own JVM, pointed at an emulator, as an agent would run it. */
final class AgentToolsProcess {
    /** The call store the test processes write to. */
    static final Path TRACKING_DB = Path.of(System.getProperty("java.io.tmpdir"),
            "agent-tools-test-calls-" + ProcessHandle.current().pid() + ".db");

    private AgentToolsProcess() {
    }

    static ProcessBuilder builder(Emulator emulator, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(command);
        Map<String, String> env = b.environment();
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
