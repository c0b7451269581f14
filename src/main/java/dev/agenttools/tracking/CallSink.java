package dev.agenttools.tracking;

import java.time.Instant;
import java.util.List;

/** Where call records are stored, and read back for statistics. Implementations are used from one writer thread. */
public interface CallSink extends AutoCloseable {
    /** Stores a batch; throws when the store refused it (the recorder counts those records as dropped). */
    void write(List<CallRecord> batch) throws Exception;

    /** Records since {@code since}, optionally of one tool (null for all). */
    List<CallRecord> read(Instant since, String tool) throws Exception;

    /** A short name for messages: sqlite, dynamodb. */
    String name();

    @Override
    void close();
}
