package dev.agenttools.tracking;

import java.nio.file.Path;
import java.time.Instant;

/**
 * A process that records calls into a SQLite file as fast as it can (for the crash and two-writer tests):
 * {@code WriterMain <file> <count> <agent>}; prints how many records are safely written, every 20 ms.
 */
public final class WriterMain {
    private WriterMain() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int count = Integer.parseInt(args[1]);
        String agent = args[2];
        CallRecorder recorder = new CallRecorder(new SqliteSink(file), 2_000);
        Thread.ofPlatform().daemon().start(() -> {
            while (true) {
                System.out.println("written " + recorder.written());
                System.out.flush();
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        for (int i = 0; i < count; i++) {
            while (!recorder.record(new CallRecord(Instant.now(), "gmail.list-emails", agent, i % 300, "batch", "batch", "ok",
                    null, 10, agent + "-" + i))) {
                Thread.sleep(1); // queue full: wait rather than drop, so the test can count exactly
            }
        }
        recorder.close();
        System.out.println("done " + recorder.written() + " dropped " + recorder.dropped());
    }
}
