package dev.agenttools.emulator.gmail;

import dev.agenttools.emulator.api.ApiError;

import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * One message of the mailbox. Content is immutable; labels and historyId change under the mailbox's write
 * lock and are published through volatile fields, so readers never see a half-made change.
 */
final class StoredMessage {
    final long id;
    final long threadId;
    final long internalDate;
    final byte[] raw;
    final ParsedMessage parsed;
    private volatile Set<String> labels;
    private volatile long historyId;

    StoredMessage(long id, long threadId, long internalDate, byte[] raw, ParsedMessage parsed, Set<String> labels,
                  long historyId) {
        this.id = id;
        this.threadId = threadId;
        this.internalDate = internalDate;
        this.raw = raw;
        this.parsed = parsed;
        this.labels = ordered(labels);
        this.historyId = historyId;
    }

    Set<String> labels() {
        return labels;
    }

    long historyId() {
        return historyId;
    }

    void update(Set<String> newLabels, long newHistoryId) {
        labels = ordered(newLabels);
        historyId = newHistoryId;
    }

    /** Set.copyOf iterates in an order that changes between JVM runs; label order must be stable. */
    private static Set<String> ordered(Set<String> labels) {
        return Collections.unmodifiableSet(new LinkedHashSet<>(labels));
    }

    String hexId() {
        return hex(id);
    }

    String hexThreadId() {
        return hex(threadId);
    }

    /** Gmail's form of an id: 16 lower-case hex digits (the mailbox gives out ids in [2^60, 2^63), see {@link Mailbox}). */
    static String hex(long id) {
        return HexFormat.of().toHexDigits(id);
    }

    /**
     * Gmail's id rule (measured, see the fact sheet): up to 16 hex digits that fit a signed 64-bit number parse
     * to an id; anything else is 400 "Invalid id value".
     */
    static long parseId(String text) {
        if (text == null || text.isEmpty() || text.length() > 16 || !text.matches("[0-9a-fA-F]+")) {
            throw ApiError.invalidId();
        }
        long value = Long.parseUnsignedLong(text, 16);
        if (value < 0) {
            throw ApiError.invalidId();
        }
        return value;
    }
}
