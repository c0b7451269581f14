package dev.agenttools.tracking;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * A process that works on a folder of call journals, for the tests of several processes:
 * {@code JournalMain hold <folder> <count> <agent>} opens a journal, appends count records to it (their store never
 * answers, so they stay in it), prints "ready" and waits to be killed; {@code JournalMain ship <folder>} ships the dead
 * journals there into a sink that counts, then prints "shipped <records> in <files> files".
 */
public final class JournalMain {
    private JournalMain() {
    }

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args[1]);
        if (args[0].equals("hold")) {
            Journal journal = Journal.open(folder);
            for (int i = 0; i < Integer.parseInt(args[2]); i++) {
                journal.append(record(args[3], i), r -> true);
            }
            System.out.println("ready");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        } else {
            Counting sink = new Counting();
            DeadJournals.Shipped shipped = DeadJournals.ship(folder, sink);
            System.out.println("shipped " + sink.records + " in " + shipped.files() + " files");
        }
    }

    static CallRecord record(String agent, int i) {
        return new CallRecord(Instant.ofEpochMilli(1_800_000_000_000L + i), "gmail.get-email", agent, 10 + i / 1000.0, "sequential",
                "auto", "ok", null, 1, agent + "-" + i);
    }

    /** Counts what it is given. */
    static final class Counting implements CallSink {
        long records;

        @Override
        public void write(List<CallRecord> batch) {
            records += batch.size();
        }

        @Override
        public List<CallRecord> read(Instant since, String tool) {
            return List.of();
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public void close() {
        }
    }
}
