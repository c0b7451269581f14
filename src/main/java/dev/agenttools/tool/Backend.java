package dev.agenttools.tool;

import java.util.Locale;

/**
 * What answered a call, as the answer's {@code meta.backend} and the call records name it: a fetch strategy, the local
 * mail index, or the fallback path after the fast one failed.
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
    FALLBACK;

    /** The name on the wire: {@code sequential}, {@code concurrent}, {@code batch}, {@code index} or {@code fallback}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
