package dev.agenttools.cli;

import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tracking.CallRecorder;
import dev.agenttools.tracking.SqliteSink;
import picocli.CommandLine.Command;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * The AOT cache's training run (hidden; the launcher runs it after each build under -XX:AOTCacheOutput): it makes
 * the calls a one-shot `call` makes, against an in-process emulator, so that the cache holds the Gmail client,
 * HTTP/2 and JSON classes a real call loads, not only the start-up path.
 */
@Command(name = "train-aot", hidden = true, description = "Exercise the call paths for the JDK AOT cache's training run.")
final class TrainAotCommand implements Callable<Integer> {
    /** Rounds of list_emails(10) and get_email: about 2 s against the in-process emulator at no latency. */
    static final int TRAINING_ROUNDS = Integer.getInteger("agenttools.trainingRounds", 300);

    @Override
    public Integer call() throws java.io.IOException {
        // no latency and no quota to wait for: the training is about code paths, not pacing
        try (Emulator emulator = Emulator.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(100_000_000).maxConcurrent(1_000).seedMessages(60).build())) {
            java.nio.file.Path db = java.nio.file.Files.createTempFile("agent-tools-aot-training", ".db");
            CallRecorder recorder = new CallRecorder(new SqliteSink(db), 100);
            ToolProtocol protocol = new ToolProtocol(Tools.builder()
                    .gmail(GmailSettings.forRoot(emulator.rootUri().toString()).withPacing(100_000_000, 10_000_000, 1_000)
                            .withAccessToken("training")).recorder(recorder).build());
            protocol.answer("{\"command\": \"tools.list\", \"params\": {}}");
            String list = protocol.answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 3}}").line();
            for (String strategy : new String[] {"sequential", "concurrent", "batch"}) {
                protocol.answer("{\"command\": \"gmail.search-emails\", \"params\": {\"query\": \"has:attachment\", "
                        + "\"max_results\": 2, \"strategy\": \"" + strategy + "\"}}");
            }
            String id = list.replaceAll("(?s).*?\"id\":\"([0-9a-f]+)\".*", "$1");
            protocol.answer("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}");
            protocol.answer("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"00000000000000ab\"}}");
            protocol.answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 0}}");
            protocol.answer("not json");
            // The cache also keeps the methods' profiles (JEP 515): calls repeated until the hot paths (the Google
            // client's request building and parsing, decoding, the protocol) have real profiles, so a process that
            // starts with the cache compiles them early instead of running its first calls interpreted.
            for (int i = 0; i < TRAINING_ROUNDS; i++) {
                protocol.answer("{\"command\": \"gmail.list-emails\", \"params\": {\"max_results\": 10}}");
                protocol.answer("{\"command\": \"gmail.get-email\", \"params\": {\"message_id\": \"" + id + "\"}}");
            }
            recorder.close();
            java.nio.file.Files.deleteIfExists(db);
            java.nio.file.Files.deleteIfExists(db.resolveSibling(db.getFileName() + "-wal"));
            java.nio.file.Files.deleteIfExists(db.resolveSibling(db.getFileName() + "-shm"));
        }
        return 0;
    }
}
