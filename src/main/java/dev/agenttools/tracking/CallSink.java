package dev.agenttools.tracking;

import java.time.Instant;
import java.util.List;

/** Where call records are stored, and read back for statistics. Implementations are used from one writer thread. */
public interface CallSink extends AutoCloseable {
    /**
     * Stores a batch; throws when the store refused it. The recorder writes a refused batch again when {@link #mayPass}
     * says the refusal may pass (else it drops the batch and counts it), so a store that took part of a batch before
     * refusing the rest must not store that part twice (SQLite rolls the batch back; a DynamoDB put of the same key
     * overwrites its item).
     */
    void write(List<CallRecord> batch) throws Exception;

    /**
     * Whether the store refused a write (or its opening) for a reason that may pass by itself: unreachable,
     * throttled, overloaded, locked by another writer. The recorder then keeps the records and tries again, where a
     * refusal that would come back every time (a record the store will never take) is dropped so that it does not
     * hold up the records behind it. None by default.
     */
    default boolean mayPass(Exception refusal) {
        return false;
    }

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
