package dev.agenttools.emulator;

import java.util.Set;

/**
 * One message to load into a mailbox, from the seed generator or from the user's mbox or .eml files.
 *
 * @param labelIds     label ids (system) or {@code user:Name} for user labels
 * @param internalDate epoch ms the message arrived
 * @param threadKey    messages with the same key share a thread; null to thread by References/In-Reply-To
 */
record MailInput(byte[] raw, Set<String> labelIds, long internalDate, String threadKey) {
}
