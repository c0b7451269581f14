package dev.agenttools.tracking;

import java.time.Instant;
import java.util.List;

/** Where call records are stored, and read back for statistics. Implementations are used from one writer thread. */
public interface CallSink extends AutoCloseable {
    /** Stores a batch; throws when the store refused it (the recorder counts those records as dropped). */
    void write(List<CallRecord> batch) throws Exception;

    /**
     * Stores records that may be stored already (a dead process's {@link Journal}: it may have written them before it
     * died), each once: a record already there, the same call by its time, request id, tool and duration, is not
     * stored again. The default suits a store whose key is made of those (DynamoDB's: a put of the same key overwrites).
     */
    default void replay(List<CallRecord> batch) throws Exception {
        write(batch);
    }

    /** Records since {@code since}, optionally of one tool (null for all). */
    List<CallRecord> read(Instant since, String tool) throws Exception;

    /** A short name for messages: sqlite, dynamodb. */
    String name();

    @Override
    void close();
}
