package dev.agenttools.tracking;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * A process that works on a store's spool, for the tests of concurrent processes:
 * {@code SpoolMain append <store> <count> <agent>} appends count records one by one, as that many one-shot calls
 * would, then prints "appended <count>"; {@code SpoolMain ingest <store> <stop file>} opens the store again and again
 * (each open ingests) until the stop file exists, printing "ready" after the first, then "ingested <records> in
 * <files> files"; {@code SpoolMain hold <store> <ms>} holds the spool's lock for ms milliseconds, as an ingester
 * renaming the spool does, printing "locked" once it has it.
 */
public final class SpoolMain {
    private SpoolMain() {
    }

    public static void main(String[] args) throws Exception {
        Path store = Path.of(args[1]);
        if (args[0].equals("append")) {
            int count = Integer.parseInt(args[2]);
            Spool spool = new Spool(store);
            for (int i = 0; i < count; i++) {
                spool.write(List.of(new CallRecord(Instant.now(), "gmail.get-email", args[3], i, "sequential", "auto", "ok", null, 1,
                        args[3] + "-" + i)));
            }
            System.out.println("appended " + count);
        } else if (args[0].equals("hold")) {
            Path lock = store.resolveSibling(store.getFileName() + ".pending.lock");
            try (var channel = FileChannel.open(lock, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE)) {
                channel.lock(); // released when the channel closes
                System.out.println("locked");
                System.out.flush();
                Thread.sleep(Long.parseLong(args[2]));
            }
        } else {
            Path stop = Path.of(args[2]);
            long records = 0;
            long files = 0;
            boolean ready = false;
            while (!Files.exists(stop)) {
                try (SqliteSink sink = new SqliteSink(store)) {
                    records += sink.ingested().records();
                    files += sink.ingested().files();
                }
                if (!ready) {
                    System.out.println("ready");
                    System.out.flush();
                    ready = true;
                }
            }
            System.out.println("ingested " + records + " in " + files + " files");
        }
    }
}
