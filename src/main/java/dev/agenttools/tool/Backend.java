package dev.agenttools.tool;

import java.util.Locale;

/**
 * What answered a call, as the answer's {@code meta.backend} and the call records name it: a fetch strategy, the local
 * mail index, the fallback path after the fast one failed, or a tool's own store.
 */
public enum Backend {
    /** One request after another: the baseline, and the surest path. */
    SEQUENTIAL,
    /** Requests at once, bounded by the user's in-flight limit. */
    CONCURRENT,
    /** Google's HTTP batch endpoint. */
    BATCH,
    /** The local mail index answered without fetching a message. */
    INDEX,
    /** The fast path failed and the surer one answered ({@link ToolInterceptor#fallback()}). */
    FALLBACK,
    /** The tool's own local store answered (the Habit tools' SQLite file): no upstream API was called. */
    STORE;

    /** The name on the wire: {@code sequential}, {@code concurrent}, {@code batch}, {@code index}, {@code fallback} or {@code store}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
