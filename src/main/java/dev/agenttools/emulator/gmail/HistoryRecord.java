package dev.agenttools.emulator.gmail;

import java.util.List;

/**
 * One change to the mailbox, as users.history.list reports it.
 *
 * @param type     {@code messageAdded}, {@code messageDeleted}, {@code labelAdded} or {@code labelRemoved}
 * @param labelIds the labels added or removed (label changes only)
 * @param labelsAfter the message's labels right after the change
 */
record HistoryRecord(long id, String type, long messageId, long threadId, List<String> labelIds,
                     List<String> labelsAfter) {
    HistoryRecord {
        labelIds = List.copyOf(labelIds);
        labelsAfter = List.copyOf(labelsAfter);
    }
}
